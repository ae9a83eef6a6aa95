/* Format options on the command line: every option of every format's
 * table is also a flag, its name with '-' for '.' and '_' ("fbx.keep_units"
 * is --fbx-keep-units; a switch takes no value, or =on/=off; the others
 * take one: --obj-axes blender), and -O / --option NAME=VALUE names one
 * directly; -W / --write-option NAME=VALUE names one for writing only (an
 * option both sides know, such as ill.encoding, otherwise applies to the
 * inputs too). A few older spellings stay as aliases. */
#include "cli.h"

#include <string.h>
#include <strings.h>

/* Older flags, kept for scripts that use them. */
static const struct {
    const char *flag, *name, *value;
} aliases[] = {
    {"--ill-text", "ill.encoding", "text"},     {"--ill-binary", "ill.encoding", "binary"},
    {"--md5-fix", "ill.md5_fix", "on"},         {"--no-md5-fix", "ill.md5_fix", "off"},
    {"--nto-swap-size", "sotc.nto_width", "high"}, {"--obj-blender-axes", "obj.axes", "blender"},
};

/* Whether `flag` (len bytes, after "--") spells option `name`. */
static int spells(const char *flag, size_t len, const char *name)
{
    if (strlen(name) != len) return 0;
    for (size_t i = 0; i < len; i++) {
        char c = name[i] == '.' || name[i] == '_' ? '-' : name[i];
        if (flag[i] != c) return 0;
    }
    return 1;
}

/* The table entry of a format option called `name` (writing or not), and
 * whether it exists; `spelled` compares flag spellings instead. */
static const ossa_option_info *find(const char *name, size_t len, int writing, int spelled)
{
    ossa_format ids[64];
    uint32_t n = ossa_format_list(ids, 64);
    for (uint32_t i = 0; i < n && i < 64; i++) {
        const ossa_option_info *table;
        uint32_t count = ossa_format_options(ids[i], writing, &table);
        for (uint32_t k = 0; k < count; k++)
            if (spelled ? spells(name, len, table[k].name)
                        : strlen(table[k].name) == len && memcmp(table[k].name, name, len) == 0)
                return &table[k];
    }
    return NULL;
}

/* Whether `value` (NULL = on) is a word of the space-separated `words`. */
static int is_word(const char *value, const char *words)
{
    size_t n = strlen(value);
    for (const char *p = words; *p;) {
        while (*p == ' ') p++;
        size_t len = strcspn(p, " ");
        if (len && len == n && strncasecmp(p, value, n) == 0) return 1;
        p += len;
    }
    return 0;
}

/* A usage error (exit 2) for a value the option cannot take, before the
 * library would refuse it as bad input. */
static int check_value(const char *command, const ossa_option_info *info, const char *value)
{
    double d;
    const char *v = value ? value : "on";
    switch (info->type) {
    case OSSA_OPTION_SWITCH:
        if (is_word(v, "on off 1 0 true false yes no")) return 0;
        return cli_usage_error(command, "option '%s' is on or off, not '%s'", info->name, v);
    case OSSA_OPTION_CHOICE:
        if (is_word(v, info->choices)) return 0;
        return cli_usage_error(command, "option '%s' is one of %s, not '%s'", info->name,
                               info->choices, v);
    case OSSA_OPTION_NUMBER:
        if (cli_parse_number(v, &d)) return 0;
        return cli_usage_error(command, "option '%s' wants a number, not '%s'", info->name, v);
    }
    return 0;
}

static int same_value(const char *a, const char *b)
{
    return strcmp(a ? a : "on", b ? b : "on") == 0;
}

static int add(cli_args *args, const char *command, const char *name, const char *value,
               int for_load, int for_write)
{
    /* Two different values would leave one silently ignored, as for the
     * other options. */
    const ossa_option *given = for_load ? args->load_options : args->write_options;
    uint32_t n = for_load ? args->num_load_options : args->num_write_options;
    for (uint32_t i = 0; i < n; i++)
        if (given[i].name == name && !same_value(given[i].value, value))
            return cli_usage_error(command, "option '%s' given twice", name);
    if ((for_load && args->num_load_options >= CLI_MAX_FORMAT_OPTIONS) ||
        (for_write && args->num_write_options >= CLI_MAX_FORMAT_OPTIONS))
        return cli_usage_error(command, "more than %d format options", CLI_MAX_FORMAT_OPTIONS);
    if (for_load) args->load_options[args->num_load_options++] = (ossa_option){name, value};
    if (for_write) args->write_options[args->num_write_options++] = (ossa_option){name, value};
    return 0;
}

int cli_format_flag(cli_args *args, const char *command, const char *arg, const char *next,
                    int *used_next)
{
    *used_next = 0;
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
        if (strlen(aliases[i].flag) == len && memcmp(aliases[i].flag, arg, len) == 0) {
            if (eq) return cli_usage_error(command, "option '%s' takes no argument", aliases[i].flag);
            return add(args, command, aliases[i].name, aliases[i].value, 1,
                       find(aliases[i].name, strlen(aliases[i].name), 1, 0) != NULL);
        }
    const char *name, *value = eq ? eq + 1 : NULL;
    const ossa_option_info *in, *out;
    size_t name_len;
    int write_only = (len == 2 && memcmp(arg, "-W", 2) == 0) ||
                      (len == 14 && memcmp(arg, "--write-option", 14) == 0) ||
                      (len > 2 && memcmp(arg, "-W", 2) == 0);
    if ((len == 2 && memcmp(arg, "-O", 2) == 0) || (len == 8 && memcmp(arg, "--option", 8) == 0) ||
        (len > 2 && memcmp(arg, "-O", 2) == 0 && arg[1] == 'O') || write_only) {
        /* -O NAME=VALUE, -ONAME=VALUE, --option NAME=VALUE; -W and
         * --write-option alike */
        const char *spec = (arg[1] == 'O' || arg[1] == 'W') && arg[2] ? arg + 2 : eq ? eq + 1 : next;
        if (!spec) return cli_usage_error(command, "option '%.*s' needs NAME=VALUE", (int)len, arg);
        if (spec == next) *used_next = 1;
        const char *e = strchr(spec, '=');
        name = spec;
        name_len = e ? (size_t)(e - spec) : strlen(spec);
        value = e ? e + 1 : NULL;
        in = write_only ? NULL : find(name, name_len, 0, 0);
        out = find(name, name_len, 1, 0);
        if (!in && !out)
            return cli_usage_error(command, "no format has %s option '%.*s' (ossa formats lists them)",
                                   write_only ? "a writing" : "an", (int)name_len, name);
    } else {
        if (len < 3 || arg[1] != '-') return -1;
        in = find(arg + 2, len - 2, 0, 1);
        out = find(arg + 2, len - 2, 1, 1);
        if (!in && !out) return -1;
        const ossa_option_info *info = in ? in : out;
        if (!value && info->type != OSSA_OPTION_SWITCH) {
            if (!next) return cli_usage_error(command, "option '%.*s' needs an argument", (int)len, arg);
            value = next;
            *used_next = 1;
        }
    }
    const ossa_option_info *info = in ? in : out;
    if (check_value(command, info, value)) return CLI_EXIT_USAGE;
    /* The table's name: static, so the option outlives the arguments. */
    return add(args, command, info->name, value, in != NULL, out != NULL);
}
