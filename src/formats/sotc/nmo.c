/* Shadow of the Colossus meshes (.nmo, docs/formats/sotc.md §7): surfaces, textures and
 * the PS2 VIF packet streams that hold triangle strips with positions,
 * normals, texcoords, colours and skin weights. The reader turns strips
 * into triangle lists; the writer cuts triangle lists back into strips. */
#include "formats/sotc/sotc.h"

#include <math.h>
#include <stdio.h>

#define NMO_HEADER_SIZE 0x80
#define NMO_TEX_SIZE 32
#define NMO_SRF_SIZE 288
#define NMO_GEOM_SIZE 32
#define NMO_NODE_SIZE 48
#define NMO_MAX_PASSES 5 /* pass n's fields end at 0x90 + 0x20n + 4 <= 288 */
#define NMO_MAX_STRIP 64 /* vertices per strip the writer emits */

/* Extras and arrays kept for round trips. */
#define NMO_EXTRA_NAME "sotc.nmo.name"
/* Weight of skin bone -1, the skeleton's parent slot (docs/formats/sotc.md §6 item 4):
 * not a joint of the model, so it cannot be a blend index. */
#define NMO_PARENT_WEIGHT "sotc.parent_weight"

/* VIF unpack commands (the top byte of the code word). */
enum {
    VIF_STMOD = 0x05,
    VIF_MSCNT = 0x17,
    VIF_V2_16 = 0x65,
    VIF_V3_32 = 0x68,
    VIF_V4_32 = 0x6C,
    VIF_V4_16 = 0x6D,
    VIF_V4_8 = 0x6E
};

/* -- Reading -- */

typedef struct nmo_reader {
    ossa_model *model;
    const sotc_xff *x;
    ossa_error *error;
    const ossa_allocator *alloc;
    /* Per vertex, growing: positions (3 f32), normals (3), texcoords (2),
     * colours (4 u8), skin (3 indices as f32, 3 weights, parent weight). */
    ossa_buf pos, nrm, uv, col, skin;
    bool has_nrm, has_uv, has_col, has_skin, has_parent;
    uint32_t num_vertices;
    ossa_buf tris;   /* ossa_triangle */
    ossa_buf meshes; /* nmo_mesh */
    uint32_t max_bone;
    uint32_t dropped_influences;
    uint64_t decoded; /* stream and name bytes read so far (nmo_budget) */
    uint32_t tex, num_tex; /* the TEX records (for the textures beside, nmo_textures.c) */
} nmo_reader;

/* A geometry chunk's share of the model; names point into the file. */
typedef struct nmo_mesh {
    const char *name, *material;
    uint32_t first_vertex, num_vertices, first_triangle, num_triangles;
} nmo_mesh;

typedef struct nmo_strip {
    uint32_t first, count; /* model vertices of the current strip */
    bool open;
} nmo_strip;

/* Room for `count` more vertices in every per-vertex buffer. */
static bool grow_vertices(nmo_reader *r, uint32_t count)
{
    if (!count) return true;
    ossa__buf_push(&r->pos, (size_t)count * 12);
    ossa__buf_push(&r->nrm, (size_t)count * 12);
    ossa__buf_push(&r->uv, (size_t)count * 8);
    unsigned char *c = ossa__buf_push(&r->col, (size_t)count * 4);
    ossa__buf_push(&r->skin, (size_t)count * 28);
    if (r->pos.failed || r->nrm.failed || r->uv.failed || r->col.failed || r->skin.failed)
        return false;
    /* PS2 colours are 0..128 for 0..1: 0x80 is "unchanged". */
    memset(c, 0x80, (size_t)count * 4);
    return true;
}

static ossa_status vif_error(nmo_reader *r, uint64_t at, const char *fmt, unsigned a, unsigned b)
{
    return ossa__fail(r->error, OSSA_ERROR_CORRUPT, xff_file(r->x, at), fmt, a, b);
}

/* Decodes one skin entry {f32 a, b, c, u32 n}: bone = floor(v), weight =
 * |v - trunc(v)|; v in (-1, 0) is bone -1 (the parent slot) with weight
 * |v|. A whole number is taken as weight 1 (a fraction cannot be 1). */
static ossa_status read_skin(nmo_reader *r, const unsigned char *p, uint64_t at, float *out)
{
    uint32_t n = ossa__rd32(p + 12);
    if (n > 3) return vif_error(r, at + 12, "skin: %u influences (at most %u)", n, 3);
    for (int k = 0; k < 7; k++) out[k] = 0;
    uint32_t used = 0;
    for (uint32_t j = 0; j < n; j++) {
        float v = ossa__rdf32(p + 4 * j);
        if (!isfinite(v) || v >= 65536.0f)
            return ossa__fail(r->error, OSSA_ERROR_CORRUPT, xff_file(r->x, at + 4 * j),
                              "skin: influence value %g is not a bone index", (double)v);
        if (v <= -1.0f) {
            r->dropped_influences++;
            continue;
        }
        float bone = floorf(v), weight = fabsf(v - truncf(v));
        if (weight == 0) weight = 1;
        if (bone < 0) {
            out[6] += weight;
            r->has_parent = true;
            continue;
        }
        out[used] = bone;
        out[3 + used] = weight;
        if ((uint32_t)bone > r->max_bone) r->max_bone = (uint32_t)bone;
        used++;
    }
    return OSSA_OK;
}

