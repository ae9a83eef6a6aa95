/* Format options: the check against the format tables, the readers, and
 * the public list (ossa_format_options). */
#include "formats/options.h"

#include "formats/format.h"
#include "text/text.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>

bool ossa__option_word_equal(const char *a, size_t n, const char *b)
{
    if (strlen(b) != n) return false;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i])) return false;
    return true;
}

static const char *const switch_on[] = {"on", "1", "true", "yes"};
static const char *const switch_off[] = {"off", "0", "false", "no"};

/* 1 for on, 0 for off, -1 for anything else. */
static int switch_value(const char *v)
{
    for (size_t i = 0; i < sizeof switch_on / sizeof *switch_on; i++) {
        if (ossa__option_word_equal(v, strlen(v), switch_on[i])) return 1;
        if (ossa__option_word_equal(v, strlen(v), switch_off[i])) return 0;
    }
    return -1;
}

/* The index of `v` among the space-separated words of `choices`, or -1. */
static int choice_index(const char *v, const char *choices)
{
    int index = 0;
    for (const char *p = choices; *p; index++) {
        while (*p == ' ') p++;
        const char *end = p;
        while (*end && *end != ' ') end++;
        if (end > p && ossa__option_word_equal(p, (size_t)(end - p), v)) return index;
        p = end;
    }
    return -1;
}

static bool number_value(const char *v, double *out)
{
    const char *end = v + strlen(v);
    const char *p = ossa__text_parse_double(v, end, out);
    return p == end && end > v && isfinite(*out);
}

/* The family of an option name: the part before its first dot. */
static size_t family_length(const char *name)
{
    const char *dot = strchr(name, '.');
    return dot ? (size_t)(dot - name) : 0;
}

static const ossa_option_info *find_info(const ossa_option_info *table, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (ossa__option_word_equal(name, strlen(name), table[i].name)) return &table[i];
    return NULL;
}

/* "a, b or c": the names of a table for a message. */
static void list_names(const ossa_option_info *table, uint32_t n, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = 0;
    for (uint32_t i = 0; i < n && len < cap; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
                                table[i].name);
}

static ossa_status check_one(const ossa_option *o, const ossa_option_info *table, uint32_t n,
                             const char *what, ossa_error *error)
{
    const ossa_option_info *info = find_info(table, n, o->name);
    if (!info) {
        char names[400];
        list_names(table, n, names, sizeof names);
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "option '%s': %s has no such option%s%s%s", o->name, what,
                          n ? " (it has " : "", n ? names : "", n ? ")" : "");
    }
    const char *v = o->value ? o->value : "on";
    switch (info->type) {
    case OSSA_OPTION_SWITCH:
        if (switch_value(v) >= 0) return OSSA_OK;
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "option '%s' is on or off, not '%s'", o->name, v);
    case OSSA_OPTION_CHOICE:
        if (choice_index(v, info->choices) >= 0) return OSSA_OK;
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "option '%s' is one of %s, not '%s'", o->name, info->choices, v);
    case OSSA_OPTION_NUMBER: {
        double d;
        if (number_value(v, &d)) return OSSA_OK;
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "option '%s' wants a number, not '%s'", o->name, v);
    }
    }
    return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET, "option '%s' has no type", o->name);
}

ossa_status ossa__options_check(const ossa_format_ops *ops, bool writing, const ossa_option *options,
                                uint32_t count, bool (*family_exists)(const char *name, size_t n),
                                ossa_error *error)
{
    if (count && !options)
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "%u format options announced but none given", count);
    for (uint32_t i = 0; i < count; i++) {
        const ossa_option *o = &options[i];
        size_t n = o->name ? family_length(o->name) : 0;
        if (!n)
            return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                              "option '%s' does not name its format (FORMAT.NAME)",
                              o->name ? o->name : "(null)");
        if (!family_exists(o->name, n))
            return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                              "option '%s': no format is called '%.*s'", o->name, (int)n, o->name);
        if (!ops->option_family || !ossa__option_word_equal(o->name, n, ops->option_family)) continue;
        const ossa_option_info *table = writing ? ops->write_options : ops->load_options;
        uint32_t entries = writing ? ops->num_write_options : ops->num_load_options;
        char what[64];
        snprintf(what, sizeof what, "%s %s", writing ? "writing" : "reading", ops->name);
        if (check_one(o, table, entries, what, error)) return OSSA_FAILED;
    }
    return OSSA_OK;
}

const char *ossa__option_value(const ossa_option *options, uint32_t count, const char *name)
{
    for (uint32_t i = count; i-- > 0;)
        if (options[i].name && ossa__option_word_equal(options[i].name, strlen(options[i].name), name))
            return options[i].value ? options[i].value : "on";
    return NULL;
}

bool ossa__option_on(const ossa_option *options, uint32_t count, const char *name)
{
    const char *v = ossa__option_value(options, count, name);
    return v && switch_value(v) == 1;
}

uint32_t ossa__option_choice(const ossa_option *options, uint32_t count, const char *name,
                             const char *choices)
{
    const char *v = ossa__option_value(options, count, name);
    int index = v ? choice_index(v, choices) : 0;
    return index > 0 ? (uint32_t)index : 0;
}

double ossa__option_number(const ossa_option *options, uint32_t count, const char *name,
                           double fallback)
{
    const char *v = ossa__option_value(options, count, name);
    double d;
    return v && number_value(v, &d) ? d : fallback;
}
