/* The line ossa's text writers keep an animation's name, frame rate and
 * loop flag in where their format has no field for them (text.h). */
#include "text/text.h"

#include <math.h>

static bool word_at(const char **p, const char *end, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(end - *p) < n || memcmp(*p, word, n) != 0) return false;
    if ((size_t)(end - *p) > n && !ossa__text_blank((*p)[n])) return false;
    *p += n;
    while (*p < end && ossa__text_blank(**p)) (*p)++;
    return true;
}

bool ossa__anim_tag_parse(const char *s, size_t n, ossa_anim_tag *out)
{
    const char *p = s, *end = s + n;
    while (p < end && ossa__text_blank(*p)) p++;
    ossa_anim_tag t = {0, false, ""};
    if (!word_at(&p, end, "ossa")) return false;
    for (;;) {
        if (word_at(&p, end, "--loop")) {
            t.loop = true;
        } else if (word_at(&p, end, "--fps")) {
            const char *q = p;
            while (q < end && !ossa__text_blank(*q)) q++;
            float f;
            /* an empty token is no number (and the parser reads its first byte) */
            if (q == p || ossa__text_parse_float(p, q, &f) != q || !(f > 0) || !isfinite(f))
                return false;
            t.fps = f;
            p = q;
            while (p < end && ossa__text_blank(*p)) p++;
        } else if ((size_t)(end - p) >= 7 && memcmp(p, "--name ", 7) == 0) {
            p += 7;
            while (end > p && ossa__text_blank(end[-1])) end--;
            size_t len = (size_t)(end - p);
            if (len >= sizeof t.name) len = sizeof t.name - 1;
            memcpy(t.name, p, len);
            t.name[len] = 0;
            *out = t;
            return true;
        } else {
            return false;
        }
    }
}

void ossa__anim_tag_write(ossa_text_out *o, const char *name, float fps, bool loop, char banned)
{
    ossa__out_str(o, "ossa");
    if (fps > 0 && isfinite(fps)) {
        ossa__out_str(o, " --fps ");
        ossa__out_float(o, fps);
    }
    if (loop) ossa__out_str(o, " --loop");
    ossa__out_str(o, " --name ");
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        ossa__out_char(o, *p < 0x20 || *p == 0x7f || (banned && *p == (unsigned char)banned)
                              ? '_'
                              : (char)*p);
}