/* Strip of `count` vertices from `first` to triangles with one winding.
 * Triangle i is (i, i+1, i+2) for even i and (i+1, i, i+2) for odd i, so
 * all share the first triangle's orientation. Which side is the front is
 * not recorded; when the strip has normals they decide (the front face
 * should turn toward them), else the first triangle is taken as
 * counter-clockwise. ossa's front faces are clockwise. */
static ossa_status close_strip(nmo_reader *r, nmo_strip *s)
{
    if (!s->open) return OSSA_OK;
    s->open = false;
    if (s->count < 3) return OSSA_OK;
    const float *pos = (const float *)(void *)r->pos.data;
    const float *nrm = (const float *)(void *)r->nrm.data;
    bool flip = false;
    if (r->has_nrm) {
        double vote = 0;
        for (uint32_t i = 0; i + 2 < s->count; i++) {
            uint32_t a = s->first + i + (i & 1), b = s->first + i + 1 - (i & 1);
            uint32_t c = s->first + i + 2;
            double e1[3], e2[3], n[3];
            for (int k = 0; k < 3; k++) {
                e1[k] = (double)pos[3 * b + k] - pos[3 * a + k];
                e2[k] = (double)pos[3 * c + k] - pos[3 * a + k];
                n[k] = (double)nrm[3 * a + k] + nrm[3 * b + k] + nrm[3 * c + k];
            }
            double cx = e1[1] * e2[2] - e1[2] * e2[1], cy = e1[2] * e2[0] - e1[0] * e2[2],
                   cz = e1[0] * e2[1] - e1[1] * e2[0];
            double d = cx * n[0] + cy * n[1] + cz * n[2];
            if (isfinite(d)) vote += d;
        }
        /* cross(b - a, c - a) along the normals: (a, b, c) is
         * counter-clockwise seen from the front. */
        flip = vote < 0;
    }
    for (uint32_t i = 0; i + 2 < s->count; i++) {
        uint32_t a = s->first + i + (i & 1), b = s->first + i + 1 - (i & 1), c = s->first + i + 2;
        ossa_triangle t = {{a, c, b}};
        if (flip) t = (ossa_triangle){{a, b, c}};
        ossa__buf_append(&r->tris, &t, sizeof t);
    }
    return r->tris.failed ? ossa__fail_nomem(r->error) : OSSA_OK;
}

/* Applies `num` elements of an attribute packet to the current strip. */
static ossa_status need_strip(nmo_reader *r, const nmo_strip *s, uint64_t at, unsigned num)
{
    if (!s->open)
        return vif_error(r, at, "VIF code at this offset: attribute data before any position "
                                "packet (%u elements, command 0x%02x)",
                         num, ossa__rd32(xff_at(r->x, at)) >> 24);
    if (num > s->count)
        return vif_error(r, at, "VIF attribute packet of %u elements for a strip of %u vertices",
                         num, s->count);
    return OSSA_OK;
}

