/* afmt fuzzing and tests: the one reader of a whole file (header-only, so
 * that the unit tests, which link no fuzz object, share it through
 * tests/unit/testutil.h, and the fuzz tools through fuzz/inputs.h).
 * Not part of the library.  No global state; thread-safe. */
#ifndef AFMT_FUZZ_READ_FILE_H
#define AFMT_FUZZ_READ_FILE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole of the file at path in a malloc'd buffer of exactly its size
 * (of 1 byte for an empty file), as the fuzzing engines hand inputs over,
 * so that a sanitizer sees any read past the end.  *len gets the size (0
 * on failure).  NULL when the file cannot be read or memory runs out.
 * The caller frees the buffer. */
static inline uint8_t *fz_read_file(const char *path, uint64_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL, *nb;
    size_t cap = 0, n = 0, got;

    *len = 0;
    if (!f)
        return NULL;
    /* Read in growing pieces rather than trusting a size: the path may be
     * a pipe or a file that changes. */
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        got = fread(buf + n, 1, cap - n, f);
        if (got == 0)
            break;
        n += got;
    }
    if (ferror(f)) {
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    nb = malloc(n ? n : 1);
    if (nb) {
        memcpy(nb, buf, n);
        *len = n;
    }
    free(buf);
    return nb;
}

#endif /* AFMT_FUZZ_READ_FILE_H */
