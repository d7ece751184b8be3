/*
 * driver.c - a plain main() for the fuzz targets, so `make check` replays
 * their corpus and regression inputs with any compiler, without libFuzzer:
 *     fuzz_frame FILE|DIR...      run each file (a directory: each file in it)
 *     fuzz_frame --seeds DIR      write the target's seed corpus into DIR
 * A crash or failed oracle aborts; otherwise it prints how many inputs ran.
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *seed_dir;

static void emit(const char *name, const void *data, size_t len)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", seed_dir, name);
    if ((f = fopen(path, "wb")) == NULL || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        exit(1);
    }
}

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0, n;

    if (f == NULL) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    do {
        if (len == cap && (buf = realloc(buf, cap = cap ? 2 * cap : 4096)) == NULL)
            fuzz_fail("out of memory");
        len += n = fread(buf + len, 1, cap - len, f);
    } while (n > 0);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 1;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* Runs every regular file of dir in name order; the count, or -1. */
static int run_dir(const char *dir)
{
    struct dirent **ents;
    char path[4096];
    int n = scandir(dir, &ents, NULL, by_name), ran = 0;

    if (n < 0) {
        fprintf(stderr, "%s: %s\n", dir, strerror(errno));
        return -1;
    }
    for (int i = 0; i < n; i++) {
        struct stat st;

        snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && ran >= 0)
            ran = run_file(path) < 0 ? -1 : ran + 1;
        free(ents[i]);
    }
    free(ents);
    return ran;
}

int main(int argc, char **argv)
{
    int total = 0;

    LLVMFuzzerInitialize(&argc, &argv);
    if (argc == 3 && strcmp(argv[1], "--seeds") == 0) {
        seed_dir = argv[2];
        fuzz_seeds(emit);
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        struct stat st;
        int n;

        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
            return 1;
        }
        if ((n = S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i])) < 0)
            return 1;
        total += n;
    }
    printf("%s: %d inputs ran without a fault\n", argv[0], total);
    return 0;
}
