/* glTF helpers shared by the reader and the writer: the axis conversion,
 * double-precision matrices and float formatting. */
#include "formats/gltf/gltf.h"
#include "text/text.h"

#include <math.h>

/* -- Axis conversion -- */

void ossa__gltf_transform_to_gltf(const ossa_transform *in, ossa_transform *out)
{
    ossa_transform t = *in;
    gltf_vec_to_gltf(in->translation, t.translation);
    gltf_vec_to_gltf(in->rotation, t.rotation); /* vector part; w is kept */
    gltf_scale_swap(in->scale, t.scale);
    *out = t;
}

void ossa__gltf_transform_from_gltf(const ossa_transform *in, ossa_transform *out)
{
    ossa_transform t = *in;
    gltf_vec_from_gltf(in->translation, t.translation);
    gltf_vec_from_gltf(in->rotation, t.rotation);
    gltf_scale_swap(in->scale, t.scale);
    *out = t;
}

/* -- Numbers -- */

void ossa__gltf_float_text(float v, char buf[32])
{
    /* The one shortest formatter of text/: snprintf would follow the C
     * locale, and a program that called setlocale() with a decimal comma
     * would get invalid JSON. */
    if (!isfinite(v)) {
        strcpy(buf, "0");
        return;
    }
    buf[ossa__text_format_float(buf, v)] = 0;
}