static ossa_status read_stream(nmo_reader *r, uint32_t chunk, uint64_t start, uint64_t end)
{
    nmo_strip strip = {0, 0, false};
    const sotc_xff *x = r->x;
    /* The first 12 bytes are not unpack codes. */
    for (uint64_t at = start + 12; at + 4 <= end;) {
        uint32_t code = ossa__rd32(xff_at(x, at));
        if (code == 0) break; /* NOP padding: dormin stops here */
        unsigned addr = code & 0xFF, num = (code >> 16) & 0xFF, cmd = code >> 24;
        if (cmd == VIF_STMOD || cmd == VIF_MSCNT) {
            at += 4;
            continue;
        }
        uint32_t elem;
        switch (cmd) {
        case VIF_V3_32: elem = 12; break;
        case VIF_V4_16: elem = 8; break;
        case VIF_V2_16: elem = 4; break;
        case VIF_V4_8: elem = 4; break;
        case VIF_V4_32: elem = 16; break;
        default:
            return ossa__fail(r->error, OSSA_ERROR_CORRUPT, xff_file(x, at),
                              "geometry %u: unknown VIF code 0x%08x", chunk, code);
        }
        uint64_t data = at + 4, next = data + (uint64_t)num * elem;
        if (next > end)
            return ossa__fail(r->error, OSSA_ERROR_CORRUPT, xff_file(x, at),
                              "geometry %u: VIF packet of %u x %u bytes runs past the end of the "
                              "stream",
                              chunk, num, elem);
        const unsigned char *p = xff_at(x, data);
        if (cmd == VIF_V3_32 && addr == 1) {
            /* Positions start a new strip. */
            if (close_strip(r, &strip)) return OSSA_FAILED;
            if ((uint64_t)r->num_vertices + num > UINT32_MAX / 2)
                return ossa__fail(r->error, OSSA_ERROR_UNSUPPORTED, xff_file(x, at),
                                  "too many vertices");
            if (!grow_vertices(r, num)) return ossa__fail_nomem(r->error);
            strip = (nmo_strip){r->num_vertices, num, true};
            float *pos = num ? (float *)(void *)r->pos.data + (size_t)strip.first * 3 : NULL;
            for (uint32_t i = 0; i < 3 * num; i++) pos[i] = ossa__rdf32(p + 4 * i);
            r->num_vertices += num;
        } else if (num == 0) {
            /* An empty packet of any other kind changes nothing. */
        } else if (cmd == VIF_V3_32 && addr == 6) {
            /* 12 bytes per element of unknown meaning: skipped. */
        } else if (cmd == VIF_V3_32 && addr != 2) {
            return ossa__fail(r->error, OSSA_ERROR_CORRUPT, xff_file(x, at),
                              "geometry %u: VIF V3-32 packet at address %u (expected 1, 2 or 6)",
                              chunk, addr);
        } else if ((cmd == VIF_V3_32 || cmd == VIF_V4_16) && addr == 2) {
            if (need_strip(r, &strip, at, num)) return OSSA_FAILED;
            float *n = (float *)(void *)r->nrm.data + (size_t)strip.first * 3;
            for (uint32_t i = 0; i < num; i++)
                for (int k = 0; k < 3; k++)
                    n[3 * i + k] = cmd == VIF_V3_32
                                       ? ossa__rdf32(p + 12 * i + 4 * k)
                                       : (float)(int16_t)ossa__rd16(p + 8 * i + 2 * k) / 4096.0f;
            r->has_nrm = true;
        } else if (cmd == VIF_V4_16) {
            /* Other addresses: 4 x s16 of unknown meaning, skipped. */
        } else if (cmd == VIF_V2_16) {
            if (need_strip(r, &strip, at, num)) return OSSA_FAILED;
            float *uv = (float *)(void *)r->uv.data + (size_t)strip.first * 2;
            for (uint32_t i = 0; i < 2 * num; i++)
                uv[i] = (float)(int16_t)ossa__rd16(p + 2 * i) / 4096.0f;
            r->has_uv = true;
        } else if (cmd == VIF_V4_8) {
            if (need_strip(r, &strip, at, num)) return OSSA_FAILED;
            memcpy(r->col.data + (size_t)strip.first * 4, p, (size_t)num * 4);
            r->has_col = true;
        } else if (cmd == VIF_V4_32 && addr != 0) {
            if (need_strip(r, &strip, at, num)) return OSSA_FAILED;
            float *skin = (float *)(void *)r->skin.data + (size_t)strip.first * 7;
            for (uint32_t i = 0; i < num; i++)
                if (read_skin(r, p + 16 * i, data + 16 * (uint64_t)i, skin + 7 * i))
                    return OSSA_FAILED;
            r->has_skin = true;
        }
        /* V4-32 at address 0: a 16-byte strip header, not needed. */
        at = next;
    }
    return close_strip(r, &strip);
}

/* The string that the pointer at .rodata offset `field` names, or "" when
 * it is unusable (names are not needed to use the mesh). */
static const char *name_at(nmo_reader *r, uint64_t field, const char *what)
{
    const char *s;
    uint32_t ofs = ossa__rd32(xff_at(r->x, field));
    if (ossa__xff_string(r->x, ofs, field, what, &s, NULL)) {
        ossa__warn(r->model, OSSA_WARNING_REPAIRED, xff_file(r->x, field), 0, 0, "%s: name pointer %u is unusable", what,
                   ofs);
        return "";
    }
    return s;
}

static ossa_status build_model(nmo_reader *r)
{
    ossa_model *m = r->model;
    ossa_error *e = r->error;
    if (ossa_model_set_num_vertices(m, r->num_vertices, e)) return OSSA_FAILED;
    if (!r->num_vertices) return OSSA_OK;
    if (!ossa_model_add_vertex_array(m, OSSA_VERTEX_POSITION, OSSA_FLOAT, 3, NULL, r->pos.data, e))
        return OSSA_FAILED;
    if (r->has_nrm &&
        !ossa_model_add_vertex_array(m, OSSA_VERTEX_NORMAL, OSSA_FLOAT, 3, NULL, r->nrm.data, e))
        return OSSA_FAILED;
    if (r->has_uv &&
        !ossa_model_add_vertex_array(m, OSSA_VERTEX_TEXCOORD, OSSA_FLOAT, 2, NULL, r->uv.data, e))
        return OSSA_FAILED;
    if (r->has_col &&
        !ossa_model_add_vertex_array(m, OSSA_VERTEX_COLOR, OSSA_UBYTE, 4, NULL, r->col.data, e))
        return OSSA_FAILED;
    if (!r->has_skin) return OSSA_OK;
    ossa_component ifmt = r->max_bone > 255 ? OSSA_USHORT : OSSA_UBYTE;
    ossa_vertex_array *bi =
        ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDINDEXES, ifmt, 4, NULL, NULL, e);
    ossa_vertex_array *bw =
        ossa_model_add_vertex_array(m, OSSA_VERTEX_BLENDWEIGHTS, OSSA_FLOAT, 4, NULL, NULL, e);
    ossa_vertex_array *pw =
        r->has_parent ? ossa_model_add_vertex_array(m, OSSA_VERTEX_CUSTOM, OSSA_FLOAT, 1,
                                                    NMO_PARENT_WEIGHT, NULL, e)
                      : NULL;
    if (!bi || !bw || (r->has_parent && !pw)) return OSSA_FAILED;
    const float *skin = (const float *)(void *)r->skin.data;
    uint32_t parent_vertices = 0;
    for (uint32_t v = 0; v < r->num_vertices; v++) {
        const float *s = skin + 7 * (size_t)v;
        for (int k = 0; k < 4; k++) {
            float bone = k < 3 ? s[k] : 0, weight = k < 3 ? s[3 + k] : 0;
            if (ifmt == OSSA_UBYTE)
                ((uint8_t *)bi->data)[4 * (size_t)v + k] = (uint8_t)bone;
            else
                ((uint16_t *)bi->data)[4 * (size_t)v + k] = (uint16_t)bone;
            ((float *)bw->data)[4 * (size_t)v + k] = weight;
        }
        if (pw) ((float *)pw->data)[v] = s[6];
        if (s[6] > 0) parent_vertices++;
    }
    if (parent_vertices)
        ossa__warn(m, OSSA_WARNING_REPAIRED, OSSA_NO_OFFSET, 0, 0,
                   "%u vertices are weighted to skin bone -1 (the skeleton's parent slot, an "
                   "attachment bone): that weight is kept in the custom array '%s' and left out "
                   "of the blend weights",
                   parent_vertices, NMO_PARENT_WEIGHT);
    if (r->dropped_influences)
        ossa__warn(m, OSSA_WARNING_DROPPED, OSSA_NO_OFFSET, 0, 0,
                   "%u skin influences with values <= -1 dropped (not a valid encoding)",
                   r->dropped_influences);
    return OSSA_OK;
}

