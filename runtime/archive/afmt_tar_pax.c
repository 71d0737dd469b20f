/* afmt runtime: pax extended header records (POSIX.1-2001, pax's
 * "Extended Header Format": "%d %s=%s\n", the length counting the whole
 * record, UTF-8 values).  Only "path" and "size" change what afmt reads;
 * every record is checked to be well formed and to lie inside the data. */
#include <inttypes.h>
#include <string.h>

#include "afmt_ar_run.h"

/* A decimal number of at most 19 digits (below 10^19 < 2^64): 1, or 0
 * when p[0..n) is not one. */
static int decimal(const uint8_t *p, size_t n, uint64_t *v)
{
    size_t i;
    if (n == 0 || n > 19)
        return 0;
    *v = 0;
    for (i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return 0;
        *v = *v * 10 + (uint64_t)(p[i] - '0');
    }
    return 1;
}

/* The value of a record (key "path" or "size") into *p. */
static int keep_value(afmt_ar_run *r, const uint8_t *key, size_t klen, const uint8_t *val, size_t vlen, uint64_t voff,
                      afmt_tar_pending *p, const char *sub)
{
    if (klen == 4 && memcmp(key, "size", 4) == 0) {
        if (!decimal(val, vlen, &p->size) || p->size > INT64_MAX)
            return afmt_ar_fail(r, AFMT_E_VALUE, NULL, sub, voff, "a pax size is decimal digits below 2^63");
        p->has_size = 1;
    } else if (klen == 4 && memcmp(key, "path", 4) == 0) {
        if (vlen > AFMT_AR_NAME_MAX)
            return afmt_ar_fail(r, AFMT_E_LIMIT, NULL, sub, voff, "a pax path of %zu bytes: afmt reads names of "
                                "at most %u", vlen, AFMT_AR_NAME_MAX);
        if (!(p->path = afmt_ar_keep(r, val, vlen, voff)))
            return -1;
        p->path_len = vlen;
        p->path_off = voff;
        p->has_path = 1;
    }
    return 0;
}

int afmt_tar_pax(afmt_ar_run *r, const uint8_t *data, uint64_t n, uint64_t off, int global, afmt_tar_pending *p,
                 const char *sub)
{
    uint64_t i = 0;

    while (i < n) {
        uint64_t len, j = i, k;
        while (j < n && j - i < 20 && data[j] >= '0' && data[j] <= '9')
            j++;
        if (j == i || j == n || data[j] != ' ' || !decimal(data + i, (size_t)(j - i), &len))
            return afmt_ar_fail(r, AFMT_E_VALUE, NULL, sub, off + i, "a pax record starts with its length in "
                                "decimal and a space");
        if (len < j - i + 4 || len > n - i)
            return afmt_ar_fail(r, AFMT_E_SIZE, NULL, sub, off + i, "a pax record of %" PRIu64 " bytes; %" PRIu64
                                " are left in the extended header", len, n - i);
        if (data[i + len - 1] != '\n')
            return afmt_ar_fail(r, AFMT_E_VALUE, NULL, sub, off + i + len - 1, "a pax record ends with a newline");
        for (k = j + 1; k < i + len - 1 && data[k] != '='; k++)
            ;
        if (k == j + 1 || k == i + len - 1)
            return afmt_ar_fail(r, AFMT_E_VALUE, NULL, sub, off + j + 1, "a pax record is \"length key=value\\n\" "
                                "with a key");
        if (!global && keep_value(r, data + j + 1, (size_t)(k - j - 1), data + k + 1, (size_t)(i + len - 2 - k),
                                  off + k + 1, p, sub) != 0)
            return -1;
        i += len;
    }
    return 0;
}
