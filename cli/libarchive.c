/* afmt CLI: loading libarchive on first use (see libarchive.h). */
#include "libarchive.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The process-wide library: one dlopen for all workers.  Written once
 * under pthread_once, read-only afterwards. */
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static afmt_cli_libarchive lib;
static int lib_ok;
static char lib_why[256];

/* dlsym gives an object pointer; C11 has no conversion to a function
 * pointer, POSIX guarantees the representation, so copy the bytes. */
static int sym(void *h, const char *name, void *fnptr, size_t size)
{
    void *p = dlsym(h, name);
    if (!p) {
        snprintf(lib_why, sizeof lib_why, "libarchive.so.13 has no %s", name);
        return -1;
    }
    memcpy(fnptr, &p, size);
    return 0;
}

#define SYM(field, name) (sym(h, name, &lib.field, sizeof lib.field) == 0)

static void load(void)
{
    /* AFMT_LIBARCHIVE names another file (a test, an unusual install). */
    const char *name = getenv("AFMT_LIBARCHIVE");
    void *h;

    if (!name || !*name)
        name = "libarchive.so.13";
    h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(lib_why, sizeof lib_why,
                 "compressed tar shards need libarchive (%.100s), which cannot be loaded: "
                 "install it (Debian: libarchive13)", name);
        return;
    }
    lib_ok = SYM(read_new, "archive_read_new") &&
             SYM(read_support_filter_all, "archive_read_support_filter_all") &&
             SYM(read_support_format_raw, "archive_read_support_format_raw") &&
             SYM(read_open_filename, "archive_read_open_filename") &&
             SYM(read_open, "archive_read_open") &&
             SYM(read_next_header, "archive_read_next_header") &&
             SYM(read_data, "archive_read_data") &&
             SYM(read_free, "archive_read_free") &&
             SYM(error_string, "archive_error_string");
}

const afmt_cli_libarchive *afmt_cli_libarchive_get(const char **why)
{
    pthread_once(&load_once, load);
    if (!lib_ok) {
        *why = lib_why;
        return NULL;
    }
    return &lib;
}
