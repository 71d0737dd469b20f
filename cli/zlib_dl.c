/* afmt CLI: loading zlib on first use (see zlib_dl.h). */
#include "zlib_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Written once under pthread_once, read-only afterwards. */
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static afmt_cli_zlib lib;
static int lib_ok;
static char lib_why[256];

/* dlsym gives an object pointer; copy its bytes into the function pointer
 * (POSIX guarantees the representation). */
static int sym(void *h, const char *name, void *fnptr, size_t size)
{
    void *p = dlsym(h, name);
    if (!p) {
        snprintf(lib_why, sizeof lib_why, "libz.so.1 has no %s", name);
        return -1;
    }
    memcpy(fnptr, &p, size);
    return 0;
}

#define SYM(field, name) (sym(h, name, &lib.field, sizeof lib.field) == 0)

static void load(void)
{
    const char *name = getenv("AFMT_LIBZ"); /* another file: tests, odd installs */
    void *h;

    if (!name || !*name)
        name = "libz.so.1";
    h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(lib_why, sizeof lib_why,
                 "deflated .npz members need zlib (%.100s), which cannot be loaded: "
                 "install it (Debian: zlib1g)", name);
        return;
    }
    lib_ok = SYM(inflate_init2_, "inflateInit2_") && SYM(inflate, "inflate") &&
             SYM(inflate_end, "inflateEnd") && SYM(crc32, "crc32");
}

const afmt_cli_zlib *afmt_cli_zlib_get(const char **why)
{
    pthread_once(&load_once, load);
    if (!lib_ok) {
        *why = lib_why;
        return NULL;
    }
    return &lib;
}
