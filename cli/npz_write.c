/* afmt CLI: writing a .npz archive of stored .npy members (see npz.h).
 *
 * Each array becomes NAME.npy (arr_I.npy when it has no name, as np.savez
 * names positional arrays), written by the npy format's own writer twice:
 * once into a sink that only computes the CRC-32 and the size (a zip local
 * header needs both before the data), then into the archive.  So nothing
 * is copied or held beyond the arrays themselves.  Members are stored
 * (method 0); a member or offset past 4 GiB gets zip64 fields, and more
 * than 65535 members or a central directory past 4 GiB the zip64 end
 * records, as Python's zipfile (and so numpy) reads them.
 */
#include "npz.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "zip.h"

#define FULL32 0xffffffffu

typedef struct crc_sink {
    afmt_sink s; /* first: the writer sees an afmt_sink */
    uint32_t crc;
} crc_sink;

static int crc_write(afmt_sink *s, const void *p, uint64_t n)
{
    crc_sink *c = (crc_sink *)s;
    c->crc = afmt_cli_crc32(c->crc, p, (size_t)n);
    return 0;
}

/* The npy writer pads its header by the sink's position: each member is
 * written through a sink of its own that starts at 0 and passes the bytes
 * on, so the member is the .npy np.save would write, whatever its place in
 * the archive (and the same bytes the CRC was computed over). */
typedef struct member_sink {
    afmt_sink s; /* first */
    afmt_sink *out;
    afmt_error *err;
} member_sink;

static int member_write(afmt_sink *s, const void *p, uint64_t n)
{
    member_sink *m = (member_sink *)s;
    return afmt_sink_put(m->out, p, n, m->err);
}

static int write_member(const afmt_format *npy, const afmt_array *a, afmt_sink *out,
                        afmt_error *err)
{
    member_sink m;
    afmt_error inner;

    memset(&m, 0, sizeof m);
    m.s.write = member_write;
    m.s.src_fd = -1;
    m.out = out;
    /* the archive's own error (ENOSPC: "cannot write to OUT: No space
     * left on device") is kept apart: the member sink's failure would
     * otherwise overwrite it with "write of N bytes failed" */
    afmt_error_clear(&inner);
    m.err = &inner;
    if (npy->write(a, 1, NULL, &m.s, err) == 0)
        return 0;
    if (inner.code != AFMT_OK)
        *err = inner;
    return -1;
}

