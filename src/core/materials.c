/* Materials and images kept in the model as extras (ossa.h,
 * OSSA_EXTRA_MATERIAL and OSSA_EXTRA_IMAGE): the material text, lookups,
 * image kinds and file names. */
#include "core/materials.h"
#include "text/text.h"

#include <stdio.h>

const char *const ossa__tex_slot_names[OSSA_TEXTURE_COUNT] = {"base_color", "metallic_roughness", "normal",
                                                          "occlusion", "emissive"};

void ossa__material_defaults(ossa_material *d)
{
    memset(d, 0, sizeof *d);
    for (int k = 0; k < 4; k++) d->base_color[k] = 1;
    d->metallic = d->roughness = 1;
    d->normal_scale = d->occlusion_strength = 1;
    d->alpha_cutoff = 0.5f;
}

/* -- Text --------------------------------------------------------------------
 *
 * One value per line, "key value...", a texture's image name last on its
 * line so that it may hold spaces:
 *   base_color R G B A        metallic F      roughness F
 *   normal_scale F            occlusion_strength F
 *   emissive R G B            alpha_mode opaque|mask|blend
 *   alpha_cutoff F            double_sided
 *   SLOT_texture IMAGE        SLOT_texcoord N
 *   SLOT_sampler MAG MIN WRAP_S WRAP_T
 * SLOT being base_color, metallic_roughness, normal, occlusion, emissive. */

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    return p;
}

/* Up to n numbers of [p, end); returns how many were read. */
static int parse_floats(const char *p, const char *end, float *out, int n)
{
    int k = 0;
    for (p = skip_blanks(p, end); k < n && p < end; p = skip_blanks(p, end)) {
        const char *e = p;
        while (e < end && *e != ' ' && *e != '\t') e++;
        float v;
        if (ossa__text_parse_float(p, e, &v) != e) break;
        out[k++] = v;
        p = e;
    }
    return k;
}

static void parse_line(const char *key, size_t klen, const char *p, const char *end,
                       ossa_material *d)
{
#define KEY(s) (klen == sizeof(s) - 1 && memcmp(key, s, klen) == 0)
    float v[4];
    if (KEY("base_color")) {
        if (parse_floats(p, end, v, 4) == 4) memcpy(d->base_color, v, sizeof v);
    } else if (KEY("metallic")) {
        if (parse_floats(p, end, v, 1) == 1) d->metallic = v[0];
    } else if (KEY("roughness")) {
        if (parse_floats(p, end, v, 1) == 1) d->roughness = v[0];
    } else if (KEY("normal_scale")) {
        if (parse_floats(p, end, v, 1) == 1) d->normal_scale = v[0];
    } else if (KEY("occlusion_strength")) {
        if (parse_floats(p, end, v, 1) == 1) d->occlusion_strength = v[0];
    } else if (KEY("emissive")) {
        if (parse_floats(p, end, v, 3) == 3) memcpy(d->emissive, v, 3 * sizeof *v);
    } else if (KEY("alpha_cutoff")) {
        if (parse_floats(p, end, v, 1) == 1) d->alpha_cutoff = v[0];
    } else if (KEY("double_sided")) {
        d->double_sided = 1;
    } else if (KEY("alpha_mode")) {
        p = skip_blanks(p, end);
        size_t n = (size_t)(end - p);
        if (n == 4 && memcmp(p, "mask", 4) == 0) d->alpha_mode = OSSA_ALPHA_MASK;
        else if (n == 5 && memcmp(p, "blend", 5) == 0) d->alpha_mode = OSSA_ALPHA_BLEND;
        else if (n == 6 && memcmp(p, "opaque", 6) == 0) d->alpha_mode = OSSA_ALPHA_OPAQUE;
    } else {
        for (int s = 0; s < OSSA_TEXTURE_COUNT; s++) {
            size_t sl = strlen(ossa__tex_slot_names[s]);
            if (klen <= sl + 1 || memcmp(key, ossa__tex_slot_names[s], sl) != 0 || key[sl] != '_') continue;
            const char *what = key + sl + 1;
            size_t wl = klen - sl - 1;
            ossa_material_texture *t = &d->textures[s];
            if (wl == 7 && memcmp(what, "texture", 7) == 0) {
                p = skip_blanks(p, end);
                size_t n = (size_t)(end - p);
                if (n && n < sizeof t->image) {
                    memcpy(t->image, p, n);
                    t->image[n] = 0;
                }
            } else if (wl == 8 && memcmp(what, "texcoord", 8) == 0) {
                if (parse_floats(p, end, v, 1) == 1 && v[0] >= 0 && v[0] < 8 && v[0] == (float)(int)v[0])
                    t->texcoord = (uint32_t)v[0];
            } else if (wl == 7 && memcmp(what, "sampler", 7) == 0) {
                if (parse_floats(p, end, v, 4) == 4)
                    for (int k = 0; k < 4; k++)
                        t->sampler[k] = v[k] >= 0 && v[k] < 65536 ? (uint32_t)v[k] : 0;
            }
            break;
        }
    }
#undef KEY
}

