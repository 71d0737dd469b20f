/* afmt CLI: the structure of a zip archive in memory (see zip.h). */
#include "zip.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_END 0x06054b50u
#define SIG_END64 0x06064b50u
#define SIG_LOC64 0x07064b50u
#define END_LEN 22
#define LOC64_LEN 20
#define END64_LEN 56
#define CENTRAL_LEN 46
#define LOCAL_LEN 30

static uint64_t le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    while (n--)
        v = (v << 8) | p[n];
    return v;
}

/* zfail's index of a record that is not one of several. */
#define ONE_RECORD UINT64_MAX

/* A failure about a field of the archive, named "what.field" (or
 * "what[index].field"). */
static int zfail(afmt_error *err, afmt_code code, const char *what, uint64_t index,
                 const char *field, uint64_t off, const char *detail)
{
    char name[96];
    if (index == ONE_RECORD)
        snprintf(name, sizeof name, "%s.%s", what, field);
    else
        snprintf(name, sizeof name, "%s[%" PRIu64 "].%s", what, index, field);
    return afmt_cli_fail(err, code, name, off, "%s", detail);
}

/* The end record: the last signature whose comment ends the file. */
static int find_end(const uint8_t *b, uint64_t len, uint64_t *at)
{
    uint64_t lo = len > END_LEN + 65535 ? len - END_LEN - 65535 : 0, p;

    if (len < END_LEN)
        return -1;
    for (p = len - END_LEN + 1; p-- > lo;) {
        if (le(b + p, 4) == SIG_END && p + END_LEN + le(b + p + 20, 2) == len) {
            *at = p;
            return 0;
        }
    }
    return -1;
}

/* The zip64 end record, when its locator sits before the end record. */
static int open_zip64(afmt_cli_zip *z, uint64_t end, uint64_t *records, afmt_error *err)
{
    const uint8_t *b = z->buf;
    uint64_t loc = end - LOC64_LEN, e64;

    if (le(b + loc + 4, 4) != 0 || le(b + loc + 16, 4) > 1)
        return zfail(err, AFMT_E_UNSUPPORTED, "zip64_locator", ONE_RECORD, "disk", loc + 4,
                     "archives split over several disks are not supported");
    e64 = le(b + loc + 8, 8);
    if (e64 > loc || loc - e64 < END64_LEN)
        return zfail(err, AFMT_E_CONSTRAINT, "zip64_locator", ONE_RECORD, "end_offset",
                     loc + 8, "the zip64 end record must lie before its locator");
    if (le(b + e64, 4) != SIG_END64)
        return zfail(err, AFMT_E_MAGIC, "zip64_end", ONE_RECORD, "signature", e64,
                     "expected PK\\x06\\x06");
    if (le(b + e64 + 4, 8) + 12 != loc - e64)
        return zfail(err, AFMT_E_SIZE, "zip64_end", ONE_RECORD, "record_size", e64 + 4,
                     "the record's size does not reach its locator");
    if (le(b + e64 + 16, 4) != 0 || le(b + e64 + 20, 4) != 0)
        return zfail(err, AFMT_E_UNSUPPORTED, "zip64_end", ONE_RECORD, "disk", e64 + 16,
                     "archives split over several disks are not supported");
    z->count = le(b + e64 + 32, 8);
    z->cd_end = le(b + e64 + 40, 8); /* size, for now */
    z->cd_off = le(b + e64 + 48, 8);
    if (le(b + e64 + 24, 8) != z->count)
        return zfail(err, AFMT_E_CONSTRAINT, "zip64_end", ONE_RECORD, "entries", e64 + 24,
                     "entries on this disk and in total differ");
    *records = e64;
    return 0;
}

int afmt_cli_zip_open(afmt_cli_zip *z, const uint8_t *b, uint64_t len, afmt_error *err)
{
    uint64_t end, records;

    memset(z, 0, sizeof *z);
    z->buf = b;
    z->len = len;
    if (find_end(b, len, &end) != 0)
        return afmt_cli_fail(err, len < 4 || le(b, 4) != SIG_LOCAL ? AFMT_E_MAGIC : AFMT_E_TRUNCATED,
                             "end_record", len,
                             "no zip end of central directory record at the end of the file "
                             "(not a zip archive, or cut short)");
    records = end;
    if (le(b + end + 4, 2) != 0 || le(b + end + 6, 2) != 0)
        return zfail(err, AFMT_E_UNSUPPORTED, "end_record", ONE_RECORD, "disk", end + 4,
                     "archives split over several disks are not supported");
    z->count = le(b + end + 10, 2);
    z->cd_end = le(b + end + 12, 4);
    z->cd_off = le(b + end + 16, 4);
    if (le(b + end + 8, 2) != z->count)
        return zfail(err, AFMT_E_CONSTRAINT, "end_record", ONE_RECORD, "entries", end + 8,
                     "entries on this disk and in total differ");
    if (end >= LOC64_LEN && le(b + end - LOC64_LEN, 4) == SIG_LOC64 &&
        open_zip64(z, end, &records, err) != 0)
        return -1;
    /* the central directory ends where the end records begin */
    if (z->cd_off > records || z->cd_end != records - z->cd_off)
        return afmt_cli_fail(err, AFMT_E_CONSTRAINT, "end_record.cd_offset",
                             end + 16, "the central directory (%" PRIu64 " bytes at offset %" PRIu64
                             ") does not end where the end record begins (offset %" PRIu64 ")",
                             z->cd_end, z->cd_off, records);
    z->cd_end = records;
    if (z->count > (z->cd_end - z->cd_off) / CENTRAL_LEN)
        return afmt_cli_fail(err, AFMT_E_SIZE, "end_record.entries", end + 10,
                             "%" PRIu64 " entries cannot fit in a central directory of %" PRIu64
                             " bytes", z->count, z->cd_end - z->cd_off);
    z->next = z->cd_off;
    return 0;
}
