/* The runtime alone: plays a compressed clip (.ossaclip) and prints where
 * each joint is. Builds against libossa-runtime only, which needs libc and
 * libm and nothing else:
 *
 *   cc play_clip.c $(pkg-config --cflags --libs ossa-runtime) -o play_clip
 *   ossa convert guy.iqm -o guy.ossaclip --anim dance
 *   ./play_clip guy.ossaclip 0.5
 *
 * prints one line per joint: its index and the translation of its
 * model-space matrix at that time (seconds, looped or clamped as the
 * animation says). */
#include <ossa/runtime.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: play_clip FILE.ossaclip SECONDS\n");
        return 2;
    }
    ossa_error err;
    ossa_clip *clip = ossa_clip_load_file(argv[1], NULL, &err);
    if (!clip) {
        char msg[600];
        fprintf(stderr, "play_clip: %s\n", ossa_error_format(&err, msg, sizeof msg));
        return 1;
    }
    ossa_clip_info info;
    ossa_clip_get_info(clip, &info);
    float(*model)[16] = malloc((info.num_joints + 1) * sizeof *model);
    ossa_sample_job job = {0};
    job.clip = clip;
    job.time = atof(argv[2]);
    job.model = model;
    job.num_outputs = info.num_joints;
    int rc = 0;
    if (!model || ossa_sample_run(&job, &err) != OSSA_OK) {
        fprintf(stderr, "play_clip: %s\n", model ? err.message : "out of memory");
        rc = 1;
    }
    for (uint32_t j = 0; !rc && j < info.num_joints; j++)
        printf("%u %.9g %.9g %.9g\n", j, model[j][12], model[j][13], model[j][14]);
    free(model);
    ossa_clip_free(clip);
    return rc;
}
