/* The glTF reader's model-building state: read_nodes.c (nodes, skins,
 * joints, bind poses), read_meshes.c (primitives, attributes, triangles,
 * and through read_materials.c materials and images) and read_anims.c
 * (tracks, sampling, animations) fill the model from it in that order,
 * each using what the earlier ones found; gltf.c runs them. Not
 * installed. */
#ifndef OSSA_GLTF_SCENE_H
#define OSSA_GLTF_SCENE_H

#include "core/lists.h"
#include "formats/gltf/read.h"

#include <math.h>

typedef struct gltf_scene {
    gltf_reader *r;
    ossa_model *m;
    uint32_t N;
    int32_t *parent;      /* per node */
    ossa_transform *local; /* per node, glTF axes */
    uint8_t *identity;    /* per node: local is the identity */
    int64_t *node_mesh, *node_skin;
    int32_t *joint_of;    /* per node: joint index or -1 */
    int32_t *joint_above; /* per node: nearest ancestor that is a joint, or -1 */
    uint32_t J;
    uint32_t *node_of;    /* per joint */
    uint8_t *has_fold;    /* per joint */
    double (*fold)[16];   /* per joint: the non-joint nodes above it */
    ossa_transform *rest; /* per joint: folded rest transform */
    ossa_transform *bind; /* per joint: bind transform */
    double (*rest_world)[16], (*bind_world)[16]; /* per joint: the two poses, world space */
    int32_t **skin_map;   /* per skin: joint list as model joints */
    uint32_t *skin_size;
    bool warned_static;
    /* Materials (read_materials.c), filled as primitives name them. */
    const char **material_name; /* per material: its model name, NULL = not read yet */
    char **image_name;          /* per image: its model name, NULL = not read yet */
    char ignored[96];           /* material features skipped, for one warning */
    /* Names given so far, each once: materials (with the extra index + 1
     * of their description, per name id) and images. */
    ossa_intern material_names, image_names;
    uint32_t *material_extra;
} gltf_scene;

/* Temporary arrays of the build: zeroed, from the model's arena (freed
 * with the model; they are small next to it). */
static inline void *gltf_scratch(gltf_scene *s, size_t count, size_t elem)
{
    return ossa__arena_array(ossa__model_arena(s->m), count ? count : 1, elem);
}

static inline bool gltf_is_index(const cJSON *v)
{
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 4294967295.0 &&
           v->valuedouble == floor(v->valuedouble);
}

/* The node of the nearest joint above `node`, or -1. */
static inline int32_t gltf_joint_parent(const gltf_scene *s, uint32_t node)
{
    return s->joint_above[node];
}

/* What ossa keeps in an object's extras (GLTF_EXTRAS_KEY), or NULL. */
static inline const cJSON *gltf_ours(const cJSON *obj)
{
    return cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(obj, "extras"), GLTF_EXTRAS_KEY);
}

/* Nodes, skins and joints: the model's skeleton and bind pose, and the
 * per-node and per-joint state the other steps use. */
ossa_status ossa__gltf_read_skeleton(gltf_scene *s);
/* Puts the non-joint nodes above `joint` into its transform `t`. */
void ossa__gltf_apply_fold(const gltf_scene *s, uint32_t joint, ossa_transform *t);
/* Every primitive of the scene's mesh nodes: vertex arrays, triangles and
 * meshes. */
ossa_status ossa__gltf_read_meshes(gltf_scene *s);
/* The model's name for the material of primitive `prim` ("" for none),
 * its description (OSSA_EXTRA_MATERIAL) and images (OSSA_EXTRA_IMAGE)
 * recorded in the model when first named. */
ossa_status ossa__gltf_material(gltf_scene *s, const cJSON *prim, const char **name);
/* One warning for the material features the file has and the model
 * does not keep. */
void ossa__gltf_materials_done(gltf_scene *s);
/* Releases the name tables (on success and failure alike). */
void ossa__gltf_materials_free(gltf_scene *s);
/* Every animation, sampled on a frame grid. */
ossa_status ossa__gltf_read_animations(gltf_scene *s);

#endif