/* Geometry records may all name the same stream, and surfaces the same
 * long name, so the work and memory of a load are not bounded by the file
 * size: charge every stream and name byte read and refuse totals out of
 * proportion to the file (real files read each stream once). */
static ossa_status nmo_budget(nmo_reader *r, uint64_t bytes, uint64_t at)
{
    uint64_t limit = ((uint64_t)16 << 20) + (uint64_t)r->x->size * 16;
    r->decoded += bytes;
    if (r->decoded <= limit) return OSSA_OK;
    return ossa__fail(r->error, OSSA_ERROR_UNSUPPORTED, xff_file(r->x, at),
                      "the geometry records read %llu bytes of streams and names, out of "
                      "proportion to a %u-byte file (they share data)",
                      (unsigned long long)r->decoded, r->x->size);
}

static ossa_status nmo_parse(nmo_reader *r)
{
    const sotc_xff *x = r->x;
    ossa_model *m = r->model;
    uint32_t e = x->entry;
    if (ossa__xff_need(x, e, 1, NMO_HEADER_SIZE, e, "mesh header", r->error)) return OSSA_FAILED;
    const unsigned char *h = xff_at(x, e);
    if (memcmp(h, "NMO\0", 4) != 0)
        return ossa__fail(r->error, OSSA_ERROR_FORMAT, xff_file(x, e), "expected \"NMO\\0\"");
    if (ossa__rd32(h + 4) != 3)
        ossa__warn(m, OSSA_WARNING_NONSTANDARD, xff_file(x, e + 4), 0, 0, "NMO version %u (expected 3)", ossa__rd32(h + 4));
    /* Five chunk descriptors {ptr, count, ?, ?} at +0x30. */
    uint32_t ptr[5], count[5];
    for (int c = 0; c < 5; c++) {
        ptr[c] = ossa__rd32(h + 0x30 + 16 * c);
        count[c] = ossa__rd32(h + 0x34 + 16 * c);
    }
    if (ossa__xff_need(x, ptr[1], count[1], NMO_TEX_SIZE, e + 0x40, "textures", r->error) ||
        ossa__xff_need(x, ptr[2], count[2], NMO_SRF_SIZE, e + 0x50, "surfaces", r->error) ||
        ossa__xff_need(x, ptr[3], count[3], NMO_GEOM_SIZE, e + 0x60, "geometry", r->error))
        return OSSA_FAILED;
    r->tex = ptr[1];
    r->num_tex = count[1];
    if (count[4]) {
        const char *name = name_at(r, (uint64_t)e + 0x70, "model name");
        if (name[0] && ossa_model_add_extra(m, NMO_EXTRA_NAME, name, strlen(name) + 1, r->error))
            return OSSA_FAILED;
    }
    for (uint32_t g = 0; g < count[3]; g++) {
        uint64_t at = (uint64_t)ptr[3] + (uint64_t)g * NMO_GEOM_SIZE;
        const unsigned char *gp = xff_at(x, at);
        uint32_t size = ossa__rd32(gp), srf = ossa__rd32(gp + 8), stream = ossa__rd32(gp + 0x10);
        char what[48];
        snprintf(what, sizeof what, "geometry %u VIF stream", g);
        if (ossa__xff_need(x, stream, 1, size, at + 0x10, what, r->error)) return OSSA_FAILED;
        if (size < 12)
            return ossa__fail(r->error, OSSA_ERROR_CORRUPT, xff_file(x, at),
                              "geometry %u: a %u-byte VIF stream (at least 12 expected)", g, size);
        if (nmo_budget(r, size, at)) return OSSA_FAILED;
        uint32_t first_vertex = r->num_vertices;
        size_t first_tri = r->tris.size / sizeof(ossa_triangle);
        if (read_stream(r, g, stream, (uint64_t)stream + size)) return OSSA_FAILED;

        /* The mesh: named after its surface, its material the texture of
         * the surface's first pass. */
        const char *name = "", *material = "";
        if (srf < count[2]) {
            uint64_t s = (uint64_t)ptr[2] + (uint64_t)srf * NMO_SRF_SIZE;
            name = name_at(r, s + 0x0C, "surface");
            uint32_t passes = ossa__rd32(xff_at(x, s + 0x1C));
            uint32_t tex = ossa__rd32(xff_at(x, s + 0x2C));
            if (passes && tex < count[1])
                material = name_at(r, (uint64_t)ptr[1] + (uint64_t)tex * NMO_TEX_SIZE + 4,
                                   "texture");
            else if (passes)
                ossa__warn(m, OSSA_WARNING_REPAIRED, xff_file(x, s + 0x2C), 0, 0,
                           "surface %u: texture %u does not exist (%u textures)", srf, tex,
                           count[1]);
        } else {
            ossa__warn(m, OSSA_WARNING_REPAIRED, xff_file(x, at + 8), 0, 0,
                       "geometry %u: surface %u does not exist (%u surfaces)", g, srf, count[2]);
        }
        if (nmo_budget(r, strlen(name) + strlen(material), at + 8)) return OSSA_FAILED;
        nmo_mesh mesh = {name, material, first_vertex, r->num_vertices - first_vertex,
                         (uint32_t)first_tri,
                         (uint32_t)(r->tris.size / sizeof(ossa_triangle) - first_tri)};
        ossa__buf_append(&r->meshes, &mesh, sizeof mesh);
        if (r->meshes.failed) return ossa__fail_nomem(r->error);
    }
    return OSSA_OK;
}

