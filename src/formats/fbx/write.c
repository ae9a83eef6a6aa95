/* FBX writer entry points (fbx.md §15): the plan of every object id, then
 * the document in the order real files have it: FBXHeaderExtension,
 * FileId, CreationTime, Creator, GlobalSettings, Documents, References,
 * Definitions, Objects, Connections, Takes and the footer.
 *
 * Axes and units are written so that ossa's reader converts nothing: Z up,
 * front -Y, right +X (UpAxis 2, FrontAxis 1 with sign -1, CoordAxis 0: the
 * right-handed Z-up combination of §9) and UnitScaleFactor 100 (a file
 * unit is a metre). Positions and translations then go through the file
 * unchanged, and Blender imports them as they are. */
#include "core/files.h"
#include "core/image_files.h"
#include "formats/fbx/write.h"

#include <math.h>
#include <stdio.h>

/* The SDK accepts a file whose FileId and CreationTime are this pair, the
 * one Blender writes: the time is fixed so that the output depends on the
 * model only. */
static const unsigned char file_id[16] = {0x28, 0xb3, 0x2a, 0xeb, 0xb6, 0x24, 0xcc, 0xc2,
                                          0xbf, 0xc8, 0xb0, 0x2a, 0xa9, 0x2b, 0xfc, 0xf1};
#define CREATION_TIME "1970-01-01 10:00:00:000"

/* -- The frame rate (§9's TimeMode table) -- */

static void choose_rate(fbxw *w)
{
    const ossa_model *m = w->m;
    float rate = 0;
    for (uint32_t a = 0; a < m->num_animations && rate <= 0; a++)
        if (m->animations[a].num_frames) rate = m->animations[a].framerate;
    if (!(rate > 0) || !isfinite(rate)) rate = OSSA_DEFAULT_FRAMERATE;
    static const struct {
        double fps;
        int mode;
    } modes[] = {{120, 1},
                 {100, 2},
                 {60, 3},
                 {50, 4},
                 {48, 5},
                 {30, 6},
                 {30000.0 / 1001, 9},
                 {25, 10},
                 {24, 11},
                 {1000, 12},
                 {24000.0 / 1001, 13},
                 {96, 15},
                 {72, 16},
                 {60000.0 / 1001, 17},
                 {120000.0 / 1001, 18}};
    w->time_mode = 14;
    w->fps = rate;
    /* A standard rate is the one the reader's table gives back as this
     * float: the table's double, so that key times match its sampling. */
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if ((float)modes[i].fps == rate) {
            w->time_mode = modes[i].mode;
            w->fps = modes[i].fps;
        }
}

/* -- The document around the objects -- */

static void header_extension(fbxw *w)
{
    char creator[64];
    snprintf(creator, sizeof creator, "ossa %s", ossa_version_string());
    ossa__fbxw_begin(w, "FBXHeaderExtension");
    ossa__fbxw_child_i32(w, "FBXHeaderVersion", 1003);
    ossa__fbxw_child_i32(w, "FBXVersion", FBXW_VERSION);
    ossa__fbxw_child_i32(w, "EncryptionType", 0);
    ossa__fbxw_begin(w, "CreationTimeStamp");
    ossa__fbxw_child_i32(w, "Version", 1000);
    /* CREATION_TIME, field by field */
    static const char *const fields[7] = {"Year", "Month", "Day", "Hour", "Minute", "Second", "Millisecond"};
    static const int32_t values[7] = {1970, 1, 1, 10, 0, 0, 0};
    for (int i = 0; i < 7; i++) ossa__fbxw_child_i32(w, fields[i], values[i]);
    ossa__fbxw_end(w);
    ossa__fbxw_child_str(w, "Creator", creator);
    ossa__fbxw_end(w);
    ossa__fbxw_begin(w, "FileId");
    ossa__fbxw_raw(w, file_id, sizeof file_id);
    ossa__fbxw_end(w);
    ossa__fbxw_child_str(w, "CreationTime", CREATION_TIME);
    ossa__fbxw_child_str(w, "Creator", creator);
}

