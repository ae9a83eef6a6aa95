#!/usr/bin/env python3
"""Generate a large, deterministic MD5 model (id Tech 4 md5mesh + md5anim) for benchmarking.

The model of gen_big_iqe.py in MD5 form: 100 joints (root, spine chain, six limb chains), a tube
of 16 rings x 32 segments around every bone with up to 3 weights per vertex (50,688 vertices,
95,040 triangles, about 117,000 weights), 4 mesh blocks, and animations whose joints all move
(flags 63, as id's exporter writes for animated joints). Numbers are written as id's exporter
writes them: %.10f with trailing zeros and point stripped, so most carry 10 decimals.

Default output: OUT.md5mesh (12.5 MB) and OUT.anim0.md5anim .. OUT.anim4.md5anim
(5 x 640 frames, 4 MB each): 32 MB of text in all. The same arguments give the same bytes.

usage: gen_big_md5.py [-o OUT] [--joints N] [--rings R] [--segments S] [--frames F]
                      [--anims A] [--seed N]
"""
import argparse
import math
import random


def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


def qrot(q, v):
    """v rotated by unit quaternion q (Hamilton, column vectors)."""
    x, y, z, w = q
    cx = y * v[2] - z * v[1]
    cy = z * v[0] - x * v[2]
    cz = x * v[1] - y * v[0]
    ccx = y * cz - z * cy
    ccy = z * cx - x * cz
    ccz = x * cy - y * cx
    return (v[0] + 2 * (w * cx + ccx), v[1] + 2 * (w * cy + ccy), v[2] + 2 * (w * cz + ccz))


def fmt(x):
    """id's exporter: %.10f, trailing zeros and point stripped."""
    s = '%.10f' % x
    s = s.rstrip('0').rstrip('.')
    return '0' if s in ('-0', '') else s


def neg_w(q):
    """w <= 0, the sign MD5 files imply (docs/formats/md5.md §3)."""
    return q if q[3] <= 0 else tuple(-c for c in q)