ossa_status ossa__nmo_read(ossa_model *m, const unsigned char *data, size_t size,
                            const ossa_load_options *options, ossa_error *error)
{
    sotc_xff x;
    if (ossa__xff_open(&x, data, size, error)) return OSSA_FAILED;
    nmo_reader r;
    memset(&r, 0, sizeof r);
    r.model = m;
    r.x = &x;
    r.error = error;
    r.alloc = &m->internal->arena.allocator;
    ossa_buf *bufs[] = {&r.pos, &r.nrm, &r.uv, &r.col, &r.skin, &r.tris, &r.meshes};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) ossa__buf_init(bufs[i], r.alloc);
    ossa_status st = nmo_parse(&r);
    if (!st) st = build_model(&r);
    size_t num_tris = r.tris.size / sizeof(ossa_triangle);
    if (!st && num_tris > UINT32_MAX)
        st = ossa__fail(error, OSSA_ERROR_UNSUPPORTED, OSSA_NO_OFFSET, "too many triangles");
    if (!st && num_tris)
        st = ossa_model_set_triangles(m, (uint32_t)num_tris,
                                      (const ossa_triangle *)(void *)r.tris.data, error);
    size_t num_meshes = r.meshes.size / sizeof(nmo_mesh);
    for (size_t i = 0; !st && i < num_meshes; i++) {
        const nmo_mesh *mesh = (const nmo_mesh *)(void *)r.meshes.data + i;
        char fallback[32];
        const char *name = mesh->name;
        if (!name[0]) {
            snprintf(fallback, sizeof fallback, "geometry%zu", i);
            name = fallback;
        }
        if (ossa_model_add_mesh(m, name, mesh->material, mesh->first_vertex, mesh->num_vertices,
                                mesh->first_triangle, mesh->num_triangles, error) < 0)
            st = OSSA_FAILED;
    }
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) ossa__buf_release(bufs[i]);
    if (!st) st = ossa__nmo_textures(m, &x, r.tex, r.num_tex, options, error);
    return st;
}

bool ossa__nmo_sniff(const unsigned char *data, size_t size)
{
    uint32_t first;
    return ossa__xff_sniff(data, size, &first) && first == 0x004F4D4Eu; /* "NMO\0" */
}

/* -- Writing -- */

typedef struct nmo_writer {
    const ossa_model *m;
    const ossa_write_options *options;
    sotc_rodata r;
    const ossa_vertex_array *pos, *nrm, *uv, *col, *bi, *bw, *pw;
    uint32_t fmt; /* surface format: 4, 6 or 7 */
    uint32_t truncated_skin;
    ossa_buf strip; /* uint32_t vertex indices of the strip being cut */
    ossa_buf vif;   /* the stream being built */
} nmo_writer;

static void vif_code(ossa_buf *b, unsigned addr, unsigned num, unsigned cmd)
{
    unsigned char *p = ossa__buf_push(b, 4);
    if (p) ossa__wr32(p, addr | 0x80u << 8 | (uint32_t)num << 16 | (uint32_t)cmd << 24);
}

static void vif_f32(ossa_buf *b, float v)
{
    unsigned char *p = ossa__buf_push(b, 4);
    if (p) ossa__wrf32(p, v);
}