void ossa__material_parse(const void *text, size_t size, ossa_material *d)
{
    ossa__material_defaults(d);
    const char *p = text, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *k = skip_blanks(p, le), *ke = k;
        while (ke < le && *ke != ' ' && *ke != '\t') ke++;
        const char *ve = le;
        while (ve > ke && (ve[-1] == ' ' || ve[-1] == '\t' || ve[-1] == '\r')) ve--;
        if (ke > k) parse_line(k, (size_t)(ke - k), ke, ve, d);
        p = nl ? nl + 1 : end;
    }
}

static void out_floats(ossa_text_out *o, const char *key, const float *v, int n)
{
    ossa__out_str(o, key);
    for (int k = 0; k < n; k++) {
        ossa__out_char(o, ' ');
        ossa__out_float(o, v[k]);
    }
    ossa__out_char(o, '\n');
}

void ossa__material_format(const ossa_material *d, ossa_buf *out)
{
    ossa_material def;
    ossa__material_defaults(&def);
    ossa_text_out o;
    ossa__out_init(&o, out);
    if (memcmp(d->base_color, def.base_color, sizeof def.base_color))
        out_floats(&o, "base_color", d->base_color, 4);
    if (d->metallic != def.metallic) out_floats(&o, "metallic", &d->metallic, 1);
    if (d->roughness != def.roughness) out_floats(&o, "roughness", &d->roughness, 1);
    if (d->normal_scale != def.normal_scale) out_floats(&o, "normal_scale", &d->normal_scale, 1);
    if (d->occlusion_strength != def.occlusion_strength)
        out_floats(&o, "occlusion_strength", &d->occlusion_strength, 1);
    if (memcmp(d->emissive, def.emissive, sizeof def.emissive)) out_floats(&o, "emissive", d->emissive, 3);
    static const char *const modes[] = {"opaque", "mask", "blend"};
    if (d->alpha_mode != OSSA_ALPHA_OPAQUE && d->alpha_mode <= OSSA_ALPHA_BLEND)
        ossa__out_format(&o, "alpha_mode %s\n", modes[d->alpha_mode]);
    if (d->alpha_cutoff != def.alpha_cutoff) out_floats(&o, "alpha_cutoff", &d->alpha_cutoff, 1);
    if (d->double_sided) ossa__out_str(&o, "double_sided\n");
    for (int s = 0; s < OSSA_TEXTURE_COUNT; s++) {
        const ossa_material_texture *t = &d->textures[s];
        if (!t->image[0]) continue;
        const char *slot = ossa__tex_slot_names[s];
        if (t->texcoord) ossa__out_format(&o, "%s_texcoord %u\n", slot, (unsigned)t->texcoord);
        if (t->sampler[0] || t->sampler[1] || t->sampler[2] || t->sampler[3])
            ossa__out_format(&o, "%s_sampler %u %u %u %u\n", slot, (unsigned)t->sampler[0],
                             (unsigned)t->sampler[1], (unsigned)t->sampler[2], (unsigned)t->sampler[3]);
        ossa__out_format(&o, "%s_texture ", slot);
        ossa__out_str(&o, t->image);
        ossa__out_char(&o, '\n');
    }
    ossa__out_flush(&o);
}

static bool same_floats(const float *a, const float *b, int n)
{
    for (int k = 0; k < n; k++)
        if (a[k] != b[k]) return false;
    return true;
}

uint32_t ossa__material_beyond_base_image(const ossa_material *d)
{
    ossa_material def;
    ossa__material_defaults(&def);
    uint32_t lost = 0;
    if (!same_floats(d->base_color, def.base_color, 4)) lost |= 1u << 0;
    if (d->metallic != def.metallic || d->roughness != def.roughness) lost |= 1u << 1;
    if (!same_floats(d->emissive, def.emissive, 3) || d->textures[OSSA_TEXTURE_EMISSIVE].image[0]) lost |= 1u << 2;
    if (d->textures[OSSA_TEXTURE_NORMAL].image[0]) lost |= 1u << 3;
    if (d->textures[OSSA_TEXTURE_OCCLUSION].image[0]) lost |= 1u << 4;
    if (d->textures[OSSA_TEXTURE_METALLIC_ROUGHNESS].image[0]) lost |= 1u << 5;
    if (d->alpha_mode != def.alpha_mode) lost |= 1u << 6;
    if (d->double_sided) lost |= 1u << 7;
    return lost;
}

void ossa__material_lost_text(uint32_t lost, char *out, size_t cap)
{
    static const char *const words[8] = {"colour factors", "metallic and roughness factors",
                                         "emission", "normal maps", "occlusion maps",
                                         "metallic-roughness maps", "alpha modes", "two-sidedness"};
    size_t n = 0;
    out[0] = 0;
    for (int k = 0; k < 8; k++)
        if (lost & (1u << k)) {
            int w = snprintf(out + n, cap - n, "%s%s", n ? ", " : "", words[k]);
            if (w < 0 || (size_t)w >= cap - n) break;
            n += (size_t)w;
        }
}

/* -- Lookups -----------------------------------------------------------------
 *
 * A model may have as many materials and images as meshes; finding each by
 * a walk over the extras would cost their square, so callers that look up
 * many build an index first (the first extra of each key wins, as the walk
 * finds it). */

