/* What the illEngine text and binary writers take from a model
 * (docs/formats/ill.md §11), so that both files of one model read back
 * alike: joint names the files can hold, each vertex in the v0b order
 * (position, normal, tangent, bitangent, blend indices and weights,
 * texcoord, colour), and an animation's frame rate and frames. */
#include "formats/ill/ill.h"

#include <math.h>
#include <stdio.h>

/* -- Names ------------------------------------------------------------------- */

/* Names the files can hold, one per joint: whitespace and control bytes
 * become '_', empty names "bone<index>", and repeated ones get "_<index>"
 * appended, because the loaders split tokens at whitespace and an
 * animation must not name a bone twice. One block: pointers, then text.
 * The changes are reported when `report` is set: a write of several files
 * names the joints in each of them, but reports once. */
char **ossa__ill_joint_names(const ossa_model *m, const ossa_write_options *opt, bool report,
                             ossa_error *error)
{
    ossa_write_options quiet;
    if (!report) {
        quiet = *opt;
        quiet.diagnostic = NULL;
        opt = &quiet;
    }
    size_t total = (size_t)m->num_joints * sizeof(char *);
    for (uint32_t j = 0; j < m->num_joints; j++) total += strlen(m->joints[j].name) + 48;
    char **names = ossa__alloc(opt->allocator, total + 1);
    ill_name_set set;
    if (!names || !ossa__ill_set_init(&set, m->num_joints, opt->allocator)) {
        ossa__free(opt->allocator, names, 0);
        ossa__fail_nomem(error);
        return NULL;
    }
    char *text = (char *)(names + m->num_joints);
    uint32_t unnamed = 0, changed = 0, renamed = 0;
    for (uint32_t j = 0; j < m->num_joints; j++) {
        const char *src = m->joints[j].name;
        size_t len = strlen(src);
        names[j] = text;
        if (!len) {
            len = (size_t)sprintf(text, "bone%u", j);
            unnamed++;
        } else {
            bool touched = false;
            for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char)src[i];
                text[i] = c <= 0x20 || c == 0x7f ? '_' : (char)c;
                touched |= text[i] != src[i];
            }
            text[len] = 0;
            if (touched && !changed++)
                ossa__write_warn(opt, OSSA_WARNING_RENAMED, "joint %u '%s': whitespace or control characters in its name are "
                           "written as '_'",
                      j, src);
        }
        for (int k = 0; ossa__ill_set_add(&set, names[j]); k++) {
            sprintf(text + len, k ? "_%u_%d" : "_%u", j, k);
            if (!renamed++)
                ossa__write_warn(opt, OSSA_WARNING_RENAMED, "joint %u: its name is taken by an earlier joint; written as '%s'", j,
                      names[j]);
        }
        text += strlen(text) + 1;
    }
    ossa__free(opt->allocator, (void *)set.slot, 0);
    if (unnamed) ossa__write_warn(opt, OSSA_WARNING_RENAMED, "%u joints have no name: written as bone<index>", unnamed);
    if (changed > 1) ossa__write_warn(opt, OSSA_WARNING_RENAMED, "%u joint names had whitespace or control characters", changed);
    if (renamed > 1) ossa__write_warn(opt, OSSA_WARNING_RENAMED, "%u joint names were repeats and were renamed", renamed);
    return names;
}

/* -- Vertices ---------------------------------------------------------------- */

static void read_vertex(const ossa_model *m, const ossa_vertex_array *a, uint32_t v, float *out,
                        uint32_t want, float fill_last)
{
    float tmp[OSSA_MAX_COMPONENTS];
    for (uint32_t k = 0; k < want; k++) out[k] = 0;
    if (want == 4) out[3] = fill_last;
    if (!a) return;
    ossa_vertex_array_read(m, a, v, 1, tmp);
    for (uint32_t k = 0; k < want && k < a->size; k++) out[k] = tmp[k];
}

/* Rx(+90), the inverse of the reader's correction: (x, y, z) -> (x, -z, y).
 * Exact in floats. */
static void undo_rx(float *v)
{
    float y = v[1], z = v[2];
    v[1] = z == 0 ? 0 : -z;
    v[2] = y;
}

/* Up to 4 influences, used ones first in ascending joint order, unused ones
 * index 0 weight 0 (docs/formats/ill.md §3); more are cut to the largest 4, renormalized. */