static void vif_s16(ossa_buf *b, double v)
{
    double r = floor(v * 4096.0 + 0.5);
    if (!(r >= -32768)) r = -32768;
    if (r > 32767) r = 32767;
    unsigned char *p = ossa__buf_push(b, 2);
    if (p) ossa__wr16(p, (uint16_t)(int16_t)r);
}

static float attr(const nmo_writer *w, const ossa_vertex_array *a, uint32_t v, uint32_t k)
{
    float out[OSSA_MAX_COMPONENTS] = {0};
    if (!a || k >= a->size || ossa_vertex_array_read(w->m, a, v, 1, out)) return 0;
    return out[k];
}

/* One skin value: bone + weight (the fraction), a whole number for weight
 * 1, -weight for the parent slot (bone -1). */
static float skin_value(int32_t bone, float weight)
{
    if (bone < 0) return weight >= 1 ? -nextafterf(1.0f, 0.0f) : -weight;
    float b = (float)bone;
    if (weight >= 1) return b;
    float v = b + weight;
    if (floorf(v) != b) v = nextafterf(b + 1.0f, 0.0f);
    if (v == b) v = nextafterf(b, b + 1.0f);
    return v;
}

static void write_skin(nmo_writer *w, uint32_t v)
{
    int32_t bone[OSSA_MAX_COMPONENTS + 1];
    float weight[OSSA_MAX_COMPONENTS + 1];
    uint32_t n = 0;
    for (uint32_t k = 0; k < w->bi->size && k < w->bw->size; k++) {
        float wt = attr(w, w->bw, v, k);
        if (!(wt > 0)) continue;
        bone[n] = (int32_t)attr(w, w->bi, v, k);
        weight[n++] = wt;
    }
    float parent = w->pw ? attr(w, w->pw, v, 0) : 0;
    if (parent > 0) {
        bone[n] = -1;
        weight[n++] = parent;
    }
    if (n > 3) {
        /* Keep the three largest, scaled to the same total. */
        double total = 0, kept = 0;
        for (uint32_t i = 0; i < n; i++) total += weight[i];
        for (uint32_t i = 0; i < 3; i++)
            for (uint32_t j = i + 1; j < n; j++)
                if (weight[j] > weight[i]) {
                    float tw = weight[i];
                    int32_t tb = bone[i];
                    weight[i] = weight[j];
                    bone[i] = bone[j];
                    weight[j] = tw;
                    bone[j] = tb;
                }
        for (uint32_t i = 0; i < 3; i++) kept += weight[i];
        for (uint32_t i = 0; i < 3; i++) weight[i] = (float)(weight[i] * total / kept);
        n = 3;
        w->truncated_skin++;
    }
    for (uint32_t k = 0; k < 3; k++) vif_f32(&w->vif, k < n ? skin_value(bone[k], weight[k]) : 0);
    unsigned char *p = ossa__buf_push(&w->vif, 4);
    if (p) ossa__wr32(p, n);
}

/* The VIF packets of one strip (docs/formats/sotc.md §7): strip header, positions,
 * then the attributes of its vertices. */
static void emit_strip(nmo_writer *w)
{
    const uint32_t *s = (const uint32_t *)(void *)w->strip.data;
    uint32_t k = (uint32_t)(w->strip.size / 4);
    ossa_buf *b = &w->vif;
    vif_code(b, 0, 1, VIF_V4_32);
    unsigned char *h = ossa__buf_push(b, 16);
    if (h) ossa__wr32(h, k | 0x8000u); /* a GS tag's NLOOP and EOP; unread */
    vif_code(b, 1, k, VIF_V3_32);
    for (uint32_t i = 0; i < k; i++)
        for (uint32_t c = 0; c < 3; c++) vif_f32(b, attr(w, w->pos, s[i], c));
    if (w->fmt == 7) {
        vif_code(b, 2, k, VIF_V3_32);
        for (uint32_t i = 0; i < k; i++)
            for (uint32_t c = 0; c < 3; c++) vif_f32(b, attr(w, w->nrm, s[i], c));
    }
    if (w->fmt >= 6) {
        vif_code(b, 3, k, VIF_V2_16);
        for (uint32_t i = 0; i < k; i++)
            for (uint32_t c = 0; c < 2; c++) vif_s16(b, attr(w, w->uv, s[i], c));
    }
    vif_code(b, 4, k, VIF_V4_8);
    for (uint32_t i = 0; i < k; i++) {
        unsigned char *p = ossa__buf_push(b, 4);
        for (uint32_t c = 0; p && c < 4; c++) {
            double v = w->col ? floor(attr(w, w->col, s[i], c) * 255.0 + 0.5) : 0x80;
            p[c] = (unsigned char)(v > 255 ? 255 : v < 0 || v != v ? 0 : v);
        }
    }
    if (w->bi && w->bw) {
        vif_code(b, 5, k, VIF_V4_32);
        for (uint32_t i = 0; i < k; i++) write_skin(w, s[i]);
    }
    w->strip.size = 0;
}

static void strip_push(nmo_writer *w, uint32_t v) { ossa__buf_append(&w->strip, &v, 4); }

