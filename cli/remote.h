/* afmt CLI: checking a file given as an http:// or https:// URL.
 *
 * remote_http.c fetches byte ranges with libcurl (loaded on first use,
 * curl_dl.h): redirects followed (at most 5), TLS certificates verified
 * (libcurl's default, never turned off), a connect timeout of 30 s and a
 * transfer that stalls below 1 byte/s for 60 s abandoned.  The file size
 * comes from the server's Content-Range.  A server that answers a Range
 * request with the whole file (HTTP 200), or cuts a response short, is an
 * error saying so.
 *
 * remote.c maps the file as reserved address space and runs the format's
 * validator over it, structure only, fetching the ranges it reads
 * (fault_guard.h): for a safetensors, npy or GGUF file, the header and
 * nothing else.  When payload values must be checked too (an array of
 * bools), the file is then validated again as a stream, its body read by
 * consecutive ranges through the bounded stream window.
 */
#ifndef AFMT_CLI_REMOTE_H
#define AFMT_CLI_REMOTE_H

#include <stddef.h>
#include <stdint.h>
#include "afmt.h"
#include "curl_dl.h"

struct afmt_cli_worker;

/* Does path name a remote file (http:// or https://)? */
int afmt_cli_is_url(const char *path);

/* Check the file at url and report it (afmt-validate). */
void afmt_cli_check_remote(struct afmt_cli_worker *w, const char *url);

/* One remote file's connection (remote_http.c). */
typedef struct afmt_cli_http {
    const afmt_cli_curl *curl;
    void *easy;
    const char *url;
    uint64_t size;        /* from Content-Range, once has_size */
    int has_size;
    uint64_t fetched;     /* body bytes received so far, for all ranges */
    uint64_t requests;
    /* the range being received */
    uint8_t *dst;
    uint64_t want, got;
    char errbuf[256];
} afmt_cli_http;

/* Open a connection for url (not used yet).  0, or -1 with err (AFMT_E_IO:
 * libcurl missing or failing). */
int afmt_cli_http_open(afmt_cli_http *h, const char *url, afmt_error *err);
void afmt_cli_http_close(afmt_cli_http *h);

/* Bytes [from, from + n) into dst (n bytes), fewer only where the file
 * ends (h->got says how many): 0, or -1 with err (AFMT_E_IO, saying why:
 * HTTP status, no range support, cut short, TLS, timeout). */
int afmt_cli_http_range(afmt_cli_http *h, uint64_t from, uint64_t n, uint8_t *dst,
                        afmt_error *err);

#endif /* AFMT_CLI_REMOTE_H */
