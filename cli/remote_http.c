/* afmt CLI: byte ranges of a remote file over HTTP(S) (see remote.h). */
#include "remote.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "fail.h"

int afmt_cli_is_url(const char *path)
{
    return strncmp(path, "https://", 8) == 0 || strncmp(path, "http://", 7) == 0;
}

/* The body of a 206 lands in h->dst; more than asked for (a server that
 * sends the whole file) stops the transfer. */
static size_t on_body(char *p, size_t size, size_t nmemb, void *ctx)
{
    afmt_cli_http *h = ctx;
    size_t n = size * nmemb;

    h->fetched += n;
    if ((uint64_t)n > h->want - h->got)
        return 0; /* CURLE_WRITE_ERROR: told apart by the status */
    memcpy(h->dst + h->got, p, n);
    h->got += n;
    return n;
}

/* "Content-Range: bytes 0-65535/123456": the file size.  Each response
 * of a redirect chain starts with its status line, which forgets it. */
static size_t on_header(char *p, size_t size, size_t nmemb, void *ctx)
{
    afmt_cli_http *h = ctx;
    size_t n = size * nmemb;
    const char *slash;
    char line[256];

    if (n >= sizeof line)
        return n;
    memcpy(line, p, n);
    line[n] = '\0';
    if (strncmp(line, "HTTP/", 5) == 0)
        h->has_size = 0;
    if (strncasecmp(line, "content-range:", 14) == 0 && (slash = strchr(line, '/')) &&
        slash[1] >= '0' && slash[1] <= '9') {
        h->size = strtoull(slash + 1, NULL, 10);
        h->has_size = 1;
    }
    return n;
}

int afmt_cli_http_open(afmt_cli_http *h, const char *url, afmt_error *err)
{
    const char *why = NULL;

    memset(h, 0, sizeof *h);
    h->url = url;
    h->curl = afmt_cli_curl_get(&why);
    if (!h->curl)
        return afmt_cli_fail(err, AFMT_E_IO, NULL, AFMT_NO_OFFSET, "%s", why);
    h->easy = h->curl->easy_init();
    if (!h->easy)
        return afmt_cli_fail(err, AFMT_E_IO, NULL, AFMT_NO_OFFSET, "libcurl: no handle");
    return 0;
}

void afmt_cli_http_close(afmt_cli_http *h)
{
    if (h->easy)
        h->curl->easy_cleanup(h->easy);
    h->easy = NULL;
}

static void set_options(afmt_cli_http *h, const char *range)
{
    const afmt_cli_curl *c = h->curl;
    void *e = h->easy;

    c->easy_setopt(e, AFMT_CURLOPT_URL, h->url);
    c->easy_setopt(e, AFMT_CURLOPT_RANGE, range);
    c->easy_setopt(e, AFMT_CURLOPT_PROTOCOLS_STR, "http,https");
    c->easy_setopt(e, AFMT_CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    c->easy_setopt(e, AFMT_CURLOPT_FOLLOWLOCATION, 1L);
    c->easy_setopt(e, AFMT_CURLOPT_MAXREDIRS, 5L);
    c->easy_setopt(e, AFMT_CURLOPT_CONNECTTIMEOUT, 30L);
    c->easy_setopt(e, AFMT_CURLOPT_LOW_SPEED_LIMIT, 1L);
    c->easy_setopt(e, AFMT_CURLOPT_LOW_SPEED_TIME, 60L);
    c->easy_setopt(e, AFMT_CURLOPT_NOSIGNAL, 1L);
    c->easy_setopt(e, AFMT_CURLOPT_USERAGENT, "afmt-validate/" AFMT_CLI_VERSION);
    c->easy_setopt(e, AFMT_CURLOPT_ERRORBUFFER, h->errbuf);
    c->easy_setopt(e, AFMT_CURLOPT_WRITEFUNCTION, on_body);
    c->easy_setopt(e, AFMT_CURLOPT_WRITEDATA, (void *)h);
    c->easy_setopt(e, AFMT_CURLOPT_HEADERFUNCTION, on_header);
    c->easy_setopt(e, AFMT_CURLOPT_HEADERDATA, (void *)h);
}

int afmt_cli_http_range(afmt_cli_http *h, uint64_t from, uint64_t n, uint8_t *dst,
                        afmt_error *err)
{
    char range[64];
    long status = 0;
    int rc;

    snprintf(range, sizeof range, "%" PRIu64 "-%" PRIu64, from, from + n - 1);
    h->dst = dst;
    h->want = n;
    h->got = 0;
    h->errbuf[0] = '\0';
    set_options(h, range);
    h->requests++;
    rc = h->curl->easy_perform(h->easy);
    h->curl->easy_getinfo(h->easy, AFMT_CURLINFO_RESPONSE_CODE, &status);
    if (status == 200)
        return afmt_cli_fail(err, AFMT_E_IO, NULL, from,
                             "the server ignores range requests (HTTP 200 to a Range request): "
                             "remote files are read by ranges; download it and check the file");
    if (rc != AFMT_CURLE_OK && status < 400)
        return afmt_cli_fail(err, AFMT_E_IO, NULL, from,
                             "%s%s%s (after %" PRIu64 " of %" PRIu64 " bytes from offset %" PRIu64 ")",
                             h->curl->easy_strerror(rc), h->errbuf[0] ? ": " : "", h->errbuf,
                             h->got, n, from);
    if (status != 206)
        return afmt_cli_fail(err, AFMT_E_IO, NULL, from,
                             "HTTP %ld for bytes %s", status, range);
    if (!h->has_size)
        return afmt_cli_fail(err, AFMT_E_IO, NULL, from,
                             "the server's range response gives no file size (Content-Range)");
    if (h->got != n && h->got < n && from + h->got == h->size)
        return 0; /* the file ends first: h->got bytes */
    if (h->got != n)
        return afmt_cli_fail(err, AFMT_E_IO, NULL, from + h->got,
                             "the server sent %" PRIu64 " of the %" PRIu64 " bytes from offset %"
                             PRIu64 " asked for", h->got, n, from);
    return 0;
}
