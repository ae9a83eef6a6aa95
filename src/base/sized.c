/* Option structs that start with their size (ossa.h, "Option structs"). */
#include "base/base.h"

ossa_status ossa__copy_sized(void *dst, size_t dst_size, const void *src, size_t first_size,
                             const char *what, ossa_error *error)
{
    memset(dst, 0, dst_size);
    if (!src) return OSSA_OK;
    uint32_t given;
    memcpy(&given, src, sizeof given);
    size_t n = given ? given : first_size;
    if (n < sizeof given || n > ((size_t)1 << 16))
        return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                          "%s: struct_size %u is not the size of any version of it", what, given);
    /* A newer program's struct: what this library does not know must be
     * zero (unset), else the call would silently ignore it. */
    for (size_t i = dst_size; i < n; i++)
        if (((const unsigned char *)src)[i])
            return ossa__fail(error, OSSA_ERROR_ARGUMENT, OSSA_NO_OFFSET,
                              "%s: set fields this version of ossa does not know (%u bytes given, "
                              "%zu known)", what, given, dst_size);
    memcpy(dst, src, n < dst_size ? n : dst_size);
    return OSSA_OK;
}