/* Cuts triangles [first, first + count) into strips, in order: a triangle
 * joins the current strip when it shares the strip's last edge with the
 * winding the reader will give it (see close_strip: strip triangle i comes
 * out as (s_i, s_i+2, s_i+1) for even i, (s_i+1, s_i+2, s_i) for odd i). */
static void emit_mesh(nmo_writer *w, uint32_t first, uint32_t count, uint32_t *strips)
{
    *strips = 0;
    w->vif.size = 0;
    ossa__buf_push(&w->vif, 12);
    for (uint32_t t = first; t < first + count; t++) {
        const uint32_t *v = w->m->triangles[t].v;
        size_t len = w->strip.size / 4;
        if (len >= 3 && len < NMO_MAX_STRIP) {
            const uint32_t *s = (const uint32_t *)(void *)w->strip.data;
            size_t i = len - 2;
            uint32_t u = (i & 1) ? s[i + 1] : s[i], last = (i & 1) ? s[i] : s[i + 1];
            int k;
            for (k = 0; k < 3; k++)
                if (v[k] == u && v[(k + 2) % 3] == last) break;
            if (k < 3) {
                strip_push(w, v[(k + 1) % 3]);
                continue;
            }
        }
        if (len) {
            emit_strip(w);
            (*strips)++;
        }
        /* Any rotation of the triangle starts a strip the same way; take
         * one that lets the next triangle join (odd triangle 1 needs the
         * edge from s1 to s2 reversed in it). */
        int rot = -1;
        if (t + 1 < first + count) {
            const uint32_t *n = w->m->triangles[t + 1].v;
            for (int r = 0; r < 3 && rot < 0; r++)
                for (int k = 0; k < 3; k++)
                    if (n[k] == v[(r + 1) % 3] && n[(k + 2) % 3] == v[(r + 2) % 3]) rot = r;
        }
        if (rot < 0) rot = 0;
        strip_push(w, v[rot]);
        strip_push(w, v[(rot + 2) % 3]);
        strip_push(w, v[(rot + 1) % 3]);
    }
    if (w->strip.size) {
        emit_strip(w);
        (*strips)++;
    }
    /* NOP words up to a 16-byte boundary. */
    while (w->vif.size % 16) ossa__buf_push(&w->vif, 4);
}

static const ossa_extra *nmo_find_extra(const ossa_model *m, const char *key)
{
    for (uint32_t i = 0; i < m->num_extras; i++)
        if (strcmp(m->extras[i].key, key) == 0) return &m->extras[i];
    return NULL;
}

