/* afmt fuzzing: glue between the fuzzing engines and fuzz_checks.h. */
#include "fuzz_common.h"

#include "fuzz_checks.h"

void fz_target_run(fz_target target, const uint8_t *data, size_t size)
{
    static const char *const names[] = {"validate", "roundtrip", "convert"};
    /* AFMT_FUZZ_KEEP_GOING=1 (reproducing by hand): print every bug of the
     * input and carry on; otherwise abort at the first, for the engine. */
    const char *keep = getenv("AFMT_FUZZ_KEEP_GOING");
    fz_ctx c;

    fz_ctx_init(&c, names[target], !(keep && keep[0] == '1'));
    /* AFMT_FUZZ_IGNORE="substring|substring": step over known bugs. */
    c.ignore = getenv("AFMT_FUZZ_IGNORE");
    switch (target) {
    case FZ_TARGET_VALIDATE:
        fz_check_validate(&c, data, size);
        break;
    case FZ_TARGET_ROUNDTRIP:
        fz_check_roundtrip(&c, data, size);
        break;
    case FZ_TARGET_CONVERT:
        fz_check_convert(&c, data, size);
        break;
    }
}

#ifdef FZ_STANDALONE_MAIN
/* Reproducer main: run every file (or every file in a folder) once. */
#include <dirent.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    uint8_t *buf = NULL, *nb;
    size_t len = 0, cap = 0, got;

    if (!fp) {
        perror(path);
        return 1;
    }
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            nb = realloc(buf, cap);
            if (!nb) {
                fclose(fp);
                free(buf);
                return 1;
            }
            buf = nb;
        }
        got = fread(buf + len, 1, cap - len, fp);
        if (got == 0)
            break;
        len += got;
    }
    fclose(fp);
    /* An exact-size copy, so a sanitizer sees any read past the end. */
    nb = malloc(len ? len : 1);
    if (nb) {
        memcpy(nb, buf, len);
        fprintf(stderr, "running %s (%zu bytes)\n", path, len);
        LLVMFuzzerTestOneInput(nb, len);
    }
    free(nb);
    free(buf);
    return nb ? 0 : 1;
}

int main(int argc, char **argv)
{
    int i, rc = 0;
    struct stat st;

    for (i = 1; i < argc; i++) {
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            DIR *d = opendir(argv[i]);
            struct dirent *e;
            char path[4096];
            while (d && (e = readdir(d)) != NULL) {
                if (e->d_name[0] == '.')
                    continue;
                snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
                if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
                    rc |= run_file(path);
            }
            if (d)
                closedir(d);
        } else {
            rc |= run_file(argv[i]);
        }
    }
    return rc;
}
#endif
