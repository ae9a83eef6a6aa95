/* Error and warning reporting. */
#include "core/internal.h"

#include <stdio.h>

const char *ossa_version_string(void) { return "0.1.0"; }

static void error_reset(ossa_error *error, ossa_error_kind kind)
{
    char file[sizeof error->file];
    memcpy(file, error->file, sizeof file); /* a caller-set file name survives */
    memset(error, 0, sizeof *error);
    memcpy(error->file, file, sizeof file);
    error->file[sizeof error->file - 1] = 0;
    error->kind = kind;
    error->offset = OSSA_NO_OFFSET;
}

ossa_status ossa__fail(ossa_error *error, ossa_error_kind kind, uint64_t offset, const char *fmt, ...)
{
    if (!error) return OSSA_FAILED;
    error_reset(error, kind);
    error->offset = offset;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error->message, sizeof error->message, fmt, ap);
    va_end(ap);
    return OSSA_FAILED;
}

ossa_status ossa__fail_line(ossa_error *error, ossa_error_kind kind, uint32_t line, uint32_t column,
                            const char *fmt, ...)
{
    if (!error) return OSSA_FAILED;
    error_reset(error, kind);
    error->line = line;
    error->column = column;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error->message, sizeof error->message, fmt, ap);
    va_end(ap);
    return OSSA_FAILED;
}

ossa_status ossa__fail_nomem(ossa_error *error)
{
    return ossa__fail(error, OSSA_ERROR_NOMEM, OSSA_NO_OFFSET, "out of memory");
}

void ossa__error_set_file(ossa_error *error, const char *file)
{
    if (!error) return;
    snprintf(error->file, sizeof error->file, "%s", file ? file : "");
}

void ossa__warn(ossa_model *model, uint64_t offset, uint32_t line, uint32_t column, const char *fmt, ...)
{
    ossa_model_internal *in = model->internal;
    ossa_warning *w = ossa__arena_grow(&in->arena, model->warnings, model->num_warnings,
                                       &in->cap_warnings, sizeof *w);
    if (!w) return;
    model->warnings = w;
    ossa_warning *n = &w[model->num_warnings++];
    n->offset = offset;
    n->line = line;
    n->column = column;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(n->message, sizeof n->message, fmt, ap);
    va_end(ap);
}

const char *ossa_error_kind_name(ossa_error_kind kind)
{
    switch (kind) {
    case OSSA_ERROR_NONE: return "none";
    case OSSA_ERROR_IO: return "io";
    case OSSA_ERROR_NOMEM: return "nomem";
    case OSSA_ERROR_FORMAT: return "format";
    case OSSA_ERROR_TRUNCATED: return "truncated";
    case OSSA_ERROR_CORRUPT: return "corrupt";
    case OSSA_ERROR_UNSUPPORTED: return "unsupported";
    case OSSA_ERROR_ARGUMENT: return "argument";
    case OSSA_ERROR_MISMATCH: return "mismatch";
    }
    return "unknown";
}

const char *ossa_error_format(const ossa_error *error, char *buf, size_t size)
{
    if (!buf || !size) return buf;
    const char *file = error->file[0] ? error->file : "<memory>";
    if (error->line)
        snprintf(buf, size, "%s:%u:%u: %s", file, error->line, error->column, error->message);
    else if (error->offset != OSSA_NO_OFFSET)
        snprintf(buf, size, "%s:byte %llu: %s", file, (unsigned long long)error->offset,
                 error->message);
    else
        snprintf(buf, size, "%s: %s", file, error->message);
    return buf;
}