static uint32_t key_hash(const char *prefix, const char *name)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)prefix; *p; p++) h = (h ^ *p) * 16777619u;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) h = (h ^ *p) * 16777619u;
    return h;
}

static bool key_is(const char *key, const char *prefix, const char *name)
{
    size_t pl = strlen(prefix);
    return strncmp(key, prefix, pl) == 0 && strcmp(key + pl, name) == 0;
}

static bool is_ours(const char *key)
{
    return strncmp(key, OSSA_EXTRA_IMAGE, strlen(OSSA_EXTRA_IMAGE)) == 0 ||
           strncmp(key, OSSA_EXTRA_MATERIAL, strlen(OSSA_EXTRA_MATERIAL)) == 0;
}

void ossa__extra_index_build(const ossa_model *m, ossa_extra_index *ix)
{
    memset(ix, 0, sizeof *ix);
    ix->model = m;
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->num_extras; i++) n += is_ours(m->extras[i].key);
    if (n < 16) return; /* a walk is as fast */
    size_t cap = 32;
    while (cap < (size_t)n * 2) cap *= 2;
    ix->slots = ossa__temp_calloc(m, cap, sizeof *ix->slots);
    if (!ix->slots) return; /* lookups walk the extras instead */
    ix->mask = cap - 1;
    for (uint32_t i = 0; i < m->num_extras; i++) {
        const char *key = m->extras[i].key;
        if (!is_ours(key)) continue;
        const char *colon = strchr(key, ':'); /* both prefixes end at their first ':' */
        char prefix[32];
        size_t pl = (size_t)(colon - key) + 1;
        memcpy(prefix, key, pl);
        prefix[pl] = 0;
        size_t at = key_hash(prefix, key + pl) & ix->mask;
        for (;; at = (at + 1) & ix->mask) {
            uint32_t s = ix->slots[at];
            if (!s) {
                ix->slots[at] = i + 1;
                break;
            }
            if (strcmp(m->extras[s - 1].key, key) == 0) break; /* the first one stays */
        }
    }
}

void ossa__extra_index_free(ossa_extra_index *ix)
{
    if (ix->slots) ossa__temp_free(ix->model, ix->slots);
    ix->slots = NULL;
}

const ossa_extra *ossa__extra_lookup(const ossa_extra_index *ix, const char *prefix, const char *name)
{
    const ossa_model *m = ix->model;
    if (!ix->slots) {
        for (uint32_t i = 0; i < m->num_extras; i++)
            if (key_is(m->extras[i].key, prefix, name)) return &m->extras[i];
        return NULL;
    }
    for (size_t at = key_hash(prefix, name) & ix->mask;; at = (at + 1) & ix->mask) {
        uint32_t s = ix->slots[at];
        if (!s) return NULL;
        if (key_is(m->extras[s - 1].key, prefix, name)) return &m->extras[s - 1];
    }
}

const ossa_extra *ossa__model_material(const ossa_model *model, const char *name)
{
    ossa_extra_index walk = {model, NULL, 0};
    return ossa__extra_lookup(&walk, OSSA_EXTRA_MATERIAL, name);
}

const ossa_extra *ossa__model_image(const ossa_model *model, const char *name)
{
    ossa_extra_index walk = {model, NULL, 0};
    return ossa__extra_lookup(&walk, OSSA_EXTRA_IMAGE, name);
}

bool ossa__material_in(const ossa_extra_index *ix, const char *name, ossa_material *d)
{
    ossa__material_defaults(d);
    if (!name || !name[0]) return false;
    const ossa_extra *e = ossa__extra_lookup(ix, OSSA_EXTRA_MATERIAL, name);
    if (e) {
        ossa__material_parse(e->data, e->size, d);
        return true;
    }
    /* The IQM convention: an image of the model that the name means, or
     * the name when it is an image file's. */
    char candidate[OSSA_IMAGE_NAME_MAX];
    for (unsigned k = 0; ossa__image_candidate(name, k, candidate); k++)
        if (ossa__extra_lookup(ix, OSSA_EXTRA_IMAGE, candidate)) {
            strcpy(d->textures[OSSA_TEXTURE_BASE_COLOR].image, candidate);
            return true;
        }
    if (!ossa__is_image_name(name) || strlen(name) >= OSSA_IMAGE_NAME_MAX) return false;
    strcpy(d->textures[OSSA_TEXTURE_BASE_COLOR].image, name);
    return true;
}

bool ossa__material_of(const ossa_model *model, const char *name, ossa_material *d)
{
    ossa_extra_index walk = {model, NULL, 0};
    return ossa__material_in(&walk, name, d);
}

int ossa_model_get_material(const ossa_model *model, const char *name, ossa_material *out)
{
    return ossa__material_of(model, name, out);
}

const void *ossa_model_get_image(const ossa_model *model, const char *name, size_t *size)
{
    const ossa_extra *e = name ? ossa__model_image(model, name) : NULL;
    if (size) *size = e ? e->size : 0;
    return e ? e->data : NULL;
}
