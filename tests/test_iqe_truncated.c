/* A cut IQE file: text cut in the middle of a line reads as a shorter
 * command (a face of two indices is no triangle, a number loses digits),
 * so the reader warns (OSSA_WARNING_TRUNCATED, naming the line) when the
 * last line has no newline. Checked on hand-made files and on every cut of
 * a small model. */
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ossa_model *load_text(const char *text, size_t size, ossa_error *err)
{
    ossa_load_options o = {.format = OSSA_FORMAT_IQE, .file_name = "cut.iqe"};
    return ossa_load_memory(text, size, &o, err);
}

/* The warning about the end of the text: OSSA_WARNING_TRUNCATED located
 * at its last byte (a triangle soup's leftover vertices are reported with
 * the same code at their mesh command). At most one. */
static const ossa_diagnostic *truncation_warning(const ossa_model *m, size_t size)
{
    const ossa_diagnostic *found = NULL;
    for (uint32_t i = 0; i < m->num_warnings; i++)
        if (m->warnings[i].code == OSSA_WARNING_TRUNCATED && m->warnings[i].offset == size) {
            assert_null(found);
            found = &m->warnings[i];
        }
    return found;
}

static void face_cut_inside(void **state)
{
    (void)state;
    /* The last face lost its third index: without the warning the file
     * loads as one triangle and nothing says so. */
    static const char text[] = "# Inter-Quake Export\n"
                               "vp 0 0 0\nvp 1 0 0\nvp 0 1 0\nvp 1 1 0\n"
                               "fm 0 1 2\n"
                               "fm 1 3"; /* line 7, 6 characters */
    ossa_error err;
    ossa_model *m = load_text(text, strlen(text), &err);
    assert_non_null(m);
    assert_int_equal(m->num_triangles, 1);
    const ossa_diagnostic *w = truncation_warning(m, strlen(text));
    assert_non_null(w);
    assert_int_equal(w->severity, OSSA_SEVERITY_WARNING);
    assert_int_equal(w->line, 7);
    assert_int_equal(w->column, 7); /* just after the last character */
    assert_int_equal(w->offset, strlen(text));
    assert_non_null(strstr(w->message, "'fm'"));
    ossa_model_free(m);
}

static void newline_at_end_no_warning(void **state)
{
    (void)state;
    static const char *const ok[] = {
        "# Inter-Quake Export\nvp 0 0 0\nvp 1 0 0\nvp 0 1 0\nfm 0 1 2\n",
        "# Inter-Quake Export\nvp 0 0 0\nvp 1 0 0\nvp 0 1 0\nfm 0 1 2\n\n   ", /* blanks */
        "# Inter-Quake Export\r\nvp 0 0 0\r\nvp 1 0 0\r\nvp 0 1 0\r\nfm 0 1 2\r\n",
        /* After 'comment' everything is the comment's text, kept as is. */
        "# Inter-Quake Export\nvp 0 0 0\nvp 1 0 0\nvp 0 1 0\nfm 0 1 2\ncomment\nno newline",
        "# Inter-Quake Export", /* the header alone: no command cut */
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        ossa_error err;
        ossa_model *m = load_text(ok[i], strlen(ok[i]), &err);
        assert_non_null(m);
        if (truncation_warning(m, strlen(ok[i]))) print_error("file %zu warns\n", i);
        assert_null(truncation_warning(m, strlen(ok[i])));
        ossa_model_free(m);
    }
}

static void other_last_lines_warn(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        uint32_t line;
    } cut[] = {
        {"# Inter-Quake Export\nvp 0 0 0\nvp 1 0 0\nvp 0 1 0\nfm 0 1 2", 5},
        {"# Inter-Quake Export\nvp 0 0 0\nvp 1 0 0\nvp 0 1 0\nfm 0 1 2\nvp 1 1", 6},
        {"# Inter-Quake Export\njoint root -1\npq 0 0 0 0 0 0 1\nanimation a\nframe\npq 0 0", 6},
        {"# Inter-Quake Export\nvp 0 0 0\n# a comment cut", 3},
        {"# Inter-Quake Export\nvp 0 0 0\r", 2},
    };
    for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
        ossa_error err;
        ossa_model *m = load_text(cut[i].text, strlen(cut[i].text), &err);
        assert_non_null(m);
        const ossa_diagnostic *w = truncation_warning(m, strlen(cut[i].text));
        if (!w) print_error("file %zu: no warning\n", i);
        assert_non_null(w);
        assert_int_equal(w->line, cut[i].line);
        ossa_model_free(m);
    }
}

