/* Files: whole-file reads, paths relative to a file, and atomic writes of
 * one or several files (temporaries beside the targets, then renames). */
#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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

/* Why a file cannot be created at `path`: its directory is missing or is
 * not a directory (a clearer message than the failed temporary's). */
static ossa_status explain_create_failure(const char *path, int err, ossa_error *error)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash == path ? 1 : slash - path), path);
    else
        snprintf(dir, sizeof dir, ".");
    struct stat st;
    if (err == ENOENT && stat(dir, &st) != 0)
        return ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "the directory '%s' does not exist",
                          dir);
    if (err == ENOTDIR)
        return ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "'%s' is not a directory", dir);
    return ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "cannot create a file in '%s': %s", dir,
                      strerror(err));
}

/* What is at a target: nothing or a regular file (replaced by a rename),
 * or something that must never be replaced: a device or a FIFO (written
 * into directly) or a directory (refused). */
enum { TARGET_REPLACE, TARGET_DIRECT };

static ossa_status check_target(const char *path, int *kind, ossa_error *error)
{
    struct stat st;
    *kind = TARGET_REPLACE;
    if (stat(path, &st) != 0) return OSSA_OK;
    if (S_ISDIR(st.st_mode))
        return ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET,
                          "the output '%s' is a directory; name a file", path);
    if (!S_ISREG(st.st_mode)) *kind = TARGET_DIRECT;
    return OSSA_OK;
}

/* With no_replace, a write of several files replaces none:
 * the first few that exist are named, the error is about the main file. */
static ossa_status refuse_existing(const ossa_output_file *files, size_t count, ossa_error *error)
{
    char list[200] = "";
    size_t found = 0, used = 0;
    for (size_t i = 0; i < count; i++) {
        struct stat st;
        if (lstat(files[i].path, &st) != 0) continue;
        if (found++ < 3 && used < sizeof list) {
            int n = snprintf(list + used, sizeof list - used, "%s%s", found > 1 ? ", " : "",
                             files[i].path);
            used += n > 0 ? (size_t)n : 0;
        }
    }
    if (!found) return OSSA_OK;
    ossa__error_set_file(error, files[0].path);
    char more[32] = "";
    if (found > 3) snprintf(more, sizeof more, " and %zu more", found - 3);
    return ossa__fail(error, OSSA_ERROR_EXISTS, OSSA_NO_OFFSET,
                      "%s%s already exist%s; of the %zu files of this output, none is replaced",
                      list, more, found == 1 ? "s" : "", count);
}

static ossa_status write_direct(const char *path, const ossa_output_file *file, ossa_error *error)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "cannot open for writing: %s",
                          strerror(errno));
    ossa_status st = write_all(fd, file->data, file->size, error);
    if (close(fd) != 0 && st == OSSA_OK)
        st = ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "close failed: %s", strerror(errno));
    return st;
}

ossa_status ossa__write_files(const ossa_output_file *files, size_t count,
                              const ossa_file_writing *how, ossa_error *error)
{
    if (how && how->no_replace && refuse_existing(files, count, error))
        return OSSA_FAILED;
    /* Every file goes to a temporary beside its target first; only when
     * all are complete are they renamed into place, so a failure leaves no
     * partial output and no target touched. Devices and FIFOs are written
     * into (after the temporaries, before the renames): replacing them
     * with a regular file (as root, /dev/full) would break the system. */
    const ossa_allocator *alloc = how ? how->allocator : NULL;
    char **tmps = ossa__alloc(alloc, (count + 1) * sizeof *tmps);
    int *kinds = ossa__alloc(alloc, (count + 1) * sizeof *kinds);
    if (!tmps || !kinds) {
        ossa__free(alloc, tmps, 0);
        ossa__free(alloc, kinds, 0);
        return ossa__fail_nomem(error);
    }
    for (size_t i = 0; i <= count; i++) {
        tmps[i] = NULL;
        kinds[i] = TARGET_REPLACE;
    }
    ossa_status st = OSSA_OK;
    for (size_t i = 0; i < count && !st; i++) {
        const char *path = files[i].path;
        ossa__error_set_file(error, path);
        st = check_target(path, &kinds[i], error);
        if (st || kinds[i] == TARGET_DIRECT) continue;
        size_t cap = strlen(path) + 32;
        tmps[i] = ossa__alloc(alloc, cap);
        if (!tmps[i]) {
            st = ossa__fail_nomem(error);
            break;
        }
        int fd = open_temp(path, tmps[i], cap);
        if (fd < 0) {
            st = explain_create_failure(path, errno, error);
            ossa__free(alloc, tmps[i], cap);
            tmps[i] = NULL;
            break;
        }
        st = write_all(fd, files[i].data, files[i].size, error);
        if (close(fd) != 0 && st == OSSA_OK)
            st = ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "close failed: %s",
                            strerror(errno));
    }
    for (size_t i = 0; i < count && !st; i++) {
        if (kinds[i] != TARGET_DIRECT) continue;
        ossa__error_set_file(error, files[i].path);
        st = write_direct(files[i].path, &files[i], error);
    }
    for (size_t i = 0; i < count && !st; i++) {
        if (kinds[i] == TARGET_DIRECT) continue;
        if (rename(tmps[i], files[i].path) != 0) {
            ossa__error_set_file(error, files[i].path);
            st = ossa__fail(error, OSSA_ERROR_IO, OSSA_NO_OFFSET, "cannot rename into place: %s",
                            strerror(errno));
            break;
        }
        ossa__free(alloc, tmps[i], 0);
        tmps[i] = NULL;
    }
    for (size_t i = 0; i < count; i++) {
        if (tmps[i]) unlink(tmps[i]);
        ossa__free(alloc, tmps[i], 0);
    }
    ossa__free(alloc, tmps, 0);
    ossa__free(alloc, kinds, 0);
    if (!st) ossa__error_clear(error);
    for (size_t i = 0; i < count && !st && how && how->wrote; i++)
        how->wrote(how->user, files[i].path);
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

/* -- Files that a loaded file names ------------------------------------------ */

bool ossa__reference_is_inside(const char *name)
{
    if (!name[0] || name[0] == '/' || name[0] == '\\') return false;
    if (((name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z')) && name[1] == ':')
        return false; /* "C:..." means another drive to Windows tools */
    long depth = 0;
    for (const char *p = name; *p;) {
        size_t n = strcspn(p, "/\\");
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (--depth < 0) return false;
        } else if (n && !(n == 1 && p[0] == '.')) {
            depth++;
        }
        p += n;
        if (*p) p++;
    }
    return true;
}

const char *ossa__image_mime(const void *data, size_t size)
{
    const unsigned char *p = data;
    if (size >= 8 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0) return "image/png";
    if (size >= 3 && p[0] == 0xFF && p[1] == 0xD8 && p[2] == 0xFF) return "image/jpeg";
    return NULL;
}
