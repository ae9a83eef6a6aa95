/* Axis conversion, a step the readers and writers of Y-up formats share:
 * glTF, and OBJ with obj.axes=blender, meet ossa's Z-up as Blender does,
 * by a quarter turn about X. Only places and signs change, so a round trip
 * gives back the same floats. `in` and `out` may be the same vector. (The
 * IQM SDK's OBJ map, FBX's axes from the file and SMD's turn for studiomdl
 * are each one format's own.) */
#ifndef OSSA_AXES_H
#define OSSA_AXES_H

/* Y-up (x, y, z) as ossa's Z-up: (x, -z, y), +90 degrees about X. */
static inline void ossa__y_up_to_z_up(const float in[3], float out[3])
{
    float x = in[0], y = in[1], z = in[2];
    out[0] = x;
    out[1] = -z;
    out[2] = y;
}

/* The inverse: ossa's (x, y, z) as Y-up (x, z, -y). */
static inline void ossa__z_up_to_y_up(const float in[3], float out[3])
{
    float x = in[0], y = in[1], z = in[2];
    out[0] = x;
    out[1] = z;
    out[2] = -y;
}

#endif
