/* Pictures of a model for `ossa render` and `ossa demo`: one frame as a
 * PNG, a contact sheet of evenly spaced frames as a PNG, or the whole
 * animation as a GIF. Every frame of a sheet or GIF uses one camera,
 * framed on the bounds of the whole animation. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Progress of a sheet or GIF on standard error, when it is a terminal and
 * the render has taken more than a second (as convert --each shows its). */
typedef struct progress {
    const char *what;
    struct timespec start;
    int terminal, shown;
} progress;

static void progress_start(progress *p, const char *what)
{
    p->what = what;
    p->terminal = isatty(STDERR_FILENO);
    p->shown = 0;
    clock_gettime(CLOCK_MONOTONIC, &p->start);
}

static void progress_step(progress *p, uint32_t done, uint32_t total)
{
    if (!p->terminal) return;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double s = (double)(now.tv_sec - p->start.tv_sec) + (now.tv_nsec - p->start.tv_nsec) / 1e9;
    if (s < 1) return;
    fprintf(stderr, "\r\033[Kossa: %s: frame %u of %u, %.1f s", p->what, done, total, s);
    p->shown = 1;
}

static void progress_end(progress *p)
{
    if (p->shown) fputs("\r\033[K", stderr);
}

static void print_diagnostic(void *user, const ossa_diagnostic *d)
{
    const char *file = d->file[0] ? d->file : (const char *)user;
    fprintf(cli_err(), "ossa: %s: warning: %s\n", file, d->message);
}

/* Everything one output needs, made once. */
typedef struct stage {
    const cli_render_job *job;
    ossa_render_scene *scene;
    ossa_render_camera camera;
    ossa_clip *clip;
    ossa_clip_info info;
    float (*pose)[16];
    int loops;
} stage;

static void stage_free(stage *s)
{
    ossa_render_scene_free(s->scene);
    ossa_clip_free(s->clip);
    free(s->pose);
}

static int fail(const ossa_error *error, const char *file)
{
    ossa_error e = *error;
    if (!e.file[0] && file) snprintf(e.file, sizeof e.file, "%s", file);
    cli_report_error(&e);
    return CLI_EXIT_INPUT;
}

static int stage_init(stage *s, const cli_render_job *job, uint32_t width, uint32_t height)
{
    memset(s, 0, sizeof *s);
    s->job = job;
    ossa_error error;
    const ossa_model *m = job->model;
    s->scene = ossa_render_scene_create(m, NULL, &error);
    if (!s->scene) return fail(&error, job->model_path);
    /* A model without a file (the demo's) may hold its images itself. */
    if (!(job->flags & OSSA_RENDER_NO_TEXTURES))
        ossa_render_scene_load_materials(s->scene, m, job->model_path, print_diagnostic,
                                         (void *)(job->model_path ? job->model_path : "model"));
    ossa_bounds bounds;
    /* the views look at the side the model faces (its format's front) */
    ossa_render_camera_options camera = job->camera;
    camera.struct_size = sizeof camera;
    camera.front = m->front;
    if (ossa_render_bounds(m, job->animation >= 0 ? (uint32_t)job->animation : OSSA_BIND_POSE, &bounds,
                           &error) != OSSA_OK ||
        ossa_render_camera_frame(&camera, &bounds, OSSA_AXIS_Z, width, height, &s->camera,
                                 &error) != OSSA_OK)
        return fail(&error, job->model_path);
    if (job->animation >= 0) {
        s->clip = ossa_clip_create(m, (uint32_t)job->animation, NULL, &error);
        if (!s->clip) return fail(&error, job->model_path);
        ossa_clip_get_info(s->clip, &s->info);
        s->loops = (s->info.flags & OSSA_ANIMATION_LOOP) != 0;
        s->pose = calloc(m->num_joints ? m->num_joints : 1, sizeof *s->pose);
        if (!s->pose) {
            cli_error("out of memory");
            return CLI_EXIT_INPUT;
        }
    }
    return 0;
}

