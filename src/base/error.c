/* Diagnostics: errors filled for the caller, diagnostics sent to a
 * callback, the names of codes, formatting; the version; ossa_free. */
#include "base/base.h"

#include <stdio.h>

#define STR2(x) #x
#define STR(x) STR2(x)
const char *ossa_version_string(void)
{
    return STR(OSSA_VERSION_MAJOR) "." STR(OSSA_VERSION_MINOR) "." STR(OSSA_VERSION_PATCH);
}

/* ossa__error_set_file marks the struct with this code so that the next
 * failure of the same call keeps the file name; a failure without it (a
 * struct left from an earlier call) starts from an empty name. */
#define FILE_SET ((ossa_code)-1)

static void error_reset(ossa_error *error, ossa_code code)
{
    char file[sizeof error->file] = "";
    if (error->code == FILE_SET) memcpy(file, error->file, sizeof file);
    memset(error, 0, sizeof *error);
    memcpy(error->file, file, sizeof file);
    error->file[sizeof error->file - 1] = 0;
    error->code = code;
    error->severity = OSSA_SEVERITY_ERROR;
    error->offset = OSSA_NO_OFFSET;
}

ossa_status ossa__failv(ossa_error *error, ossa_code code, uint64_t offset, uint32_t line,
                        uint32_t column, const char *fmt, va_list ap)
{
    if (!error) return OSSA_FAILED;
    error_reset(error, code);
    error->offset = offset;
    error->line = line;
    error->column = column;
    vsnprintf(error->message, sizeof error->message, fmt, ap);
    return OSSA_FAILED;
}

ossa_status ossa__fail(ossa_error *error, ossa_code code, uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ossa__failv(error, code, offset, 0, 0, fmt, ap);
    va_end(ap);
    return OSSA_FAILED;
}

ossa_status ossa__fail_line(ossa_error *error, ossa_code code, uint32_t line, uint32_t column,
                            const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ossa__failv(error, code, OSSA_NO_OFFSET, line, column, fmt, ap);
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
    bool failed = error->code != OSSA_CODE_NONE && error->code != FILE_SET;
    snprintf(error->file, sizeof error->file, "%s", file ? file : "");
    /* Naming the file of an error already filled keeps the error. */
    if (!failed) error->code = FILE_SET;
}

void ossa__error_begin(ossa_error *error, const char *file)
{
    if (!error) return;
    memset(error, 0, sizeof *error);
    ossa__error_set_file(error, file);
}

void ossa__error_clear(ossa_error *error)
{
    if (error) memset(error, 0, sizeof *error);
}

void ossa__reportv(ossa_diagnostic_fn fn, void *user, ossa_severity severity, ossa_code code,
                    const char *fmt, va_list ap)
{
    ossa_diagnostic d;
    memset(&d, 0, sizeof d);
    d.code = code;
    d.severity = severity;
    d.offset = OSSA_NO_OFFSET;
    vsnprintf(d.message, sizeof d.message, fmt, ap);
    fn(user, &d);
}

void ossa__report(ossa_diagnostic_fn fn, void *user, ossa_severity severity, ossa_code code,
                  const char *fmt, ...)
{
    if (!fn) return;
    va_list ap;
    va_start(ap, fmt);
    ossa__reportv(fn, user, severity, code, fmt, ap);
    va_end(ap);
}

void ossa_free(void *data, const ossa_allocator *allocator)
{
    ossa__free(allocator, data, 0);
}

const char *ossa_code_name(ossa_code code)
{
    switch (code) {
    case OSSA_CODE_NONE: return "none";
    case OSSA_ERROR_IO: return "io";
    case OSSA_ERROR_NOMEM: return "nomem";
    case OSSA_ERROR_FORMAT: return "format";
    case OSSA_ERROR_TRUNCATED: return "truncated";
    case OSSA_ERROR_CORRUPT: return "corrupt";
    case OSSA_ERROR_UNSUPPORTED: return "unsupported";
    case OSSA_ERROR_ARGUMENT: return "argument";
    case OSSA_ERROR_MISMATCH: return "mismatch";
    case OSSA_ERROR_ACCESS: return "access";
    case OSSA_ERROR_EXISTS: return "exists";
    case OSSA_WARNING_IGNORED: return "ignored";
    case OSSA_WARNING_DROPPED: return "dropped";
    case OSSA_WARNING_REPAIRED: return "repaired";
    case OSSA_WARNING_INCONSISTENT: return "inconsistent";
    case OSSA_WARNING_NONSTANDARD: return "nonstandard";
    case OSSA_WARNING_TRUNCATED: return "truncated-input";
    case OSSA_WARNING_LIMITED: return "limited";
    case OSSA_WARNING_RENAMED: return "renamed";
    case OSSA_PROBLEM_PARENT_ORDER: return "parent-order";
    case OSSA_PROBLEM_BIND_NOT_FINITE: return "bind-not-finite";
    case OSSA_PROBLEM_ROTATION_NORM: return "rotation-norm";
    case OSSA_PROBLEM_DUPLICATE_NAME: return "duplicate-name";
    case OSSA_PROBLEM_ARRAY_FORMAT: return "array-format";
    case OSSA_PROBLEM_NOT_FINITE: return "not-finite";
    case OSSA_PROBLEM_BLEND_PAIR: return "blend-pair";
    case OSSA_PROBLEM_BLEND_INDEX: return "blend-index";
    case OSSA_PROBLEM_BLEND_NEGATIVE: return "blend-negative";
    case OSSA_PROBLEM_BLEND_SUM: return "blend-sum";
    case OSSA_PROBLEM_UBYTE_SUM: return "ubyte-sum";
    case OSSA_PROBLEM_NO_WEIGHT: return "no-weight";
    case OSSA_PROBLEM_TRIANGLE_INDEX: return "triangle-index";
    case OSSA_PROBLEM_DEGENERATE: return "degenerate";
    case OSSA_PROBLEM_MESH_RANGE: return "mesh-range";
    case OSSA_PROBLEM_MESH_VERTEX: return "mesh-vertex";
    case OSSA_PROBLEM_BOUNDS: return "bounds";
    case OSSA_PROBLEM_BOUNDS_LOOSE: return "bounds-loose";
    case OSSA_PROBLEM_FRAMERATE: return "framerate";
    case OSSA_PROBLEM_NO_FRAMES: return "no-frames";
    case OSSA_PROBLEM_POSE_NOT_FINITE: return "pose-not-finite";
    case OSSA_PROBLEM_POSE_ROTATION: return "pose-rotation";
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