ossa_status ossa__nmo_write(const ossa_model *m, const ossa_write_options *options, ossa_buf *out,
                             ossa_error *error)
{
    nmo_writer w;
    memset(&w, 0, sizeof w);
    w.m = m;
    w.options = options;
    w.pos = ossa_model_find_array(m, OSSA_VERTEX_POSITION, NULL);
    if (!w.pos || !m->num_triangles)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "the model has no triangles: a .nmo holds meshes");
    w.nrm = ossa_model_find_array(m, OSSA_VERTEX_NORMAL, NULL);
    w.uv = ossa_model_find_array(m, OSSA_VERTEX_TEXCOORD, NULL);
    w.col = ossa_model_find_array(m, OSSA_VERTEX_COLOR, NULL);
    w.bi = ossa_model_find_array(m, OSSA_VERTEX_BLENDINDEXES, NULL);
    w.bw = ossa_model_find_array(m, OSSA_VERTEX_BLENDWEIGHTS, NULL);
    w.pw = ossa_model_find_array(m, OSSA_VERTEX_CUSTOM, NMO_PARENT_WEIGHT);
    if (!w.bi || !w.bw) w.bi = w.bw = NULL;
    /* Formats: 7 = position, normal, texcoord, colour; 6 without normals;
     * 4 with position and colour only. */
    w.fmt = w.nrm ? 7 : w.uv ? 6 : 4;
    ossa_buf *bufs[] = {&w.strip, &w.vif};
    ossa__ro_init(&w.r, options->allocator);
    for (size_t i = 0; i < 2; i++) ossa__buf_init(bufs[i], options->allocator);

    /* Meshes (a model without any is one mesh), textures by material. */
    uint32_t num_meshes = m->num_meshes ? m->num_meshes : 1;
    const char **textures = ossa__alloc(options->allocator, (size_t)num_meshes * sizeof *textures);
    uint32_t *tex_of = ossa__alloc(options->allocator, (size_t)num_meshes * sizeof *tex_of);
    ossa_status st = OSSA_OK;
    if (!textures || !tex_of) st = ossa__fail_nomem(error);
    uint32_t num_textures = 0;
    for (uint32_t i = 0; !st && i < num_meshes; i++) {
        const char *mat = m->num_meshes ? m->meshes[i].material : "";
        tex_of[i] = UINT32_MAX;
        if (!mat[0]) continue;
        uint32_t t;
        for (t = 0; t < num_textures && strcmp(textures[t], mat) != 0; t++) {
        }
        if (t == num_textures) textures[num_textures++] = mat;
        tex_of[i] = t;
    }

    sotc_rodata *r = &w.r;
    uint32_t h = ossa__ro_alloc(r, NMO_HEADER_SIZE, 16);
    uint32_t node = ossa__ro_alloc(r, NMO_NODE_SIZE, 16);
    uint32_t tex = ossa__ro_alloc(r, (size_t)num_textures * NMO_TEX_SIZE, 16);
    uint32_t srf = ossa__ro_alloc(r, (size_t)num_meshes * NMO_SRF_SIZE, 16);
    uint32_t geom = ossa__ro_alloc(r, (size_t)num_meshes * NMO_GEOM_SIZE, 16);
    const ossa_extra *name_extra = nmo_find_extra(m, NMO_EXTRA_NAME);
    const char *model_name = "model";
    if (name_extra && name_extra->size && memchr(name_extra->data, 0, name_extra->size))
        model_name = name_extra->data;
    uint32_t model_name_at = ossa__ro_string(r, model_name);
    for (uint32_t t = 0; !st && t < num_textures; t++) {
        uint32_t at = tex + t * NMO_TEX_SIZE;
        ossa__ro_u32(r, at, 0x00584554u); /* "TEX\0" */
        ossa__ro_ptr(r, at + 4, ossa__ro_string(r, textures[t]));
    }

    /* Bounds of every position for the one-node tree. */
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; v < m->num_vertices; v++)
        for (uint32_t c = 0; c < 3; c++) {
            float p = attr(&w, w.pos, v, c);
            if (p < lo[c]) lo[c] = p;
            if (p > hi[c]) hi[c] = p;
        }
    for (uint32_t c = 0; c < 3; c++) {
        ossa__ro_f32(r, node + 4 * c, m->num_vertices ? lo[c] : 0);
        ossa__ro_f32(r, node + 16 + 4 * c, m->num_vertices ? hi[c] : 0);
    }
    ossa__ro_f32(r, node + 12, 1);
    ossa__ro_f32(r, node + 28, 1);
    ossa__ro_u32(r, node + 32, 0xFFFFFFFFu);
    ossa__ro_u32(r, node + 36, 0xFFFFFFFFu);

    for (uint32_t i = 0; !st && i < num_meshes; i++) {
        const ossa_mesh *mesh = m->num_meshes ? &m->meshes[i] : NULL;
        uint32_t first = mesh ? mesh->first_triangle : 0;
        uint32_t count = mesh ? mesh->num_triangles : m->num_triangles;
        uint32_t strips;
        emit_mesh(&w, first, count, &strips);
        if (w.vif.failed || w.strip.failed) {
            st = ossa__fail_nomem(error);
            break;
        }
        uint32_t stream = ossa__ro_alloc(r, w.vif.size, 16);
        if (!ossa__ro_failed(r)) memcpy(r->data.data + stream, w.vif.data, w.vif.size);
        uint32_t s = srf + i * NMO_SRF_SIZE, g = geom + i * NMO_GEOM_SIZE;
        ossa__ro_u32(r, s, 0x00465253u); /* "SRF\0" */
        ossa__ro_u32(r, s + 4, count);
        ossa__ro_u32(r, s + 8, strips);
        ossa__ro_ptr(r, s + 0x0C, ossa__ro_string(r, mesh && mesh->name[0] ? mesh->name : "mesh"));
        ossa__ro_u8(r, s + 0x18, (uint8_t)w.fmt);
        if (tex_of[i] != UINT32_MAX) {
            ossa__ro_u32(r, s + 0x1C, 1);
            ossa__ro_u32(r, s + 0x2C, tex_of[i]);
        }
        ossa__ro_u32(r, g, (uint32_t)w.vif.size);
        ossa__ro_u32(r, g + 8, i);
        ossa__ro_ptr(r, g + 0x10, stream);
        ossa__ro_u32(r, g + 0x14, count);
        ossa__ro_u32(r, g + 0x18, strips);
    }
    if (!st) {
        ossa__ro_u32(r, h, 0x004F4D4Eu); /* "NMO\0" */
        ossa__ro_u32(r, h + 4, 3);
        uint32_t ptr[5] = {node, tex, srf, geom, model_name_at};
        uint32_t count[5] = {1, num_textures, num_meshes, num_meshes, 1};
        for (int c = 0; c < 5; c++) {
            ossa__ro_ptr(r, h + 0x30 + 16 * c, ptr[c]);
            ossa__ro_u32(r, h + 0x34 + 16 * c, count[c]);
        }
        st = ossa__xff_write(r, h, 1, out, error);
    }
    if (!st && w.truncated_skin)
        ossa__write_warn(options, OSSA_WARNING_LIMITED,
                        "%u vertices have more than 3 influences: the 3 largest are kept, "
                        "rescaled",
                        w.truncated_skin);
    if (!st && !w.col)
        ossa__write_note(options, "no vertex colours: 0x80 (the PS2's 1.0) written");
    ossa__free(options->allocator, textures, (size_t)num_meshes * sizeof *textures);
    ossa__free(options->allocator, tex_of, (size_t)num_meshes * sizeof *tex_of);
    for (size_t i = 0; i < 2; i++) ossa__buf_release(bufs[i]);
    ossa__ro_release(r);
    return st;
}
