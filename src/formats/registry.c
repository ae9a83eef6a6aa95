/* The one table of formats, and lookup by name, extension and content. */
#include "formats/format.h"

#include <ctype.h>

static const ossa_format_ops *const formats[] = {
    &ossa__iqm_format,
    &ossa__iqe_format,
    &ossa__sotc_skb_format,
    &ossa__sotc_anb_format,
    &ossa__sotc_nmo_format,
    &ossa__sotc_nto_format,
    &ossa__gltf_format,
    &ossa__glb_format,
    &ossa__illmesh_format,
    &ossa__illskel_format,
    &ossa__illanim_format,
    &ossa__illanset_format,
    &ossa__fbx_format,
    &ossa__smd_format,
    &ossa__obj_format,
    &ossa__md5mesh_format,
    &ossa__md5anim_format,
    &ossa__ossaclip_format,
    &ossa__bvh_format,
};
#define NUM_FORMATS (sizeof formats / sizeof formats[0])

const ossa_format_ops *ossa__format_ops(ossa_format id)
{
    for (size_t i = 0; i < NUM_FORMATS; i++)
        if (formats[i]->id == id) return formats[i];
    return NULL;
}

const char *ossa_format_name(ossa_format format)
{
    const ossa_format_ops *ops = ossa__format_ops(format);
    return ops ? ops->name : "unknown";
}

static bool equal_nocase(const char *a, const char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i])) return false;
    return true;
}

/* True when `ext` (".iqm", case-insensitive) is one of the space-separated
 * entries of `list`. */
static bool extension_in(const char *ext, const char *list)
{
    size_t n = strlen(ext);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ' ');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && equal_nocase(p, ext, n)) return true;
        p += len;
        while (*p == ' ') p++;
    }
    return false;
}

ossa_format ossa_format_from_name(const char *name_or_path)
{
    if (!name_or_path) return OSSA_FORMAT_AUTO;
    for (size_t i = 0; i < NUM_FORMATS; i++) {
        size_t n = strlen(formats[i]->name);
        if (strlen(name_or_path) == n && equal_nocase(name_or_path, formats[i]->name, n))
            return formats[i]->id;
    }
    const char *slash = strrchr(name_or_path, '/');
    const char *dot = strrchr(slash ? slash : name_or_path, '.');
    if (!dot) return OSSA_FORMAT_AUTO;
    for (size_t i = 0; i < NUM_FORMATS; i++)
        if (extension_in(dot, formats[i]->extensions)) return formats[i]->id;
    return OSSA_FORMAT_AUTO;
}

ossa_format ossa_format_detect(const void *data, size_t size)
{
    for (size_t i = 0; i < NUM_FORMATS; i++)
        if (formats[i]->sniff && formats[i]->sniff(data, size)) return formats[i]->id;
    return OSSA_FORMAT_AUTO;
}

uint32_t ossa_format_list(ossa_format *out, uint32_t capacity)
{
    for (uint32_t i = 0; out && i < capacity && i < NUM_FORMATS; i++) out[i] = formats[i]->id;
    return (uint32_t)NUM_FORMATS;
}

int ossa_format_can_read(ossa_format format)
{
    const ossa_format_ops *ops = ossa__format_ops(format);
    return ops && ops->read;
}

int ossa_format_can_write(ossa_format format)
{
    const ossa_format_ops *ops = ossa__format_ops(format);
    return ops && ops->write;
}

ossa_front ossa_format_front(ossa_format format)
{
    const ossa_format_ops *ops = ossa__format_ops(format);
    if (!ops) return OSSA_FRONT_UNKNOWN;
    return ops->front_of ? ops->front_of(NULL, 0, false) : (ossa_front)ops->front;
}

const char *ossa_format_extensions(ossa_format format)
{
    const ossa_format_ops *ops = ossa__format_ops(format);
    return ops ? ops->extensions : "";
}

bool ossa__format_family_exists(const char *name, size_t n)
{
    for (size_t i = 0; i < NUM_FORMATS; i++)
        if (formats[i]->option_family && ossa__option_word_equal(name, n, formats[i]->option_family))
            return true;
    return false;
}

uint32_t ossa_format_options(ossa_format format, int writing, const ossa_option_info **out)
{
    const ossa_format_ops *ops = ossa__format_ops(format);
    const ossa_option_info *table = !ops ? NULL : writing ? ops->write_options : ops->load_options;
    uint32_t n = !ops ? 0 : writing ? ops->num_write_options : ops->num_load_options;
    if (out) *out = n ? table : NULL;
    return n;
}