/* A small model with every kind of line: each cut of it either fails with
 * a located error, or loads; a load whose last line is cut (no newline
 * after non-blank text) warns once, naming that line, and a load that ends
 * on a newline does not. The expected line is counted here. */
static void every_cut(void **state)
{
    (void)state;
    static const char text[] = "# Inter-Quake Export\n"
                               "joint root -1\n"
                               "pq 0 0 0 0 0 0 1\n"
                               "joint arm 0\n"
                               "pq 0 0 1.5 0 0 0 1\n"
                               "mesh body\n"
                               "material skin\n"
                               "vp 0 0 0\nvt 0 0\nvn 0 0 1\nvb 0 1\n"
                               "vp 1 0 0\nvt 1 0\nvn 0 0 1\nvb 0 0.5 1 0.5\n"
                               "vp 0 1 0\nvt 0 1\nvn 0 0 1\nvb 1 1\n"
                               "vp 1 1 0\nvt 1 1\nvn 0 0 1\nvb 1 1\n"
                               "fm 0 1 2\n"
                               "fm 2 1 3\n"
                               "animation wave\n"
                               "framerate 24\n"
                               "frame\npq 0 0 0 0 0 0 1\npq 0 0 1.5 0.5 0 0 0.8660254\n"
                               "frame\npq 0 0 0 0 0 0 1\npq 0 0 1.5 -0.5 0 0 0.8660254\n";
    size_t n = strlen(text);
    size_t header = strlen("# Inter-Quake Export\n");
    uint32_t loaded = 0, failed = 0, warned = 0;
    for (size_t len = header; len <= n; len++) {
        ossa_error err;
        ossa_model *m = load_text(text, len, &err);
        /* The last line of text[0, len) and whether it is cut. */
        uint32_t line = 1;
        size_t start = 0;
        for (size_t i = 0; i < len; i++)
            if (text[i] == '\n') {
                line++;
                start = i + 1;
            }
        bool cut = start < len; /* every line of this text has content */
        if (!m) {
            failed++;
            assert_true(err.line >= 1 && err.line <= line);
            assert_int_not_equal(err.code, OSSA_ERROR_NOMEM);
            continue;
        }
        loaded++;
        const ossa_diagnostic *w = truncation_warning(m, len);
        if (cut) {
            if (!w) print_error("cut at byte %zu (line %u): no warning\n", len, line);
            assert_non_null(w);
            assert_int_equal(w->line, line);
            assert_int_equal(w->column, len - start + 1);
            warned++;
        } else {
            assert_null(w);
        }
        ossa_model_free(m);
    }
    printf("%u cuts loaded (%u with the warning), %u failed with a located error\n", loaded,
           warned, failed);
    assert_true(warned > 0);
}

/* Cut at a line end inside the vertex data: the last vertex has its 'vp'
 * and not the 'vn' the others have; the error says the file ends early
 * there rather than only that the counts disagree. Counts that disagree
 * elsewhere stay a corrupt file. */
static void cut_in_vertices(void **state)
{
    (void)state;
    static const char text[] = "# Inter-Quake Export\n"
                               "vp 0 0 0\nvn 0 0 1\nvp 1 0 0\nvn 0 0 1\nvp 0 1 0\n";
    ossa_error err;
    assert_null(load_text(text, sizeof text - 1, &err));
    assert_int_equal(err.code, OSSA_ERROR_TRUNCATED);
    assert_int_equal(err.line, 6);
    assert_string_equal(err.message, "the file ends early, inside the vertex data: vertex 2 has 'vp' "
                                     "but no 'vn' line (2 'vn' lines for 3 vertices)");
    static const char middle[] = "# Inter-Quake Export\n"
                                 "vp 0 0 0\nvn 0 0 1\nvp 1 0 0\nvp 0 1 0\nvn 0 0 1\nfm 0 1 2\n";
    assert_null(load_text(middle, sizeof middle - 1, &err));
    assert_int_equal(err.code, OSSA_ERROR_CORRUPT);
    assert_non_null(strstr(err.message, "2 'vn' lines for 3 vertices"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(face_cut_inside),
        cmocka_unit_test(newline_at_end_no_warning),
        cmocka_unit_test(other_last_lines_warn),
        cmocka_unit_test(every_cut),
        cmocka_unit_test(cut_in_vertices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
