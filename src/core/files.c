/* Files for readers and writers: whole-file reads of sibling files, and
 * atomic writes of one or several files (temporaries beside the targets,
 * then renames). */
#include "core/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static ossa_status write_all(int fd, const unsigned char *p, size_t n, ossa_error *error)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "write failed: %s",
                              strerror(errno));
        }
        p += w;
        n -= (size_t)w;
    }
    return OSSA_OK;
}

/* Creates "PATH.tmp.XXXXXXXX" exclusively with mode 0666 (the umask
 * applies, as for any new file; mkstemp would force 0600). The suffix mixes
 * the pid, the time and an address so that threads and processes writing
 * beside each other do not collide; EEXIST retries. */
static int open_temp(const char *path, char *tmp, size_t cap)
{
    uint64_t seed = (uint64_t)getpid() * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uintptr_t)tmp ^
                    (uint64_t)time(NULL) * 0xBF58476D1CE4E5B9ull;
    for (int attempt = 0; attempt < 100; attempt++) {
        seed ^= seed >> 31;
        seed *= 0x94D049BB133111EBull;
        seed ^= seed >> 29;
        snprintf(tmp, cap, "%s.tmp.%08x", path, (unsigned)(seed & 0xffffffffu));
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST) return fd;
        seed += (uint64_t)attempt + 1;
    }
    return -1;
}

ossa_status ossa__write_files_atomic(const ossa_output_file *files, size_t count,
                                     const ossa_write_options *options, ossa_error *error)
{
    /* Every file goes to a temporary beside its target first; only when
     * all are complete are they renamed into place, so a failure leaves no
     * partial output and no target touched. */
    char **tmps = calloc(count + 1, sizeof *tmps);
    if (!tmps) return ossa__fail_nomem(error);
    ossa_status st = OSSA_OK;
    for (size_t i = 0; i < count && !st; i++) {
        const char *path = files[i].path;
        ossa__error_set_file(error, path);
        size_t cap = strlen(path) + 32;
        tmps[i] = malloc(cap);
        if (!tmps[i]) {
            st = ossa__fail_nomem(error);
            break;
        }
        int fd = open_temp(path, tmps[i], cap);
        if (fd < 0) {
            st = ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET,
                            "cannot create a temporary file: %s", strerror(errno));
            free(tmps[i]);
            tmps[i] = NULL;
            break;
        }
        st = write_all(fd, files[i].data, files[i].size, error);
        if (close(fd) != 0 && st == OSSA_OK)
            st = ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "close failed: %s",
                            strerror(errno));
    }
    for (size_t i = 0; i < count && !st; i++) {
        if (rename(tmps[i], files[i].path) != 0) {
            ossa__error_set_file(error, files[i].path);
            st = ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "cannot rename into place: %s",
                            strerror(errno));
            break;
        }
        free(tmps[i]);
        tmps[i] = NULL;
    }
    for (size_t i = 0; i < count; i++) {
        if (tmps[i]) unlink(tmps[i]);
        free(tmps[i]);
    }
    free(tmps);
    if (!st) ossa__error_clear(error);
    for (size_t i = 0; i < count && !st && options && options->wrote; i++)
        options->wrote(options->user, files[i].path);
    return st;
}

ossa_status ossa__read_file(const char *path, const ossa_allocator *allocator, unsigned char **data,
                            size_t *size, ossa_error *error)
{
    *data = NULL;
    *size = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "cannot open '%s': %s", path,
                          strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size >= SIZE_MAX) {
        close(fd);
        return ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "'%s' is not a regular file", path);
    }
    size_t n = (size_t)st.st_size;
    unsigned char *buf = ossa__alloc(allocator, n + 1);
    if (!buf) {
        close(fd);
        return ossa__fail_nomem(error);
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd);
    if (got != n) {
        ossa__free(allocator, buf, n + 1);
        return ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "cannot read '%s'", path);
    }
    buf[n] = 0;
    *data = buf;
    *size = n;
    return OSSA_OK;
}

size_t ossa__sibling_path(const char *base, const char *name, char *out, size_t cap)
{
    const char *slash = base ? strrchr(base, '/') : NULL;
    size_t dir = (slash && name[0] != '/') ? (size_t)(slash - base + 1) : 0;
    return (size_t)snprintf(out, cap, "%.*s%s", (int)dir, base ? base : "", name);
}