static void global_settings(fbxw *w)
{
    ossa__fbxw_begin(w, "GlobalSettings");
    ossa__fbxw_child_i32(w, "Version", 1000);
    ossa__fbxw_begin(w, "Properties70");
    ossa__fbxw_p_int(w, "UpAxis", "int", 2);
    ossa__fbxw_p_int(w, "UpAxisSign", "int", 1);
    ossa__fbxw_p_int(w, "FrontAxis", "int", 1);
    ossa__fbxw_p_int(w, "FrontAxisSign", "int", -1);
    ossa__fbxw_p_int(w, "CoordAxis", "int", 0);
    ossa__fbxw_p_int(w, "CoordAxisSign", "int", 1);
    ossa__fbxw_p_int(w, "OriginalUpAxis", "int", 2);
    ossa__fbxw_p_int(w, "OriginalUpAxisSign", "int", 1);
    ossa__fbxw_p_double(w, "UnitScaleFactor", "double", "", 100);
    ossa__fbxw_p_double(w, "OriginalUnitScaleFactor", "double", "", 100);
    ossa__fbxw_p_int(w, "TimeMode", "enum", w->time_mode);
    ossa__fbxw_p_time(w, "TimeSpanStart", 0);
    ossa__fbxw_p_time(w, "TimeSpanStop", ossa__fbxw_time_stop(w));
    ossa__fbxw_p_double(w, "CustomFrameRate", "double", "", w->fps);
    ossa__fbxw_end(w);
    ossa__fbxw_end(w);
}

static void documents(fbxw *w)
{
    ossa__fbxw_begin(w, "Documents");
    ossa__fbxw_child_i32(w, "Count", 1);
    ossa__fbxw_begin(w, "Document");
    ossa__fbxw_i64(w, ossa__fbxw_id(w));
    ossa__fbxw_cstr(w, "Scene");
    ossa__fbxw_cstr(w, "Scene");
    ossa__fbxw_begin(w, "Properties70");
    ossa__fbxw_begin(w, "P");
    ossa__fbxw_cstr(w, "SourceObject");
    ossa__fbxw_cstr(w, "object");
    ossa__fbxw_cstr(w, "");
    ossa__fbxw_cstr(w, "");
    ossa__fbxw_end(w);
    const char *active = "";
    char buf[32];
    for (uint32_t a = 0; a < w->m->num_animations && w->m->num_joints && !active[0]; a++)
        if (w->m->animations[a].num_frames) active = ossa__fbxw_anim_name(w, a, buf);
    ossa__fbxw_p_string(w, "ActiveAnimStackName", "KString", "", active);
    ossa__fbxw_end(w);
    ossa__fbxw_child_i64(w, "RootNode", 0);
    ossa__fbxw_end(w);
    ossa__fbxw_end(w);
    ossa__fbxw_begin(w, "References");
    ossa__fbxw_end(w);
}

/* Counts of the objects written, for Definitions. */
typedef struct counts {
    uint32_t models, attributes, geometries, materials, textures, videos, deformers, poses,
        stacks, curve_nodes, curves;
} counts;

static void count_objects(const fbxw *w, counts *c)
{
    const ossa_model *m = w->m;
    memset(c, 0, sizeof *c);
    c->models = c->attributes = m->num_joints;
    for (uint32_t i = 0; i < m->num_meshes; i++)
        if (w->meshes[i].model) {
            c->models++;
            c->geometries++;
        }
    c->materials = w->num_materials;
    for (uint32_t i = 0; i < w->num_materials; i++) {
        c->textures += w->materials[i].texture != 0;
        c->videos += w->materials[i].video != 0;
    }
    c->deformers = w->num_skinned + w->num_clusters;
    c->poses = m->num_joints ? 1 : 0;
    for (uint32_t a = 0; a < m->num_animations && m->num_joints; a++)
        c->stacks += m->animations[a].num_frames > 0;
    c->curve_nodes = c->stacks * w->num_curve_nodes;
    c->curves = 3 * c->curve_nodes;
}

