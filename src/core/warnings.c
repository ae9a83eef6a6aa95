/* Warnings kept in a model, and the writers' warnings and notes sent to
 * the write options' callback. */
#include "core/internal.h"

#include <stdio.h>

void ossa__warnv(ossa_model *model, ossa_code code, uint64_t offset, uint32_t line,
                 uint32_t column, const char *fmt, va_list ap)
{
    ossa_model_internal *in = model->internal;
    ossa_diagnostic *w = ossa__arena_grow(&in->arena, model->warnings, model->num_warnings,
                                          &in->cap_warnings, sizeof *w);
    if (!w) return;
    model->warnings = w;
    ossa_diagnostic *n = &w[model->num_warnings++];
    memset(n, 0, sizeof *n);
    n->code = code;
    n->severity = OSSA_SEVERITY_WARNING;
    n->offset = offset;
    n->line = line;
    n->column = column;
    vsnprintf(n->message, sizeof n->message, fmt, ap);
}

void ossa__warn(ossa_model *model, ossa_code code, uint64_t offset, uint32_t line,
                uint32_t column, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ossa__warnv(model, code, offset, line, column, fmt, ap);
    va_end(ap);
}

void ossa__write_warn(const ossa_write_options *options, ossa_code code, const char *fmt, ...)
{
    if (!options || !options->diagnostic) return;
    va_list ap;
    va_start(ap, fmt);
    ossa__reportv(options->diagnostic, options->user, OSSA_SEVERITY_WARNING, code, fmt, ap);
    va_end(ap);
}

void ossa__write_note(const ossa_write_options *options, const char *fmt, ...)
{
    if (!options || !options->diagnostic) return;
    va_list ap;
    va_start(ap, fmt);
    ossa__reportv(options->diagnostic, options->user, OSSA_SEVERITY_NOTE, OSSA_CODE_NONE, fmt, ap);
    va_end(ap);
}
