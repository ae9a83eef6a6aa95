/* Format options ("fbx.keep_units=on"): checked once per load or write
 * against the format's table, then read by the module that owns them. */
#ifndef OSSA_FORMAT_OPTIONS_H
#define OSSA_FORMAT_OPTIONS_H

#include "core/internal.h"

typedef struct ossa_format_ops ossa_format_ops;

/* Fails with OSSA_ERROR_ARGUMENT on the first option of `ops`'s family
 * that its table (load or write) lacks or whose value is not of its type,
 * and on a name whose family is no format's (family_exists says which
 * are; the format table's ossa__format_family_exists). Options of other
 * families pass unread. */
ossa_status ossa__options_check(const ossa_format_ops *ops, bool writing, const ossa_option *options,
                                uint32_t count, bool (*family_exists)(const char *name, size_t n),
                                ossa_error *error);
/* Whether a[0..n) equals the string b, ignoring ASCII case. */
bool ossa__option_word_equal(const char *a, size_t n, const char *b);

/* The value last given for `name`, NULL when absent ("on" for a NULL
 * value). The readers below assume ossa__options_check passed. */
const char *ossa__option_value(const ossa_option *options, uint32_t count, const char *name);
/* A switch: false when absent. */
bool ossa__option_on(const ossa_option *options, uint32_t count, const char *name);
/* A choice: the index of its word in `choices` (space-separated, as in
 * the table), 0 (the default) when absent. */
uint32_t ossa__option_choice(const ossa_option *options, uint32_t count, const char *name,
                             const char *choices);
/* A number: `fallback` when absent. */
double ossa__option_number(const ossa_option *options, uint32_t count, const char *name,
                           double fallback);

/* The arguments of the readers above for load or write options. */
#define OSSA__OPTIONS(o) (o)->format_options, (o)->num_format_options

#endif
