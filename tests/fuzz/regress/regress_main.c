/* regress_main: replays files through a fuzz target without libFuzzer, so
 * that every build (GCC release, ASan) runs the seed corpus and each input a
 * fuzzer once failed on (tests/fuzz/regressions/NAME/) as a ctest.
 *   regress_NAME PATH...   each PATH a file, or a directory whose files run
 * Directories are read in name order and every input is run once, in this
 * process, so a run is deterministic. A broken invariant aborts (the
 * target's REQUIRE) after this driver has printed which file it was on. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The whole file in a buffer of exactly its size (as libFuzzer gives it),
 * so that ASan sees a read one byte past the input. */
static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            uint8_t *bigger = realloc(buf, cap *= 2);
            if (!bigger) free(buf);
            buf = bigger;
        }
    }
    int failed = !buf || ferror(f);
    fclose(f);
    if (failed) {
        fprintf(stderr, "%s: cannot read\n", path);
        free(buf);
        return -1;
    }
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, len);
    free(buf);
    fprintf(stderr, "replay %s (%zu bytes)\n", path, len);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

/* Dot files (.gitkeep, editors' leftovers) are not inputs. */
static int visible(const struct dirent *e) { return e->d_name[0] != '.'; }

/* The number of inputs run, or -1. */
static long run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) return run_file(path) == 0 ? 1 : -1;
    struct dirent **names;
    int n = scandir(path, &names, visible, alphasort);
    if (n < 0) {
        perror(path);
        return -1;
    }
    long ran = 0;
    for (int i = 0; i < n; i++) {
        char file[4096];
        int w = snprintf(file, sizeof file, "%s/%s", path, names[i]->d_name);
        long r = w > 0 && (size_t)w < sizeof file ? run_path(file) : -1;
        ran = ran < 0 || r < 0 ? -1 : ran + r;
        free(names[i]);
    }
    free(names);
    return ran;
}

int main(int argc, char **argv)
{
    long total = 0;
    for (int i = 1; i < argc && total >= 0; i++) {
        long r = run_path(argv[i]);
        total = r < 0 ? -1 : total + r;
    }
    /* Nothing run would pass whatever the target does: a missing corpus is a failure. */
    if (total <= 0) {
        fprintf(stderr, "%s: no inputs run\n", argv[0]);
        return 1;
    }
    fprintf(stderr, "%ld inputs, every invariant held\n", total);
    return 0;
}
