/*
 * Replays fuzz inputs without libFuzzer: calls LLVMFuzzerTestOneInput once
 * for every file named on the command line and for every regular file
 * directly inside every directory named there. Linked with one fuzz_*.c it
 * makes a plain program that any compiler builds, so ctest can run the
 * committed corpora (and past crash files) under ASan/UBSan.
 *
 * Each input is copied into a buffer of exactly its size, so a read one byte
 * past the end is caught by ASan as it would be under libFuzzer.
 *
 * Exit status: 0 when every input ran, 1 when one could not be read, 2 on
 * bad usage. A crash in the target ends the program, as it should.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Optional in a fuzz target; weak so that targets without it still link. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return 1;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || st.st_size < 0) {
        fprintf(stderr, "replay: %s: cannot stat\n", path);
        fclose(f);
        return 1;
    }
    size_t size = (size_t)st.st_size;
    /* malloc(0) may return NULL; libFuzzer passes a valid pointer. */
    uint8_t *data = malloc(size ? size : 1);
    if (!data || fread(data, 1, size, f) != size) {
        fprintf(stderr, "replay: %s: read failed\n", path);
        free(data);
        fclose(f);
        return 1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 0;
}

static int replay_dir(const char *path, unsigned long *count)
{
    DIR *dir = opendir(path);
    if (!dir) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return 1;
    }
    int failed = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        if (entry->d_name[0] == '.')
            continue; /* ".", "..", and hidden files such as .gitkeep */
        size_t len = strlen(path) + strlen(entry->d_name) + 2;
        char *full = malloc(len);
        if (!full) {
            failed = 1;
            break;
        }
        snprintf(full, len, "%s/%s", path, entry->d_name);
        struct stat st;
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode)) {
            failed |= replay_file(full);
            ++*count;
        }
        free(full);
    }
    closedir(dir);
    return failed;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);

    int failed = 0;
    unsigned long count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            failed |= replay_dir(argv[i], &count);
        } else {
            failed |= replay_file(argv[i]);
            count++;
        }
    }
    printf("replay: %lu input%s%s\n", count, count == 1 ? "" : "s",
           failed ? ", some unreadable" : " ok");
    return failed ? 1 : 0;
}