typedef struct npz_entry {
    char name[AFMT_NAME_MAX + 16];
    uint32_t crc;
    uint64_t size, offset;
} npz_entry;

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
    unsigned i;
    for (i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* NAME.npy for array i; -1 with err for a name that could escape a
 * directory when extracted by other tools. */
static int member_name(const afmt_array *a, size_t i, npz_entry *e, afmt_error *err)
{
    const char *n = a->name;

    if (!n[0]) {
        snprintf(e->name, sizeof e->name, "arr_%zu.npy", i);
        return 0;
    }
    if (n[0] == '/' || strstr(n, "..") || strchr(n, '\\'))
        return afmt_cli_fail(err, AFMT_E_TYPE, "name", 0,
                             "array [%zu] is named '%s': a member name with '/' first, '..' "
                             "or '\\' could escape a directory when unzipped", i, n);
    snprintf(e->name, sizeof e->name, "%s.npy", n);
    return 0;
}

static int put_local(afmt_sink *out, const npz_entry *e, afmt_error *err)
{
    uint8_t h[30 + 20];
    size_t nlen = strlen(e->name), hl = 30;
    int big = e->size >= FULL32;

    put_le(h, 0x04034b50u, 4);
    put_le(h + 4, big ? 45 : 20, 2);
    memset(h + 6, 0, 8);                       /* flags, method 0, time, date */
    put_le(h + 14, e->crc, 4);
    put_le(h + 18, big ? FULL32 : e->size, 4);
    put_le(h + 22, big ? FULL32 : e->size, 4);
    put_le(h + 26, nlen, 2);
    put_le(h + 28, big ? 20 : 0, 2);
    if (afmt_sink_put(out, h, hl, err) != 0 || afmt_sink_put(out, e->name, nlen, err) != 0)
        return -1;
    if (!big)
        return 0;
    put_le(h, 1, 2);
    put_le(h + 2, 16, 2);
    put_le(h + 4, e->size, 8);
    put_le(h + 12, e->size, 8);
    return afmt_sink_put(out, h, 20, err);
}

static int put_central(afmt_sink *out, const npz_entry *e, afmt_error *err)
{
    uint8_t h[46], x[28];
    size_t nlen = strlen(e->name), xl = 0;
    int big = e->size >= FULL32, far = e->offset >= FULL32;

    if (big || far) {
        put_le(x, 1, 2);
        xl = 4;
        if (big) {
            put_le(x + xl, e->size, 8);
            put_le(x + xl + 8, e->size, 8);
            xl += 16;
        }
        if (far) {
            put_le(x + xl, e->offset, 8);
            xl += 8;
        }
        put_le(x + 2, xl - 4, 2);
    }
    put_le(h, 0x02014b50u, 4);
    put_le(h + 4, big || far ? 45 : 20, 2);    /* made by: MS-DOS, version */
    put_le(h + 6, big || far ? 45 : 20, 2);
    memset(h + 8, 0, 8);                       /* flags, method 0, time, date */
    put_le(h + 16, e->crc, 4);
    put_le(h + 20, big ? FULL32 : e->size, 4);
    put_le(h + 24, big ? FULL32 : e->size, 4);
    put_le(h + 28, nlen, 2);
    put_le(h + 30, xl, 2);
    memset(h + 32, 0, 10);                     /* comment, disk, attributes */
    put_le(h + 38, 0644u << 16, 4);            /* external: a regular file's mode */
    put_le(h + 42, far ? FULL32 : e->offset, 4);
    return afmt_sink_put(out, h, 46, err) != 0 || afmt_sink_put(out, e->name, nlen, err) != 0 ||
           (xl && afmt_sink_put(out, x, xl, err) != 0) ? -1 : 0;
}

static int put_end(afmt_sink *out, uint64_t n, uint64_t cd_off, uint64_t cd_size,
                   afmt_error *err)
{
    uint8_t h[56 + 20 + 22];
    size_t at = 0;
    int z64 = n >= 0xffff || cd_off >= FULL32 || cd_size >= FULL32;

    if (z64) {
        put_le(h, 0x06064b50u, 4);
        put_le(h + 4, 44, 8);
        put_le(h + 12, 45, 2);
        put_le(h + 14, 45, 2);
        memset(h + 16, 0, 8);
        put_le(h + 24, n, 8);
        put_le(h + 32, n, 8);
        put_le(h + 40, cd_size, 8);
        put_le(h + 48, cd_off, 8);
        put_le(h + 56, 0x07064b50u, 4);
        put_le(h + 60, 0, 4);
        put_le(h + 64, cd_off + cd_size, 8);
        put_le(h + 72, 1, 4);
        at = 76;
    }
    put_le(h + at, 0x06054b50u, 4);
    memset(h + at + 4, 0, 4);
    put_le(h + at + 8, z64 ? 0xffff : n, 2);
    put_le(h + at + 10, z64 ? 0xffff : n, 2);
    put_le(h + at + 12, z64 ? FULL32 : cd_size, 4);
    put_le(h + at + 16, z64 ? FULL32 : cd_off, 4);
    put_le(h + at + 20, 0, 2);
    return afmt_sink_put(out, h, at + 22, err);
}

/* The CRC-32 and size of array i as npy writes it. */
static int measure(const afmt_format *npy, const afmt_array *a, npz_entry *e, afmt_error *err)
{
    crc_sink c;

    memset(&c, 0, sizeof c);
    c.s.write = crc_write;
    c.s.src_fd = -1;
    if (npy->encoded_size(a, 1, NULL, &e->size, err) != 0 || npy->write(a, 1, NULL, &c.s, err) != 0)
        return -1;
    if (c.s.written != e->size)
        return afmt_cli_fail(err, AFMT_E_USAGE, NULL, 0,
                             "internal error: npy wrote %" PRIu64 " bytes, not %" PRIu64,
                             c.s.written, e->size);
    e->crc = c.crc;
    return 0;
}

static int names_unique(const npz_entry *e, size_t n, afmt_error *err)
{
    size_t i, j;
    for (i = 0; i < n; i++)
        for (j = i + 1; j < n; j++)
            if (strcmp(e[i].name, e[j].name) == 0)
                return afmt_cli_fail(err, AFMT_E_TYPE, "name", 0,
                                     "arrays [%zu] and [%zu] would both be the member '%s'",
                                     i, j, e[i].name);
    return 0;
}

int afmt_cli_npz_write(const afmt_format *npy, const afmt_array *views, size_t n,
                       afmt_sink *out, afmt_error *err)
{
    npz_entry *e = calloc(n ? n : 1, sizeof *e);
    uint64_t cd_off;
    size_t i;
    int rc = -1;

    if (!e)
        return afmt_cli_fail(err, AFMT_E_NOMEM, NULL, AFMT_NO_OFFSET, "out of memory");
    for (i = 0; i < n; i++)
        if (member_name(&views[i], i, &e[i], err) != 0 || measure(npy, &views[i], &e[i], err) != 0)
            goto done;
    if (names_unique(e, n, err) != 0)
        goto done;
    for (i = 0; i < n; i++) {
        e[i].offset = out->written;
        if (put_local(out, &e[i], err) != 0 || write_member(npy, &views[i], out, err) != 0)
            goto done;
    }
    cd_off = out->written;
    for (i = 0; i < n; i++)
        if (put_central(out, &e[i], err) != 0)
            goto done;
    rc = put_end(out, n, cd_off, out->written - cd_off, err);
done:
    free(e);
    return rc;
}
