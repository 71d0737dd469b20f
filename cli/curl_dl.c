/* afmt CLI: loading libcurl on first use (see curl_dl.h). */
#include "curl_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Written once under pthread_once, read-only afterwards. */
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static afmt_cli_curl lib;
static int lib_ok;
static char lib_why[256];

/* dlsym gives an object pointer; copy its bytes into the function pointer
 * (POSIX guarantees the representation). */
static int sym(void *h, const char *name, void *fnptr, size_t size)
{
    void *p = dlsym(h, name);
    if (!p) {
        snprintf(lib_why, sizeof lib_why, "libcurl.so.4 has no %s", name);
        return -1;
    }
    memcpy(fnptr, &p, size);
    return 0;
}

#define SYM(field, name) (sym(h, name, &lib.field, sizeof lib.field) == 0)

static void load(void)
{
    const char *name = getenv("AFMT_LIBCURL");
    int (*global_init)(long) = NULL;
    void *h;

    if (!name || !*name)
        name = "libcurl.so.4";
    h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(lib_why, sizeof lib_why,
                 "URLs need libcurl (%.100s), which cannot be loaded: install it "
                 "(Debian: libcurl4)", name);
        return;
    }
    lib_ok = sym(h, "curl_global_init", &global_init, sizeof global_init) == 0 &&
             SYM(easy_init, "curl_easy_init") && SYM(easy_setopt, "curl_easy_setopt") &&
             SYM(easy_perform, "curl_easy_perform") && SYM(easy_getinfo, "curl_easy_getinfo") &&
             SYM(easy_cleanup, "curl_easy_cleanup") && SYM(easy_reset, "curl_easy_reset") &&
             SYM(easy_strerror, "curl_easy_strerror");
    /* once, before any thread uses an easy handle (curl_global_init is not
     * thread-safe; pthread_once makes this the only call) */
    if (lib_ok && global_init(AFMT_CURL_GLOBAL_DEFAULT) != AFMT_CURLE_OK) {
        snprintf(lib_why, sizeof lib_why, "libcurl: curl_global_init failed");
        lib_ok = 0;
    }
}

const afmt_cli_curl *afmt_cli_curl_get(const char **why)
{
    pthread_once(&load_once, load);
    if (!lib_ok) {
        *why = lib_why;
        return NULL;
    }
    return &lib;
}
