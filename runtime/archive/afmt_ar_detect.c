/* afmt runtime: an archive's first member name, for detection (see
 * afmt_ar_detect.h). */
#include "afmt_ar_detect.h"

#include <string.h>

#include "afmt_ar_run.h"
#include "../common/afmt_bytes.h"

/* A zip local header: "PK\3\4", then at 26 the name's length, at 30 the
 * name (APPNOTE 4.3.7). */
static int zip_first_name(const uint8_t *buf, uint64_t len, const uint8_t **name, size_t *n)
{
    uint64_t nlen;
    if (len < 30 || memcmp(buf, "PK\003\004", 4) != 0)
        return 0;
    nlen = afmt_load_u16le(buf + 26);
    if (nlen == 0 || len - 30 < nlen)
        return 0;
    *name = buf + 30;
    *n = (size_t)nlen;
    return 1;
}

/* A ustar header: the name NUL-padded in the first 100 bytes, "ustar" at
 * 257 (a prefix field at 345 is not joined: detection only guesses). */
static int tar_first_name(const uint8_t *buf, uint64_t len, const uint8_t **name, size_t *n)
{
    size_t k = 0;
    if (len < 512 || memcmp(buf + 257, "ustar", 5) != 0)
        return 0;
    while (k < 100 && buf[k])
        k++;
    if (k == 0)
        return 0;
    *name = buf;
    *n = k;
    return 1;
}

int afmt_archive_first_member_is(const uint8_t *buf, uint64_t len, const char *pattern)
{
    afmt_ar_span spans[AFMT_AR_CAPTURES_MAX + 1];
    const uint8_t *name;
    size_t n;
    if (!zip_first_name(buf, len, &name, &n) && !tar_first_name(buf, len, &name, &n))
        return 0;
    return afmt_ar_match(pattern, name, n, spans);
}