static bool blend_slots(const float *idx, const float *wt, uint32_t n, float out[8])
{
    uint32_t used[OSSA_MAX_COMPONENTS], nu = 0;
    for (uint32_t k = 0; k < n; k++)
        if (wt[k] > 0) used[nu++] = k;
    bool cut = nu > 4;
    if (cut) {
        /* the 4 largest weights */
        for (uint32_t a = 0; a < nu; a++)
            for (uint32_t b = a + 1; b < nu; b++)
                if (wt[used[b]] > wt[used[a]]) {
                    uint32_t t = used[a];
                    used[a] = used[b];
                    used[b] = t;
                }
        nu = 4;
    }
    for (uint32_t a = 0; a < nu; a++)
        for (uint32_t b = a + 1; b < nu; b++)
            if (idx[used[b]] < idx[used[a]]) {
                uint32_t t = used[a];
                used[a] = used[b];
                used[b] = t;
            }
    double sum = 0;
    for (uint32_t k = 0; k < nu; k++) sum += wt[used[k]];
    for (uint32_t k = 0; k < 4; k++) {
        out[k] = k < nu ? idx[used[k]] : 0;
        out[4 + k] = k < nu ? (cut ? (float)(wt[used[k]] / sum) : wt[used[k]]) : 0;
    }
    return cut;
}


void ossa__ill_vertex_source(const ossa_model *m, const ossa_write_options *opt, bool undo,
                             ill_vertex_source *s)
{
    memset(s, 0, sizeof *s);
    s->pos = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    s->nrm = ossa_model_find_array(m, OSSA_VERTEX_NORMAL, NULL);
    s->tan = ossa_model_find_array(m, OSSA_VERTEX_TANGENT, NULL);
    s->bit = ossa_model_find_array(m, OSSA_VERTEX_CUSTOM, "bitangent");
    s->tc = ossa_model_find_array(m, OSSA_VERTEX_TEXCOORD, NULL);
    s->bi = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    s->bw = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    s->col = ossa_model_find_array(m, OSSA_VERTEX_COLOR, NULL);
    if (!s->bi || !s->bw) s->bi = s->bw = NULL;
    if (s->bit && s->bit->size < 3) s->bit = NULL;
    s->undo_rx = undo;
    s->mask = (s->pos ? ILL_HAS_POSITION : 0u) | (s->nrm ? ILL_HAS_NORMAL : 0u) |
              (s->tan ? ILL_HAS_TANGENT : 0u) | (s->tc ? ILL_HAS_TEXCOORD : 0u) |
              (s->bi ? ILL_HAS_BLEND : 0u) | (s->col ? ILL_HAS_COLOR : 0u);
    for (uint32_t i = 0; i < m->num_vertex_arrays; i++) {
        const ossa_vertex_array *a = &m->vertex_arrays[i];
        if (a->type == OSSA_VERTEX_CUSTOM && a != s->bit)
            ossa__write_warn(opt, OSSA_WARNING_DROPPED, "custom vertex array '%s' has no place in the file: not written", a->name);
    }
    if (m->num_meshes > 1)
        ossa__write_warn(opt, OSSA_WARNING_DROPPED, "%u meshes are written as one (the file holds one mesh)", m->num_meshes);
}

bool ossa__ill_vertex(const ossa_model *m, const ill_vertex_source *s, uint32_t v, float *out)
{
    bool cut = false;
    float *o = out;
    if (s->pos) {
        read_vertex(m, s->pos, v, o, 3, 0);
        if (s->undo_rx) undo_rx(o);
        o += 3;
    }
    if (s->nrm) {
        read_vertex(m, s->nrm, v, o, 3, 0);
        if (s->undo_rx) undo_rx(o);
        o += 3;
    }
    if (s->tan) {
        float t[4], b[3];
        read_vertex(m, s->tan, v, t, 4, 1);
        if (s->bit)
            read_vertex(m, s->bit, v, b, 3, 0);
        else if (s->nrm) {
            /* bitangent = w * cross(normal, tangent) */
            float nn[4];
            read_vertex(m, s->nrm, v, nn, 3, 0);
            float sign = t[3] < 0 ? -1.0f : 1.0f;
            b[0] = sign * (nn[1] * t[2] - nn[2] * t[1]);
            b[1] = sign * (nn[2] * t[0] - nn[0] * t[2]);
            b[2] = sign * (nn[0] * t[1] - nn[1] * t[0]);
        } else {
            b[0] = b[1] = b[2] = 0;
        }
        if (s->undo_rx) {
            undo_rx(t);
            undo_rx(b);
        }
        memcpy(o, t, 3 * sizeof *o);
        memcpy(o + 3, b, 3 * sizeof *o);
        o += 6;
    }
    if (s->bi) {
        float idx[OSSA_MAX_COMPONENTS], wt[OSSA_MAX_COMPONENTS];
        uint32_t k = s->bi->size < s->bw->size ? s->bi->size : s->bw->size;
        ossa_vertex_array_read(m, s->bi, v, 1, idx);
        ossa_vertex_array_read(m, s->bw, v, 1, wt);
        cut = blend_slots(idx, wt, k, o);
        o += 8;
    }
    if (s->tc) {
        read_vertex(m, s->tc, v, o, 2, 0);
        o += 2;
    }
    if (s->col) read_vertex(m, s->col, v, o, 4, 1);
    return cut;
}

