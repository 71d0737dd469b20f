/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: CRC-32 as zip, gzip and PNG define it (ISO 3309, the
 * reflected polynomial 0xEDB88320, initial value and final xor all ones).
 *
 * On x86-64 with PCLMULQDQ (asked of the processor at each call), runs of
 * 64 bytes and more are folded by carry-less multiplication, 16 bytes per
 * step in four lanes (about 6 GB/s on this project's machines against 1.5
 * for the tables); the rest, and every other processor, go by slicing by
 * 8: eight bytes per step through eight constant 1 KiB tables
 * (afmt_crc32_table.h).  Both give the same value for every input
 * (tests/unit/test_crc32.c).  Pure function of its arguments:
 * thread-safe, allocates nothing.
 */
#ifndef AFMT_CRC32_H
#define AFMT_CRC32_H

#include <stddef.h>
#include <stdint.h>
#include "../afmt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The CRC-32 of p[0..n) continued from crc, the CRC-32 of the bytes before
 * (0 to start): afmt_crc32(afmt_crc32(0, a, na), b, nb) is the CRC-32 of a
 * followed by b.  p may be NULL when n is 0.  Reads p[0..n) only. */
AFMT_GEN_API uint32_t afmt_crc32(uint32_t crc, const uint8_t *p, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_CRC32_H */
