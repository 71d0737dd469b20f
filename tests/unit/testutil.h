/* Shared helpers of the unit tests (header-only: each test is one file). */
#ifndef AFMT_TEST_UTIL_H
#define AFMT_TEST_UTIL_H
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Files are read whole by fz_read_file (fuzz/read_file.h), the fuzz
 * tools' reader: one reader, whatever the test. */
#include "../../fuzz/read_file.h"

/* fz_read_file, then one NUL after the bytes (*len does not count it),
 * for a file read as a C string (a spec, a text format).  Binary inputs
 * use fz_read_file: its exact size lets a sanitizer see a read past the
 * end. */
static inline char *slurp_text(const char *path, uint64_t *len)
{
    uint8_t *buf = fz_read_file(path, len), *t;
    if (!buf) return NULL;
    t = realloc(buf, (size_t)*len + 1);
    if (!t) { free(buf); return NULL; }
    t[*len] = 0;
    return (char *)t;
}

/* A fresh directory for one test program's files: path is
 * /tmp/afmt-test-<tag>.XXXXXX made unique; file() names a file in it (in
 * a buffer of d's, valid until the next call). */
typedef struct test_dir {
    char path[128];
    char name[512];
} test_dir;

/* 0, or -1 after printing a FAIL line. */
static inline int test_dir_make(test_dir *d, const char *tag)
{
    snprintf(d->path, sizeof d->path, "/tmp/afmt-test-%s.XXXXXX", tag);
    if (mkdtemp(d->path)) return 0;
    printf("FAIL mkdtemp %s: %s\n", d->path, strerror(errno));
    return -1;
}

static inline const char *test_dir_file(test_dir *d, const char *name)
{
    snprintf(d->name, sizeof d->name, "%s/%s", d->path, name);
    return d->name;
}

/* Remove the files left in d (no subdirectories are made), then d. */
static inline void test_dir_remove(test_dir *d)
{
    DIR *dp = opendir(d->path);
    struct dirent *ent;
    while (dp && (ent = readdir(dp)) != NULL)
        if (strcmp(ent->d_name, ".") != 0 && strcmp(ent->d_name, "..") != 0)
            unlink(test_dir_file(d, ent->d_name));
    if (dp) closedir(dp);
    rmdir(d->path);
}
#endif
