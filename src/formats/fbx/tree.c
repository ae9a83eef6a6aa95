/* The node tree's accessors, located errors and the load's scratch memory
 * (an arena over the model's allocator, released when the load ends). */
#include "formats/fbx/fbx.h"

#include <stdio.h>

void ossa__fbx_doc_init(fbx_doc *doc, ossa_model *model, const ossa_load_options *options,
                        size_t size, ossa_error *error)
{
    memset(doc, 0, sizeof *doc);
    doc->model = model;
    doc->options = options;
    doc->error = error;
    doc->file_size = size;
    ossa__arena_init(&doc->scratch, &model->internal->arena.allocator);
    /* zlib arrays may inflate to 64 times the file in total (§11), plus a
     * little for tiny files with one honest compressed array. */
    doc->inflate_budget = (uint64_t)size * 64 + (1u << 20);
    /* Shared by every animation stack of the file. */
    doc->pose_budget = ossa__decode_limit(size);
}

void ossa__fbx_doc_release(fbx_doc *doc) { ossa__arena_release(&doc->scratch); }

void *ossa__fbx_alloc(fbx_doc *doc, size_t count, size_t elem)
{
    void *p = ossa__arena_array(&doc->scratch, count ? count : 1, elem ? elem : 1);
    if (!p) ossa__fail_nomem(doc->error);
    return p;
}

char *ossa__fbx_strdup(fbx_doc *doc, const char *s, size_t len)
{
    char *p = ossa__arena_strndup(&doc->scratch, s, len);
    if (!p) ossa__fail_nomem(doc->error);
    return p;
}

ossa_status ossa__fbx_fail(fbx_doc *doc, const fbx_node *node, const fbx_value *value,
                           ossa_code kind, const char *fmt, ...)
{
    uint32_t line = 0, column = 0;
    uint64_t offset = OSSA_NO_OFFSET;
    if (doc->ascii) {
        line = value ? value->line : node ? node->line : 0;
        column = value ? value->column : node ? node->column : 0;
    } else {
        offset = value ? value->offset : node ? node->offset : OSSA_NO_OFFSET;
    }
    va_list ap;
    va_start(ap, fmt);
    ossa__failv(doc->error, kind, offset, line, column, fmt, ap);
    va_end(ap);
    return OSSA_FAILED;
}

void ossa__fbx_warn(fbx_doc *doc, const fbx_node *node, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (doc->ascii)
        ossa__warnv(doc->model, OSSA_WARNING_IGNORED, OSSA_NO_OFFSET, node ? node->line : 0,
                    node ? node->column : 0, fmt, ap);
    else
        ossa__warnv(doc->model, OSSA_WARNING_IGNORED, node ? node->offset : OSSA_NO_OFFSET, 0, 0,
                    fmt, ap);
    va_end(ap);
}

bool ossa__fbx_name_is(const fbx_node *node, const char *name)
{
    size_t n = strlen(name);
    return node->name_len == n && memcmp(node->name, name, n) == 0;
}

const fbx_node *ossa__fbx_next_named(const fbx_node *node, const char *name)
{
    for (; node; node = node->next)
        if (ossa__fbx_name_is(node, name)) return node;
    return NULL;
}

const fbx_node *ossa__fbx_child(const fbx_node *node, const char *name)
{
    return node ? ossa__fbx_next_named(node->first_child, name) : NULL;
}

bool ossa__fbx_is_int(const fbx_value *v)
{
    return v->type == 'Y' || v->type == 'C' || v->type == 'I' || v->type == 'L';
}

bool ossa__fbx_is_number(const fbx_value *v)
{
    return ossa__fbx_is_int(v) || v->type == 'F' || v->type == 'D';
}

double ossa__fbx_number(const fbx_value *v)
{
    return ossa__fbx_is_int(v) ? (double)v->v.i : (v->type == 'F' || v->type == 'D') ? v->v.d : 0;
}

bool ossa__fbx_is_string(const fbx_value *v) { return v->type == 'S'; }

bool ossa__fbx_str_is(const fbx_value *v, const char *s)
{
    size_t n = strlen(s);
    return v && v->type == 'S' && v->count == n && memcmp(v->v.s, s, n) == 0;
}

bool ossa__fbx_is_array(const fbx_value *v) { return v->type >= 'a' && v->type <= 'z'; }

static size_t elem_size(char type)
{
    switch (type) {
    case 'f': case 'i': return 4;
    case 'd': case 'l': return 8;
    default: return 1; /* b c */
    }
}

double ossa__fbx_array_double(const fbx_value *v, uint32_t i)
{
    const unsigned char *p = (const unsigned char *)v->v.data + (size_t)i * elem_size(v->type);
    uint64_t u;
    double d;
    switch (v->type) {
    case 'f': return (double)ossa__rdf32(p);
    case 'i': return (double)(int32_t)ossa__rd32(p);
    case 'd':
        u = ossa__rd32(p) | ((uint64_t)ossa__rd32(p + 4) << 32);
        memcpy(&d, &u, 8);
        return d;
    case 'l': return (double)ossa__fbx_array_int(v, i);
    default: return (double)*p;
    }
}

int64_t ossa__fbx_array_int(const fbx_value *v, uint32_t i)
{
    const unsigned char *p = (const unsigned char *)v->v.data + (size_t)i * elem_size(v->type);
    switch (v->type) {
    case 'i': return (int32_t)ossa__rd32(p);
    case 'l': return (int64_t)(ossa__rd32(p) | ((uint64_t)ossa__rd32(p + 4) << 32));
    case 'f': case 'd': {
        double d = ossa__fbx_array_double(v, i);
        return d >= -9.2e18 && d <= 9.2e18 ? (int64_t)d : 0;
    }
    default: return *p;
    }
}

const fbx_value *ossa__fbx_child_array(fbx_doc *doc, const fbx_node *node, const char *name,
                                       bool *failed)
{
    const fbx_node *c = ossa__fbx_child(node, name);
    if (!c) return NULL;
    if (c->num_values != 1 || !ossa__fbx_is_array(&c->values[0])) {
        /* An empty ASCII array ("*0 { a: }") has no value at all. */
        if (c->num_values == 0) return NULL;
        *failed = true;
        ossa__fbx_fail(doc, c, NULL, OSSA_ERROR_CORRUPT, "%s: expected one array of numbers", name);
        return NULL;
    }
    return &c->values[0];
}

const fbx_value *ossa__fbx_child_string(const fbx_node *node, const char *name)
{
    const fbx_node *c = ossa__fbx_child(node, name);
    return c && c->num_values >= 1 && c->values[0].type == 'S' ? &c->values[0] : NULL;
}
