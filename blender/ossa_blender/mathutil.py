"""Transforms as numpy arrays: ossa's (translation, rotation x y z w, scale)
and 4x4 matrices indexed [row, column] (column vectors, as Blender's
mathutils and the ossa package's model matrices), many at once."""

import numpy as np


def quat_to_mat3(q):
    """(..., 4) quaternions x y z w (normalized here) as (..., 3, 3) rotations."""
    q = np.asarray(q, np.float64)
    n = np.linalg.norm(q, axis=-1, keepdims=True)
    q = np.where(n > 0, q / np.where(n > 0, n, 1), np.array([0, 0, 0, 1.0]))
    x, y, z, w = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    m = np.empty(q.shape[:-1] + (3, 3))
    m[..., 0, 0] = 1 - 2 * (y * y + z * z)
    m[..., 0, 1] = 2 * (x * y - z * w)
    m[..., 0, 2] = 2 * (x * z + y * w)
    m[..., 1, 0] = 2 * (x * y + z * w)
    m[..., 1, 1] = 1 - 2 * (x * x + z * z)
    m[..., 1, 2] = 2 * (y * z - x * w)
    m[..., 2, 0] = 2 * (x * z - y * w)
    m[..., 2, 1] = 2 * (y * z + x * w)
    m[..., 2, 2] = 1 - 2 * (x * x + y * y)
    return m


def trs_to_mat(t, q, s):
    """T * R * S as (..., 4, 4) float64 from (..., 3), (..., 4 xyzw), (..., 3)."""
    r = quat_to_mat3(q) * np.asarray(s, np.float64)[..., None, :]
    m = np.zeros(r.shape[:-2] + (4, 4))
    m[..., :3, :3] = r
    m[..., :3, 3] = t
    m[..., 3, 3] = 1
    return m


def mat3_to_quat(r):
    """(..., 3, 3) rotation matrices as (..., 4) unit quaternions x y z w
    (Shepperd's method: the largest of w, x, y, z is found first, so no
    division by a small number)."""
    r = np.asarray(r, np.float64)
    tr = r[..., 0, 0] + r[..., 1, 1] + r[..., 2, 2]
    cand = np.stack([tr, r[..., 0, 0], r[..., 1, 1], r[..., 2, 2]], -1)
    k = np.argmax(cand, -1)
    q = np.empty(r.shape[:-2] + (4,))
    # w largest
    s = np.sqrt(np.maximum(1 + tr, 1e-300)) * 2
    qw = np.stack([(r[..., 2, 1] - r[..., 1, 2]) / s, (r[..., 0, 2] - r[..., 2, 0]) / s,
                   (r[..., 1, 0] - r[..., 0, 1]) / s, s / 4], -1)
    s = np.sqrt(np.maximum(1 + r[..., 0, 0] - r[..., 1, 1] - r[..., 2, 2], 1e-300)) * 2
    qx = np.stack([s / 4, (r[..., 0, 1] + r[..., 1, 0]) / s, (r[..., 0, 2] + r[..., 2, 0]) / s,
                   (r[..., 2, 1] - r[..., 1, 2]) / s], -1)
    s = np.sqrt(np.maximum(1 - r[..., 0, 0] + r[..., 1, 1] - r[..., 2, 2], 1e-300)) * 2
    qy = np.stack([(r[..., 0, 1] + r[..., 1, 0]) / s, s / 4, (r[..., 1, 2] + r[..., 2, 1]) / s,
                   (r[..., 0, 2] - r[..., 2, 0]) / s], -1)
    s = np.sqrt(np.maximum(1 - r[..., 0, 0] - r[..., 1, 1] + r[..., 2, 2], 1e-300)) * 2
    qz = np.stack([(r[..., 0, 2] + r[..., 2, 0]) / s, (r[..., 1, 2] + r[..., 2, 1]) / s, s / 4,
                   (r[..., 1, 0] - r[..., 0, 1]) / s], -1)
    q = np.select([k[..., None] == 0, k[..., None] == 1, k[..., None] == 2], [qw, qx, qy], qz)
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    return np.where(q[..., 3:4] < 0, -q, q)


def mat_to_trs(m):
    """(..., 4, 4) affine matrices as translation, quaternion x y z w and
    scale. The scale is the length of each axis, negative on x when the
    matrix mirrors (a rotation cannot); shear is not represented."""
    m = np.asarray(m, np.float64)
    t = m[..., :3, 3].copy()
    a = m[..., :3, :3]
    s = np.linalg.norm(a, axis=-2)
    s[..., 0] *= np.where(np.linalg.det(a) < 0, -1, 1)
    r = a / np.where(s == 0, 1, s)[..., None, :]
    # r is a rotation up to rounding (no shear): the quaternion of its
    # largest component is normalized, no decomposition needed.
    return t, mat3_to_quat(r), s


def orthonormal(a):
    """The rotation nearest to each (..., 3, 3) matrix (polar decomposition
    by SVD); the identity for a singular one."""
    a = np.asarray(a, np.float64)
    u, sv, vt = np.linalg.svd(a)
    r = u @ vt
    flip = np.linalg.det(r) < 0
    if np.any(flip):
        u = u.copy()
        u[flip, :, 2] *= -1
        r = u @ vt
    bad = ~np.isfinite(r).all(axis=(-2, -1)) | (sv[..., 2] <= 1e-12 * np.maximum(sv[..., 0], 1e-300))
    return np.where(bad[..., None, None], np.eye(3), r)


def continuous(q, axis=0):
    """Quaternions (..., 4) with signs flipped along ``axis`` so that each one
    is in the same half-space as the one before: Blender interpolates the
    four channels one by one, and q and -q are the same rotation."""
    q = np.array(q, np.float64)
    q = np.moveaxis(q, axis, 0)
    if len(q) > 1:
        dots = np.sum(q[1:] * q[:-1], axis=-1)
        sign = np.cumprod(np.where(dots < 0, -1.0, 1.0), axis=0)
        q[1:] *= sign[..., None]
    return np.moveaxis(q, 0, axis)


def inverse(m):
    """Inverses of (..., 4, 4) affine matrices (the identity where singular)."""
    m = np.asarray(m, np.float64)
    ok = np.abs(np.linalg.det(m[..., :3, :3])) > 1e-300
    safe = np.where(ok[..., None, None], m, np.eye(4))
    return np.linalg.inv(safe)


def rotation_between(a, b):
    """(..., 3, 3) rotations taking unit vectors a to unit vectors b, turning
    the least (about a x b); half a turn about an axis normal to a when they
    are opposite."""
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    v = np.cross(a, b)
    c = np.sum(a * b, -1)
    k = np.zeros(a.shape[:-1] + (3, 3))
    k[..., 0, 1], k[..., 0, 2], k[..., 1, 2] = -v[..., 2], v[..., 1], -v[..., 0]
    k[..., 1, 0], k[..., 2, 0], k[..., 2, 1] = v[..., 2], -v[..., 1], v[..., 0]
    denom = np.where(c > -1 + 1e-9, 1 + c, 1)
    r = np.eye(3) + k + (k @ k) / denom[..., None, None]
    # Opposite: a half turn about any axis normal to a.
    other = np.where(np.abs(a[..., :1]) < 0.9, np.array([1.0, 0, 0]), np.array([0, 1.0, 0]))
    n = np.cross(a, other)
    n /= np.linalg.norm(n, axis=-1, keepdims=True)
    half = 2 * n[..., :, None] * n[..., None, :] - np.eye(3)
    return np.where((c <= -1 + 1e-9)[..., None, None], half, r)
