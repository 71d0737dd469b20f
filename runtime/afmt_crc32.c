/* afmt runtime: CRC-32 by slicing by 8 (see afmt_crc32.h). */
#include "afmt_crc32.h"

#include "afmt_bytes.h"
#include "afmt_crc32_table.h"

uint32_t afmt_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
    const uint32_t (*t)[256] = afmt_crc32_table;
    uint32_t c = ~crc;

    /* Byte by byte up to an 8-byte boundary is not needed: the loads are
     * memcpy-based (afmt_load_u32le), so any alignment is fine. */
    while (n >= 8) {
        uint32_t lo = afmt_load_u32le(p) ^ c, hi = afmt_load_u32le(p + 4);
        c = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
            t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^ t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--)
        c = (c >> 8) ^ t[0][(c ^ *p++) & 0xff];
    return ~c;
}
