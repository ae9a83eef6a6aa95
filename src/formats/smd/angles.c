/* SMD rotations (docs/formats/smd.md §5): three angles in radians about the
 * fixed parent axes, X first, then Y, then Z, i.e. R = Rz * Ry * Rx for
 * column vectors. Both directions work in double precision. */
#include "formats/smd/smd.h"

#include <math.h>

void ossa__smd_euler_to_quat(const float angles[3], float q[4])
{
    double cx = cos(angles[0] * 0.5), sx = sin(angles[0] * 0.5);
    double cy = cos(angles[1] * 0.5), sy = sin(angles[1] * 0.5);
    double cz = cos(angles[2] * 0.5), sz = sin(angles[2] * 0.5);
    /* qz * qy * qx expanded */
    double x = sx * cy * cz - cx * sy * sz;
    double y = cx * sy * cz + sx * cy * sz;
    double z = cx * cy * sz - sx * sy * cz;
    double w = cx * cy * cz + sx * sy * sz;
    double len = sqrt(x * x + y * y + z * z + w * w);
    /* w <= 0, as IQM stores rotations and the IQM SDK turns them */
    double s = (w > 0 ? -1.0 : 1.0) / len;
    /* + 0.0f: the flip must not leave -0 components behind */
    q[0] = (float)(x * s) + 0.0f;
    q[1] = (float)(y * s) + 0.0f;
    q[2] = (float)(z * s) + 0.0f;
    q[3] = (float)(w * s) + 0.0f;
}

void ossa__smd_quat_to_euler(const float q[4], double angles[3])
{
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double len = sqrt(x * x + y * y + z * z + w * w);
    if (!(len > 0) || !isfinite(len)) {
        angles[0] = angles[1] = angles[2] = 0;
        return;
    }
    x /= len;
    y /= len;
    z /= len;
    w /= len;
    double r00 = 1 - 2 * (y * y + z * z), r10 = 2 * (x * y + z * w), r20 = 2 * (x * z - y * w);
    double r21 = 2 * (y * z + x * w), r22 = 1 - 2 * (x * x + y * y);
    double r11 = 1 - 2 * (x * x + z * z), r12 = 2 * (y * z - x * w);
    double cy = sqrt(r00 * r00 + r10 * r10);
    angles[1] = atan2(-r20, cy);
    if (cy > 1e-6) {
        angles[0] = atan2(r21, r22);
        angles[2] = atan2(r10, r00);
    } else {
        /* gimbal lock: ry = +-pi/2, only rx -+ rz is defined */
        angles[0] = atan2(-r12, r11);
        angles[2] = 0;
    }
}
