/* The glTF reader's animation tracks (one sampler driving one channel of
 * one joint) and their exact evaluation (tracks.c): read_anims.c samples
 * them on frames, read_rate.c picks the frames. Not installed. */
#ifndef OSSA_GLTF_TRACKS_H
#define OSSA_GLTF_TRACKS_H

#include "formats/gltf/scene.h"

enum { GLTF_LINEAR = 0, GLTF_STEP = 1, GLTF_CUBICSPLINE = 2 };

typedef struct gltf_track {
    uint32_t joint;
    int path;   /* 0 translation, 1 rotation, 2 scale */
    int interp; /* GLTF_LINEAR, GLTF_STEP, GLTF_CUBICSPLINE */
    const float *times;
    uint32_t keys;
    float *values; /* keys * ncomp, or keys * 3 * ncomp for CUBICSPLINE */
    uint32_t ncomp;
} gltf_track;

/* The track's value at `time` (seconds, glTF axes; rotations unit): LINEAR
 * interpolates (slerp for rotations), STEP holds the key at or before,
 * CUBICSPLINE is the Hermite curve of the spec's Appendix C; before the
 * first key the first, after the last the last. A time within `snap`
 * seconds of a key gives that key exactly (0: only at the key). `cursor`
 * (start it at 0) remembers the key interval between calls at increasing
 * times; NULL searches. */
void ossa__gltf_track_value(const gltf_track *t, double time, double snap, uint32_t *cursor,
                            float *out);

/* The frames of an animation (read_rate.c). */
typedef struct gltf_timing {
    double rate;     /* frame f is at f / rate seconds */
    float framerate; /* the model's: `rate`, or the file's own as it gave it */
    uint32_t frames;
    uint32_t flags;  /* OSSA_ANIMATION_LOOP, from ossa's extras */
    char note[192];  /* how the frames were chosen: ossa_animation.sampling */
} gltf_timing;

/* Picks the frames of animation `an` from its n tracks (docs/formats/
 * gltf.md §4), at most about `most_frames` of them where it searches.
 * Fails only when memory runs out. */
ossa_status ossa__gltf_timing(gltf_scene *s, const cJSON *an, const gltf_track *tracks, uint32_t n,
                              uint64_t most_frames, gltf_timing *out);

#endif