static void object_type(fbxw *w, const char *type, uint32_t count, const char *tmpl)
{
    ossa__fbxw_begin(w, "ObjectType");
    ossa__fbxw_cstr(w, type);
    ossa__fbxw_child_i32(w, "Count", (int32_t)count);
    if (tmpl) {
        ossa__fbxw_begin(w, "PropertyTemplate");
        ossa__fbxw_cstr(w, tmpl);
        ossa__fbxw_begin(w, "Properties70");
    }
}

static void object_type_end(fbxw *w, bool tmpl)
{
    if (tmpl) {
        ossa__fbxw_end(w); /* Properties70 */
        ossa__fbxw_end(w); /* PropertyTemplate */
    }
    ossa__fbxw_end(w);
}

/* Templates hold the defaults of what objects leave out (§5); every object
 * writes what it sets, so these only say what the format's defaults are
 * for ossa's objects (InheritType 1: the plain product, §8.2). */
static void definitions(fbxw *w)
{
    static const double zero[3] = {0, 0, 0}, one[3] = {1, 1, 1}, grey[3] = {0.8, 0.8, 0.8};
    counts c;
    count_objects(w, &c);
    uint32_t total = 1 + c.models + c.attributes + c.geometries + c.materials + c.textures +
                     c.videos + c.deformers + c.poses + 2 * c.stacks + c.curve_nodes + c.curves;
    ossa__fbxw_begin(w, "Definitions");
    ossa__fbxw_child_i32(w, "Version", 100);
    ossa__fbxw_child_i32(w, "Count", (int32_t)total);
    object_type(w, "GlobalSettings", 1, NULL);
    object_type_end(w, false);
    if (c.models) {
        object_type(w, "Model", c.models, "FbxNode");
        ossa__fbxw_p_int(w, "RotationOrder", "enum", 0);
        ossa__fbxw_p_int(w, "RotationActive", "bool", 1);
        ossa__fbxw_p_int(w, "InheritType", "enum", 1);
        ossa__fbxw_p_int(w, "DefaultAttributeIndex", "int", -1);
        ossa__fbxw_p_vec3(w, "Lcl Translation", "Lcl Translation", "", "A", zero);
        ossa__fbxw_p_vec3(w, "Lcl Rotation", "Lcl Rotation", "", "A", zero);
        ossa__fbxw_p_vec3(w, "Lcl Scaling", "Lcl Scaling", "", "A", one);
        ossa__fbxw_p_double(w, "Visibility", "Visibility", "A", 1);
        object_type_end(w, true);
    }
    if (c.attributes) {
        object_type(w, "NodeAttribute", c.attributes, "FbxSkeleton");
        ossa__fbxw_p_vec3(w, "Color", "ColorRGB", "Color", "", grey);
        ossa__fbxw_p_double(w, "Size", "double", "", 100);
        ossa__fbxw_p_double(w, "LimbLength", "double", "H", 1);
        object_type_end(w, true);
    }
    if (c.geometries) {
        object_type(w, "Geometry", c.geometries, "FbxMesh");
        ossa__fbxw_p_int(w, "Primary Visibility", "bool", 1);
        ossa__fbxw_p_int(w, "Casts Shadows", "bool", 1);
        ossa__fbxw_p_int(w, "Receive Shadows", "bool", 1);
        object_type_end(w, true);
    }
    if (c.materials) {
        object_type(w, "Material", c.materials, "FbxSurfacePhong");
        ossa__fbxw_p_string(w, "ShadingModel", "KString", "", "Phong");
        ossa__fbxw_p_vec3(w, "DiffuseColor", "Color", "", "A", grey);
        ossa__fbxw_p_double(w, "DiffuseFactor", "Number", "A", 1);
        ossa__fbxw_p_double(w, "Shininess", "Number", "A", 20);
        ossa__fbxw_p_double(w, "ReflectionFactor", "Number", "A", 1);
        object_type_end(w, true);
    }
    if (c.textures) {
        object_type(w, "Texture", c.textures, "FbxFileTexture");
        ossa__fbxw_p_int(w, "UseMaterial", "bool", 0);
        ossa__fbxw_p_int(w, "WrapModeU", "enum", 0);
        ossa__fbxw_p_int(w, "WrapModeV", "enum", 0);
        object_type_end(w, true);
    }
    if (c.videos) {
        object_type(w, "Video", c.videos, "FbxVideo");
        ossa__fbxw_p_string(w, "Path", "KString", "XRefUrl", "");
        object_type_end(w, true);
    }
    if (c.deformers) {
        object_type(w, "Deformer", c.deformers, NULL);
        object_type_end(w, false);
    }
    if (c.poses) {
        object_type(w, "Pose", c.poses, NULL);
        object_type_end(w, false);
    }
    if (c.stacks) {
        object_type(w, "AnimationStack", c.stacks, "FbxAnimStack");
        ossa__fbxw_p_time(w, "LocalStart", 0);
        ossa__fbxw_p_time(w, "LocalStop", 0);
        ossa__fbxw_p_time(w, "ReferenceStart", 0);
        ossa__fbxw_p_time(w, "ReferenceStop", 0);
        object_type_end(w, true);
        object_type(w, "AnimationLayer", c.stacks, "FbxAnimLayer");
        ossa__fbxw_p_double(w, "Weight", "Number", "A", 100);
        ossa__fbxw_p_int(w, "Mute", "bool", 0);
        ossa__fbxw_p_int(w, "BlendMode", "enum", 0);
        object_type_end(w, true);
    }
    if (c.curve_nodes) {
        object_type(w, "AnimationCurveNode", c.curve_nodes, "FbxAnimCurveNode");
        ossa__fbxw_begin(w, "P");
        ossa__fbxw_cstr(w, "d");
        ossa__fbxw_cstr(w, "Compound");
        ossa__fbxw_cstr(w, "");
        ossa__fbxw_cstr(w, "");
        ossa__fbxw_end(w);
        object_type_end(w, true);
        object_type(w, "AnimationCurve", c.curves, NULL);
        object_type_end(w, false);
    }
    ossa__fbxw_end(w);
}