def build_skeleton(njoints, rnd):
    """(name, parent, offset) with parent-relative offsets, as gen_big_iqe.py."""
    joints = [('root', -1, (0.0, 0.0, 1.0))]
    spine = max(1, min(9, njoints // 10))
    for i in range(spine):
        joints.append(('spine%d' % i, len(joints) - 1, (0.0, 0.0, 0.25)))
    remaining = njoints - len(joints)
    attach = [len(joints) - 1, len(joints) - 1, max(1, len(joints) - 3), max(1, len(joints) - 3), 0, 0]
    dirs = [(1, 0, 0.2), (-1, 0, 0.2), (0.7, 0.7, 0), (-0.7, 0.7, 0), (0.3, 0, -1), (-0.3, 0, -1)]
    per = [remaining // 6 + (1 if i < remaining % 6 else 0) for i in range(6)]
    for li in range(6):
        parent = attach[li]
        d = dirs[li]
        n = math.sqrt(sum(c * c for c in d))
        for k in range(per[li]):
            ln = 0.12 + 0.02 * rnd.random()
            joints.append(('limb%d_%d' % (li, k), parent, tuple(c / n * ln for c in d)))
            parent = len(joints) - 1
    return joints


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('-o', '--out', default='big', help='output stem (default: big)')
    ap.add_argument('--joints', type=int, default=100)
    ap.add_argument('--rings', type=int, default=16)
    ap.add_argument('--segments', type=int, default=32)
    ap.add_argument('--frames', type=int, default=640, help='frames per animation')
    ap.add_argument('--anims', type=int, default=5)
    ap.add_argument('--seed', type=int, default=1234)
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    joints = build_skeleton(args.joints, rnd)
    nj = len(joints)
    # bind pose: identity rotations, so model space is the sum of offsets
    world = []
    for name, parent, off in joints:
        base = world[parent] if parent >= 0 else (0.0, 0.0, 0.0)
        world.append(tuple(base[c] + off[c] for c in range(3)))

    R, S = args.rings, args.segments
    bones = list(range(1, nj))
    meshes = 4
    per_mesh = (len(bones) + meshes - 1) // meshes
    with open(args.out + '.md5mesh', 'w', newline='\n') as f:
        w = f.write
        w('MD5Version 10\ncommandline "gen_big_md5.py"\n\nnumJoints %d\nnumMeshes %d\n\njoints {\n'
          % (nj, meshes))
        for j, (name, parent, off) in enumerate(joints):
            t = world[j]
            w('\t"%s"\t%d ( %s %s %s ) ( 0 0 0 )\t\t// %s\n'
              % (name, parent, fmt(t[0]), fmt(t[1]), fmt(t[2]), joints[parent][0] if parent >= 0 else ''))
        w('}\n')
        for m in range(meshes):
            verts, weights, tris = [], [], []
            for b in bones[m * per_mesh:(m + 1) * per_mesh]:
                p = joints[b][1]
                gp = joints[p][1]
                d = tuple(world[b][c] - world[p][c] for c in range(3))
                ln = math.sqrt(sum(c * c for c in d))
                dn = tuple(c / ln for c in d)
                ref = (1, 0, 0) if abs(dn[2]) >= 0.9 else (0, 0, 1)
                u = (dn[1] * ref[2] - dn[2] * ref[1], dn[2] * ref[0] - dn[0] * ref[2], dn[0] * ref[1] - dn[1] * ref[0])
                ul = math.sqrt(sum(c * c for c in u))
                u = tuple(c / ul for c in u)
                v = (dn[1] * u[2] - dn[2] * u[1], dn[2] * u[0] - dn[0] * u[2], dn[0] * u[1] - dn[1] * u[0])
                radius = 0.03 + 0.01 * ((b * 7) % 5)
                base = len(verts)
                for r in range(R):
                    t = r / (R - 1)
                    for s in range(S):
                        a = 2 * math.pi * s / S
                        pos = tuple(world[p][c] + d[c] * t + (u[c] * math.cos(a) + v[c] * math.sin(a)) * radius
                                    for c in range(3))
                        wb = 0.2 + 0.8 * t
                        infl = [(b, wb)]
                        if gp >= 0 and t < 0.3:
                            infl += [(p, (1 - wb) * 0.8), (gp, (1 - wb) * 0.2)]
                        else:
                            infl.append((p, 1 - wb))
                        verts.append((s / S, t, len(weights), len(infl)))
                        # each weight places the vertex in its joint's bind space
                        for jn, bias in infl:
                            weights.append((jn, bias, tuple(pos[c] - world[jn][c] for c in range(3))))
                for r in range(R - 1):
                    for s in range(S):
                        i0 = base + r * S + s
                        i1 = base + r * S + (s + 1) % S
                        tris.append((i0, i0 + S, i1))
                        tris.append((i1, i0 + S, i1 + S))
            w('\nmesh {\n\t// meshes: part%d\n\tshader "models/big/mat%d"\n\n\tnumverts %d\n' % (m, m, len(verts)))
            for i, (uu, vv, first, count) in enumerate(verts):
                w('\tvert %d ( %s %s ) %d %d\n' % (i, fmt(uu), fmt(vv), first, count))
            w('\n\tnumtris %d\n' % len(tris))
            for i, (a, b2, c) in enumerate(tris):
                w('\ttri %d %d %d %d\n' % (i, a, b2, c))
            w('\n\tnumweights %d\n' % len(weights))
            for i, (jn, bias, o) in enumerate(weights):
                w('\tweight %d %d %s ( %s %s %s )\n' % (i, jn, fmt(bias), fmt(o[0]), fmt(o[1]), fmt(o[2])))
            w('}\n')

    amp = [0.2 + 0.6 * rnd.random() for _ in range(nj)]
    freq = [0.5 + 2 * rnd.random() for _ in range(nj)]
    ph = [rnd.random() * 6.28 for _ in range(nj)]
    ax1 = [rnd.randrange(3) for _ in range(nj)]
    ax2 = [rnd.randrange(3) for _ in range(nj)]
    nf = args.frames
    for a in range(args.anims):
        frames = []
        for fr in range(nf):
            tt = fr / 24.0
            pose = []
            for j, (name, parent, off) in enumerate(joints):
                h1 = amp[j] * math.sin(freq[j] * tt + ph[j] + a) / 2
                h2 = 0.5 * amp[j] * math.cos(0.7 * freq[j] * tt + ph[j]) / 2
                q1 = [0.0, 0.0, 0.0, math.cos(h1)]
                q2 = [0.0, 0.0, 0.0, math.cos(h2)]
                q1[ax1[j]] = math.sin(h1)
                q2[ax2[j]] = math.sin(h2)
                q = neg_w(qmul(q1, q2))
                o = off
                if parent < 0:
                    o = (0.3 * math.sin(0.5 * tt + a), 0.2 * tt / (nf / 24.0), off[2] + 0.05 * math.sin(2 * tt))
                pose.append((o, q))
            frames.append(pose)
        # bounds: the joints' box, widened by the largest tube radius
        with open('%s.anim%d.md5anim' % (args.out, a), 'w', newline='\n') as f:
            w = f.write
            w('MD5Version 10\ncommandline "gen_big_md5.py"\n\nnumFrames %d\nnumJoints %d\nframeRate 24\n'
              'numAnimatedComponents %d\n\nhierarchy {\n' % (nf, nj, 6 * nj))
            for j, (name, parent, off) in enumerate(joints):
                w('\t"%s"\t%d 63 %d\t// %s\n' % (name, parent, 6 * j, joints[parent][0] if parent >= 0 else ''))
            w('}\n\nbounds {\n')
            for pose in frames:
                pts = []
                for j, (name, parent, off) in enumerate(joints):
                    o, q = pose[j]
                    if parent < 0:
                        pts.append((o, q))
                    else:
                        pt, pq = pts[parent]
                        r = qrot(pq, o)
                        pts.append((tuple(pt[c] + r[c] for c in range(3)), qmul(pq, q)))
                lo = [min(p[0][c] for p in pts) - 0.07 for c in range(3)]
                hi = [max(p[0][c] for p in pts) + 0.07 for c in range(3)]
                w('\t( %s %s %s ) ( %s %s %s )\n' % tuple(fmt(x) for x in lo + hi))
            w('}\n\nbaseframe {\n')
            for o, q in frames[0]:
                w('\t( %s %s %s ) ( %s %s %s )\n' % (fmt(o[0]), fmt(o[1]), fmt(o[2]), fmt(q[0]), fmt(q[1]), fmt(q[2])))
            w('}\n')
            for fr, pose in enumerate(frames):
                w('\nframe %d {\n' % fr)
                for o, q in pose:
                    w('\t%s %s %s %s %s %s\n' % (fmt(o[0]), fmt(o[1]), fmt(o[2]), fmt(q[0]), fmt(q[1]), fmt(q[2])))
                w('}\n')


if __name__ == '__main__':
    main()
