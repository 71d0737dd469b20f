/* Shared helpers of the unit tests (header-only: each test is one file). */
#ifndef AFMT_TEST_UTIL_H
#define AFMT_TEST_UTIL_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* A whole file in a fresh malloc'ed buffer (NULL if unreadable). */
static uint8_t *slurp(const char *path, uint64_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long n;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) { fclose(f); free(buf); return NULL; }
    fclose(f);
    *len = (uint64_t)n;
    return buf;
}
#endif
