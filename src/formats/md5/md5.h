/* MD5 (id Tech 4 .md5mesh / .md5anim, version 10; docs/formats/md5.md): the
 * interface between the module's parts.
 *
 *   md5.c        the format table's entries, detection, the read entry
 *                point (header, then mesh or anim) and the multi-file write
 *   lex.c        tokens as id's tokenizer reads them (lex.h)
 *   read_mesh.c  md5mesh -> joints, meshes, weights, normals (§2-§5)
 *   read_anim.c  md5anim -> an animation-only model (§6-§8)
 *   skeleton.c   what both writers share: joint names, the optional
 *                "origin" root, model-space bind poses, number text (§11)
 *   write_mesh.c model -> md5mesh text
 *   write_anim.c one animation -> md5anim text */
#ifndef OSSA_MD5_H
#define OSSA_MD5_H

#include "formats/format.h"
#include "formats/md5/lex.h"

/* -- Reading -------------------------------------------------------------- */

/* After the header (MD5Version 10, commandline): the rest of each kind. */
ossa_status ossa__md5_read_mesh(md5_lexer *L, ossa_model *model, const ossa_load_options *options);
/* `commandline` is the header's string (see read_anim.c for what ossa's
 * own files keep there). */
ossa_status ossa__md5_read_anim(md5_lexer *L, ossa_model *model, const ossa_load_options *options,
                                const char *commandline, size_t commandline_len);

/* Normals of one mesh block (§5) by the shared step (core/normals.h): id
 * derives them per block, adding up the faces around every vertex that
 * shares a position, so that texture seams stay smooth: one smoothing
 * group, no angle limit, and every vertex gets the normalized sum of the
 * area-weighted face normals at its exact position (0 when no triangle of
 * the block is there). `tris` index `pos` (3 floats per vertex). The
 * writer compares the model's normals with these. */
ossa_status ossa__md5_normals(const ossa_model *model, const float *pos, uint32_t num_vertices,
                              const uint32_t *tris, uint32_t num_triangles, float *out,
                              ossa_error *error);

/* -- Writing --------------------------------------------------------------- */

/* The joints as written: the model's, after an "origin" root when one is
 * needed (§11), with writable unique names and model-space rigid poses.
 * Shared by the md5mesh and every md5anim of one write so that they agree. */
typedef struct md5_skeleton {
    uint32_t num_joints;  /* written joints */
    uint32_t shift;       /* 1 when "origin" was inserted at index 0, else 0 */
    char **names;         /* per written joint */
    int32_t *parents;     /* per written joint */
    double *bind;         /* per written joint: model-space t xyz, q xyzw */
    const ossa_model *model;
    const ossa_write_options *options;
} md5_skeleton;

ossa_status ossa__md5_skeleton_init(md5_skeleton *s, const ossa_model *model,
                                    const ossa_write_options *options, ossa_error *error);
void ossa__md5_skeleton_free(md5_skeleton *s);
/* Parent-relative poses of frame f of animation a for every written joint:
 * t xyz, then q xyz with w <= 0 implied (6 floats per joint). The model's
 * scale comes baked (core/scale.h). */
void ossa__md5_frame(const md5_skeleton *s, uint32_t a, uint32_t f, float *out);
/* A warning for the write options' diagnostic callback. */
/* Numbers as id's exporter writes them (§11): never an exponent or '+'.
 * The shortest decimal that reads back exactly when it has at most 10
 * digits after the point, else the value rounded to 10 decimals; "-0"
 * becomes "0". Finite values only. */
void ossa__md5_out_float(ossa_text_out *o, float f);
/* A quoted name with '"' and control bytes replaced by '_'. */
void ossa__md5_out_name(ossa_text_out *o, const char *name);

ossa_status ossa__md5_write_mesh_text(const md5_skeleton *s, ossa_buf *out, ossa_error *error);
ossa_status ossa__md5_write_anim_text(const md5_skeleton *s, uint32_t animation, ossa_buf *out,
                                      ossa_error *error);

#endif