static void connections(fbxw *w)
{
    ossa__fbxw_begin(w, "Connections");
    for (size_t i = 0; i < w->num_conns; i++) {
        const fbxw_conn *c = &w->conns[i];
        ossa__fbxw_begin(w, "C");
        ossa__fbxw_cstr(w, c->prop ? "OP" : "OO");
        ossa__fbxw_i64(w, c->child);
        ossa__fbxw_i64(w, c->parent);
        if (c->prop) ossa__fbxw_cstr(w, c->prop);
        ossa__fbxw_end(w);
    }
    ossa__fbxw_end(w);
}

/* Takes repeat each stack's name and span: the reader's fallback (§10.4)
 * and what older importers read. */
static void takes(fbxw *w)
{
    const ossa_model *m = w->m;
    ossa__fbxw_begin(w, "Takes");
    ossa__fbxw_child_str(w, "Current", "");
    for (uint32_t a = 0; a < m->num_animations && m->num_joints; a++) {
        const ossa_animation *an = &m->animations[a];
        if (!an->num_frames) continue;
        char file[300], buf[32];
        const char *name = ossa__fbxw_anim_name(w, a, buf);
        snprintf(file, sizeof file, "%.250s.tak", name);
        int64_t stop = ossa__fbxw_frame_time(ossa__fbxw_anim_fps(w, a), an->num_frames - 1);
        ossa__fbxw_begin(w, "Take");
        ossa__fbxw_cstr(w, name);
        ossa__fbxw_child_str(w, "FileName", file);
        ossa__fbxw_begin(w, "LocalTime");
        ossa__fbxw_i64(w, 0);
        ossa__fbxw_i64(w, stop);
        ossa__fbxw_end(w);
        ossa__fbxw_begin(w, "ReferenceTime");
        ossa__fbxw_i64(w, 0);
        ossa__fbxw_i64(w, stop);
        ossa__fbxw_end(w);
        ossa__fbxw_end(w);
    }
    ossa__fbxw_end(w);
}