/* Draws the frame at frame position `frame` (ignored for the bind pose). */
static int draw(stage *s, double frame, ossa_render_image *image)
{
    const cli_render_job *job = s->job;
    ossa_render_options o;
    memset(&o, 0, sizeof o);
    o.camera = &s->camera;
    o.flags = job->flags;
    o.supersample = job->supersample;
    o.threads = job->threads;
    memcpy(o.background, job->background, 4);
    ossa_error error;
    if (s->clip) {
        ossa_sample_job sj;
        memset(&sj, 0, sizeof sj);
        sj.clip = s->clip;
        sj.time = frame;
        sj.flags = OSSA_SAMPLE_FRAMES;
        sj.model = s->pose;
        sj.num_outputs = s->info.num_joints;
        if (ossa_sample_run(&sj, &error) != OSSA_OK) return fail(&error, job->model_path);
        o.pose = (const float(*)[16])s->pose;
        o.num_pose = s->info.num_joints;
    }
    if (ossa_render_run(s->scene, &o, image, &error) != OSSA_OK)
        return fail(&error, job->model_path);
    return 0;
}

static int write_png(const ossa_render_image *image, const char *path)
{
    ossa_error error;
    if (ossa_render_png_write(image, path, &error) != OSSA_OK) return fail(&error, path);
    return 0;
}

static int render_still(const cli_render_job *job)
{
    stage s;
    int rc = stage_init(&s, job, job->width, job->height);
    ossa_render_image image = {job->width, job->height, NULL, 0, NULL};
    if (!rc) {
        image.pixels = malloc((size_t)job->width * job->height * 4);
        if (!image.pixels) cli_error("out of memory"), rc = CLI_EXIT_INPUT;
    }
    if (!rc) {
        double frame = job->frame;
        if (s.clip && !job->use_frame) frame = job->time * s.info.framerate;
        rc = draw(&s, frame, &image);
    }
    if (!rc) rc = write_png(&image, job->output);
    free(image.pixels);
    stage_free(&s);
    return rc;
}

/* "12" or "7.5": a frame position without trailing zeros. */
static void format_number(char *buf, size_t size, double v, int decimals)
{
    snprintf(buf, size, "%.*f", decimals, v);
    char *dot = strchr(buf, '.');
    if (!dot) return;
    char *end = buf + strlen(buf);
    while (end > dot + 1 && end[-1] == '0') *--end = 0;
    if (end == dot + 1) *dot = 0;
}

static int render_sheet(const cli_render_job *job)
{
    uint32_t n = job->sheet, cols = 1;
    while (cols * cols < n) cols++;
    uint32_t rows = (n + cols - 1) / cols;
    uint32_t cw = job->width, ch = job->height;
    if ((uint64_t)cw * cols > 8192 || (uint64_t)ch * rows > 8192) {
        cli_error("%s: a sheet of %ux%u cells of %ux%u pixels exceeds 8192 pixels on a side; "
                  "use a smaller --size",
                  job->output, (unsigned)cols, (unsigned)rows, (unsigned)cw, (unsigned)ch);
        return CLI_EXIT_USAGE;
    }
    stage s;
    int rc = stage_init(&s, job, cw, ch);
    uint32_t W = cw * cols, H = ch * rows;
    ossa_render_image sheet = {W, H, NULL, 0, NULL};
    if (!rc) {
        sheet.pixels = calloc((size_t)W * H, 4);
        if (!sheet.pixels) cli_error("out of memory"), rc = CLI_EXIT_INPUT;
    }
    /* Cells without a frame (a sheet of 5 in a 3x2 grid) show the
     * background, as the drawn cells' own background does. */
    static const uint8_t default_background[4] = {48, 52, 60, 255};
    const uint8_t *bg = job->background[0] | job->background[1] | job->background[2] |
                                job->background[3]
                            ? job->background
                            : default_background;
    for (size_t i = 0; sheet.pixels && !(job->flags & OSSA_RENDER_TRANSPARENT) && i < (size_t)W * H; i++)
        memcpy(sheet.pixels + 4 * i, bg, 4);
    progress bar;
    progress_start(&bar, job->output);
    /* Evenly spaced: a looping animation's last frame leads back to its
     * first, so the cells divide [0, frames); a one-shot one ends on its
     * last frame, which the last cell shows. */
    double span = s.clip ? (s.loops ? s.info.num_frames : s.info.num_frames - 1.0) : 0;
    for (uint32_t i = 0; i < n && !rc; i++) {
        double frame = s.loops || n == 1 ? span * i / n : span * i / (n - 1);
        ossa_render_image cell = {cw, ch, sheet.pixels + ((size_t)(i / cols) * ch * W + (size_t)(i % cols) * cw) * 4,
                                  (size_t)W * 4, NULL};
        rc = draw(&s, frame, &cell);
        progress_step(&bar, i + 1, n);
        if (rc || !job->labels) continue;
        char f[32], t[32], label[80];
        format_number(f, sizeof f, frame, 2);
        format_number(t, sizeof t, s.clip ? frame / s.info.framerate : 0, 3);
        snprintf(label, sizeof label, "FRAME %s  %sS", f, t);
        static const uint8_t shade[4] = {0, 0, 0, 150}, ink[4] = {235, 235, 235, 255};
        uint32_t scale = cw >= 192 ? 2 : 1;
        /* A dark band under the text keeps it readable on any background. */
        uint32_t band_h = 7 * scale;
        ossa_render_image band = cell;
        band.height = band_h < ch ? band_h : ch;
        for (uint32_t y = 0; y < band.height; y++)
            for (uint32_t x = 0; x < cw; x++) {
                uint8_t *p = band.pixels + (size_t)y * band.stride + (size_t)x * 4;
                for (int c = 0; c < 3; c++) p[c] = (uint8_t)(p[c] * (255 - shade[3]) / 255);
            }
        ossa_render_text(&cell, (int32_t)scale, (int32_t)scale, scale, ink, label);
    }
    progress_end(&bar);
    if (!rc) rc = write_png(&sheet, job->output);
    free(sheet.pixels);
    stage_free(&s);
    return rc;
}

