/* afmt CLI: reading the structure of a zip archive held in memory (.npz).
 *
 * A bounded reader, not an extractor: it finds the end of central
 * directory record (and the zip64 one), walks the central directory and
 * checks each entry against its local header, and hands out where each
 * member's data lies.  Nothing is copied or allocated but one array of
 * member extents (16 bytes per central directory entry really present) to
 * prove that no two members overlap.  Every size and offset is checked
 * against the bytes that are there before it is used, so a crafted
 * archive gets a verdict naming the field, its offset and the numbers.
 *
 * What is refused: archives split over disks, encrypted members, methods
 * other than stored (0) and deflate (8) (code unsupported); a central
 * directory or end record that disagrees with itself or with the local
 * headers, members that overlap or lie outside the member area (code
 * constraint / size / truncated / magic).
 *
 * Thread-safety: a zip reader belongs to one thread.
 */
#ifndef AFMT_CLI_ZIP_H
#define AFMT_CLI_ZIP_H

#include <stddef.h>
#include <stdint.h>
#include "afmt.h"

typedef struct afmt_cli_zip {
    const uint8_t *buf;
    uint64_t len;
    uint64_t count;     /* members, as the end record says */
    uint64_t cd_off;    /* the central directory: [cd_off, cd_end) */
    uint64_t cd_end;
    /* walking */
    uint64_t next;      /* offset of the next central directory entry */
    uint64_t index;     /* of the next entry */
} afmt_cli_zip;

typedef struct afmt_cli_zip_member {
    uint64_t index;
    const uint8_t *name;  /* not NUL-terminated */
    size_t name_len;
    unsigned method;      /* 0 stored, 8 deflate */
    uint32_t crc;         /* CRC-32 of the uncompressed bytes */
    uint64_t csize, usize;
    uint64_t local_off;   /* the local header */
    uint64_t data_off;    /* the (compressed) data: [data_off, data_off + csize) */
    uint64_t cd_entry;    /* offset of its central directory entry */
} afmt_cli_zip_member;

/* Find and check the end records and the central directory's place.
 * 0, or -1 with err. */
int afmt_cli_zip_open(afmt_cli_zip *z, const uint8_t *buf, uint64_t len, afmt_error *err);

/* The next member, checked against its local header: 1 with *m, 0 after
 * the last (then the central directory must end exactly there), -1 with
 * err. */
int afmt_cli_zip_next(afmt_cli_zip *z, afmt_cli_zip_member *m, afmt_error *err);

/* Walk every member once and refuse two that overlap (from a local header
 * to the end of its data) or a member that reaches into the central
 * directory.  Allocates count * 16 bytes at most, freed before returning.
 * 0, or -1 with err. */
int afmt_cli_zip_check_extents(const afmt_cli_zip *z, afmt_error *err);

/* CRC-32 (ISO 3309, as zip uses) of n bytes, continuing from crc (0 to
 * start). */
uint32_t afmt_cli_crc32(uint32_t crc, const uint8_t *p, size_t n);

#endif /* AFMT_CLI_ZIP_H */