/* -- Animations -------------------------------------------------------------- */

ossa_status ossa__ill_anim_plan(const ossa_model *m, const ossa_write_options *opt, uint32_t index,
                                ill_anim_plan *plan, ossa_error *error)
{
    if (index >= m->num_animations)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          m->num_animations ? "animation %u does not exist (the model has %u)"
                                            : "the model has no animation to write",
                          index, m->num_animations);
    const ossa_animation *a = &m->animations[index];
    plan->anim = a;
    plan->rate = a->framerate;
    if (!(plan->rate > 0) || !isfinite(plan->rate)) {
        ossa__write_warn(opt, OSSA_WARNING_REPAIRED, "animation '%s': no frame rate; written as %g", a->name,
              (double)OSSA_DEFAULT_FRAMERATE);
        plan->rate = OSSA_DEFAULT_FRAMERATE;
    }
    plan->frames = a->num_frames ? a->num_frames : 1;
    if (!a->num_frames) ossa__write_warn(opt, OSSA_WARNING_REPAIRED, "animation '%s' has no frames: the bind pose is written as one", a->name);
    /* Bones whose channels the animation does not drive keep their bind
     * pose when read: they are left out. */
    plan->bones = 0;
    for (uint32_t j = 0; j < m->num_joints; j++) plan->bones += ossa__ill_anim_drives(plan, j);
    return OSSA_OK;
}

bool ossa__ill_anim_drives(const ill_anim_plan *plan, uint32_t j)
{
    return !plan->anim->channels || plan->anim->channels[j];
}

const ossa_transform *ossa__ill_anim_pose(const ossa_model *m, const ill_anim_plan *plan, uint32_t f,
                                          uint32_t j)
{
    const ossa_animation *a = plan->anim;
    return a->num_frames ? &a->frames[(size_t)f * m->num_joints + j] : &m->joints[j].bind;
}

/* -- Bone numbers ------------------------------------------------------------ */

uint32_t ossa__ill_bone_numbers(const ossa_model *m, uint32_t *number)
{
    uint32_t n = m->num_joints, count = n;
    for (uint32_t j = 0; j < n; j++) number[j] = j;
    if (!(m->flags & OSSA_MODEL_SKELETON_FROM_POSES)) return count;
    const ossa_extra *e = NULL;
    for (uint32_t i = 0; i < m->num_extras && !e; i++)
        if (strcmp(m->extras[i].key, OSSA_EXTRA_JOINT_INDEX) == 0 &&
            m->extras[i].size == (size_t)n * sizeof *number)
            e = &m->extras[i];
    if (!e) return count;
    /* Kept only when every number fits 16 bits and none repeats: else the
     * joint order, as for a model without numbers. */
    unsigned char seen[65536 / 8];
    memset(seen, 0, sizeof seen);
    uint32_t top = 0;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t x;
        memcpy(&x, (const unsigned char *)e->data + (size_t)j * sizeof x, sizeof x);
        if (x > 65534 || (seen[x / 8] & (1u << (x % 8)))) {
            for (uint32_t i = 0; i < n; i++) number[i] = i;
            return count;
        }
        seen[x / 8] |= (unsigned char)(1u << (x % 8));
        number[j] = x;
        if (x >= top) top = x + 1;
    }
    return top;
}