static int render_gif(const cli_render_job *job)
{
    stage s;
    int rc = stage_init(&s, job, job->width, job->height);
    if (rc) {
        stage_free(&s);
        return rc;
    }
    double rate = s.clip ? s.info.framerate : 30;
    double fps = job->fps > 0 ? job->fps : rate;
    /* A loop's last frame leads back to its first, which the GIF's own
     * loop shows; a one-shot animation ends on its last frame. */
    uint32_t count = 1;
    if (s.clip) {
        double frames = s.loops ? s.info.num_frames * fps / rate
                                : (s.info.num_frames - 1) * fps / rate + 1;
        count = frames < 1 ? 1 : frames > 100000 ? 100000 : (uint32_t)floor(frames + 1e-6);
    }
    ossa_render_gif_options go;
    memset(&go, 0, sizeof go);
    go.width = job->width;
    go.height = job->height;
    go.fps = (float)fps;
    ossa_error error;
    ossa_render_gif *gif = ossa_render_gif_create(&go, &error);
    ossa_render_image image = {job->width, job->height, NULL, 0, NULL};
    if (!gif) rc = fail(&error, job->output);
    if (!rc) {
        image.pixels = malloc((size_t)job->width * job->height * 4);
        if (!image.pixels) cli_error("out of memory"), rc = CLI_EXIT_INPUT;
    }
    progress bar;
    progress_start(&bar, job->output);
    for (uint32_t i = 0; i < count && !rc; i++) {
        rc = draw(&s, i * rate / fps, &image);
        if (!rc && ossa_render_gif_add_frame(gif, &image, &error) != OSSA_OK)
            rc = fail(&error, job->output);
        progress_step(&bar, i + 1, count);
    }
    progress_end(&bar);
    if (!rc && ossa_render_gif_write(gif, job->output, &error) != OSSA_OK)
        rc = fail(&error, job->output);
    ossa_render_gif_free(gif);
    free(image.pixels);
    stage_free(&s);
    return rc;
}

void cli_render_job_defaults(cli_render_job *job)
{
    memset(job, 0, sizeof *job);
    job->width = job->height = 512;
    job->flags = OSSA_RENDER_GRID | OSSA_RENDER_SHADOW;
    job->supersample = 2;
    job->threads = 1;
    job->animation = -1;
    job->labels = 1;
}

int cli_render(const cli_render_job *job)
{
    if (job->gif) return render_gif(job);
    if (job->sheet) return render_sheet(job);
    return render_still(job);
}