/* -- Entry points -- */

static void init(fbxw *w, const ossa_model *model, const ossa_write_options *options,
                 ossa_buf *out, ossa_error *error)
{
    memset(w, 0, sizeof *w);
    w->m = model;
    w->opt = options;
    w->alloc = options->allocator;
    w->error = error;
    w->out = out;
    w->next_id = FBXW_FIRST_ID;
}

static void release(fbxw *w)
{
    ossa__fbxw_zlib_end(w);
    ossa__fbxw_release_meshes(w);
    ossa__free(w->alloc, w->conns, 0);
    ossa__free(w->alloc, w->le, 0);
    ossa__free(w->alloc, w->tmp, 0);
    ossa__free(w->alloc, w->joint_model, 0);
    ossa__free(w->alloc, w->keyed, 0);
    ossa__free(w->alloc, w->bidx, 0);
    ossa__free(w->alloc, w->bwgt, 0);
    ossa__free(w->alloc, w->local_of, 0);
    ossa__free(w->alloc, w->point_vertex, 0);
}

static ossa_status build(fbxw *w)
{
    choose_rate(w);
    if (ossa__fbxw_plan_skin(w) || ossa__fbxw_plan_meshes(w) || ossa__fbxw_plan_anims(w))
        return OSSA_FAILED;
    ossa__fbxw_header(w);
    header_extension(w);
    global_settings(w);
    documents(w);
    definitions(w);
    ossa__fbxw_begin(w, "Objects");
    ossa__fbxw_joints(w);
    ossa__fbxw_meshes(w);
    ossa__fbxw_bind_pose(w);
    ossa__fbxw_materials(w);
    ossa__fbxw_anims(w);
    ossa__fbxw_end(w);
    connections(w);
    takes(w);
    ossa__fbxw_footer(w);
    if (w->failed) return OSSA_FAILED;
    if (w->nomem || w->out->failed) return ossa__fail_nomem(w->error);
    return OSSA_OK;
}

/* Where images go: inside the file unless asked to put them beside it
 * (only ossa_write_file can; from memory their names are kept). */
static ossa_images images_mode(const ossa_write_options *o, const char *path)
{
    ossa_images im = o->images;
    if (im == OSSA_IMAGES_DEFAULT) im = OSSA_IMAGES_EMBED;
    if (im == OSSA_IMAGES_BESIDE && !path) im = OSSA_IMAGES_NONE;
    return im;
}

ossa_status ossa__fbx_write(const ossa_model *model, const ossa_write_options *options,
                            ossa_buf *out, ossa_error *error)
{
    fbxw w;
    init(&w, model, options, out, error);
    w.images = images_mode(options, NULL);
    ossa_status st = build(&w);
    release(&w);
    return st;
}

ossa_status ossa__fbx_write_files(const ossa_model *model, const char *path,
                                  const ossa_write_options *options, ossa_error *error)
{
    ossa_buf out;
    ossa__buf_init(&out, options->allocator);
    fbxw w;
    init(&w, model, options, &out, error);
    w.images = images_mode(options, path);
    w.path = path;
    ossa_status st = build(&w);
    if (!st) {
        ossa_output_file *files = ossa__alloc(w.alloc, (w.num_beside + 1) * sizeof *files);
        if (!files) st = ossa__fail_nomem(error);
        if (!st) {
            files[0].path = path;
            files[0].data = out.data;
            files[0].size = out.size;
            size_t n = 1;
            for (size_t i = 0; i < w.num_beside; i++)
                if (w.beside[i].data) files[n++] = w.beside[i]; /* the others are there already */
            /* The model file replaces an existing one as usual; the images
             * beside it took free names and replace nothing. */
            ossa_write_options one = *options;
            one.flags &= ~(uint32_t)OSSA_WRITE_NO_REPLACE;
            st = ossa__write_files_atomic(files, n, &one, error);
        }
        ossa__free(w.alloc, files, 0);
    }
    release(&w);
    ossa__buf_release(&out);
    return st;
}
