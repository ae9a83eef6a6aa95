/* Properties70 (fbx.md §5): `P: name, type, subtype, flags, value...`,
 * looked up in the object, then in its type's PropertyTemplate from
 * Definitions, then the caller's built-in default. */
#include "formats/fbx/fbx.h"

static const fbx_node *find(const fbx_node *props, const char *name)
{
    if (!props) return NULL;
    size_t n = strlen(name);
    for (const fbx_node *p = props->first_child; p; p = p->next) {
        if (!ossa__fbx_name_is(p, "P") || p->num_values < 1) continue;
        const fbx_value *v = &p->values[0];
        if (v->type == 'S' && v->count == n && memcmp(v->v.s, name, n) == 0) return p;
    }
    return NULL;
}

const fbx_node *ossa__fbx_prop(const fbx_props *p, const char *name)
{
    const fbx_node *r = find(p->own, name);
    return r ? r : find(p->tmpl, name);
}

/* The numbers of a P record: its values after the four strings (some
 * writers give fewer header strings; the first number starts the values). */
static bool prop_values(const fbx_node *rec, double *out, int n)
{
    uint32_t k = 1;
    while (k < rec->num_values && k < 4 && !ossa__fbx_is_number(&rec->values[k])) k++;
    if (rec->num_values < k + (uint32_t)n) return false;
    for (int i = 0; i < n; i++) {
        if (!ossa__fbx_is_number(&rec->values[k + (uint32_t)i])) return false;
        out[i] = ossa__fbx_number(&rec->values[k + (uint32_t)i]);
    }
    return true;
}

bool ossa__fbx_prop_numbers(const fbx_props *p, const char *name, double *out, int n,
                            const double *def)
{
    const fbx_node *own = find(p->own, name), *tmpl = find(p->tmpl, name);
    if (own && prop_values(own, out, n)) return true;
    if (tmpl && prop_values(tmpl, out, n)) return true;
    for (int i = 0; i < n; i++) out[i] = def[i];
    return false;
}

double ossa__fbx_prop_double(const fbx_props *p, const char *name, double def)
{
    double v;
    ossa__fbx_prop_numbers(p, name, &v, 1, &def);
    return v;
}

int64_t ossa__fbx_prop_int(const fbx_props *p, const char *name, int64_t def)
{
    const fbx_node *rec[2] = {find(p->own, name), find(p->tmpl, name)};
    for (int r = 0; r < 2; r++) {
        if (!rec[r]) continue;
        for (uint32_t k = 1; k < rec[r]->num_values; k++) {
            const fbx_value *v = &rec[r]->values[k];
            if (ossa__fbx_is_int(v)) return v->v.i;
            if (ossa__fbx_is_number(v)) {
                double d = v->v.d;
                if (d >= -9e18 && d <= 9e18) return (int64_t)d;
            }
        }
    }
    return def;
}

const fbx_node *ossa__fbx_template(const fbx_doc *doc, const char *kind)
{
    const fbx_node *defs = ossa__fbx_child(&doc->root, "Definitions");
    if (!defs) return NULL;
    for (const fbx_node *t = ossa__fbx_child(defs, "ObjectType"); t;
         t = ossa__fbx_next_named(t->next, "ObjectType")) {
        if (t->num_values < 1 || !ossa__fbx_str_is(&t->values[0], kind)) continue;
        const fbx_node *pt = ossa__fbx_child(t, "PropertyTemplate");
        return pt ? ossa__fbx_child(pt, "Properties70") : NULL;
    }
    return NULL;
}
