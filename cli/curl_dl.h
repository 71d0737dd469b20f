/* afmt CLI: libcurl, loaded only when a URL is checked.
 *
 * Why dlopen, as for libarchive (libarchive.h): only remote inputs need an
 * HTTP client, and libcurl pulls in TLS, HTTP/2, IDN and compression
 * libraries that local checks should not pay for at start-up, nor need to
 * build.  libcurl.so.4 (Debian: libcurl4) is loaded the first time a URL
 * is met; without it, each URL is an error saying so.  The declarations
 * below are the part of libcurl's stable ABI (libcurl.so.4: option and
 * info numbers are fixed by curl.h's CURLOPTTYPE_* scheme and never
 * change) that remote.c uses, so no curl headers are needed to build.
 */
#ifndef AFMT_CLI_CURL_DL_H
#define AFMT_CLI_CURL_DL_H

#include <stddef.h>

/* CURLoption numbers: type base (LONG 0, OBJECTPOINT 10000,
 * FUNCTIONPOINT 20000) + the option's number. */
#define AFMT_CURLOPT_WRITEDATA 10001
#define AFMT_CURLOPT_URL 10002
#define AFMT_CURLOPT_RANGE 10007
#define AFMT_CURLOPT_ERRORBUFFER 10010
#define AFMT_CURLOPT_WRITEFUNCTION 20011
#define AFMT_CURLOPT_LOW_SPEED_LIMIT 19
#define AFMT_CURLOPT_LOW_SPEED_TIME 20
#define AFMT_CURLOPT_USERAGENT 10018
#define AFMT_CURLOPT_HEADERDATA 10029
#define AFMT_CURLOPT_FOLLOWLOCATION 52
#define AFMT_CURLOPT_MAXREDIRS 68
#define AFMT_CURLOPT_CONNECTTIMEOUT 78
#define AFMT_CURLOPT_NOSIGNAL 99
#define AFMT_CURLOPT_HEADERFUNCTION 20079
#define AFMT_CURLOPT_PROTOCOLS_STR 10318
#define AFMT_CURLOPT_REDIR_PROTOCOLS_STR 10319
/* CURLINFO_LONG (0x200000) + 2 */
#define AFMT_CURLINFO_RESPONSE_CODE 0x200002
#define AFMT_CURLE_OK 0
#define AFMT_CURLE_WRITE_ERROR 23
#define AFMT_CURL_ERROR_SIZE 256
#define AFMT_CURL_GLOBAL_DEFAULT 3

typedef size_t afmt_curl_write_fn(char *ptr, size_t size, size_t nmemb, void *ctx);

typedef struct afmt_cli_curl {
    void *(*easy_init)(void);
    int (*easy_setopt)(void *, int, ...);
    int (*easy_perform)(void *);
    int (*easy_getinfo)(void *, int, ...);
    void (*easy_cleanup)(void *);
    void (*easy_reset)(void *);
    const char *(*easy_strerror)(int);
} afmt_cli_curl;

/* The loaded library, initialised (once per process, thread-safe; never
 * unloaded), or NULL with *why saying why.  AFMT_LIBCURL names another
 * file to load. */
const afmt_cli_curl *afmt_cli_curl_get(const char **why);

#endif /* AFMT_CLI_CURL_DL_H */
