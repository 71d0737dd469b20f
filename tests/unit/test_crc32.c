/* CRC-32 (runtime/compress/afmt_crc32.c) against its definition, bit by bit: the
 * check value of "123456789", every length from 0 to 2,100 at every start
 * offset modulo 16 (the folding path begins at 64 bytes and takes 16 at a
 * time, the tables the rest), from random running values, a 4 MiB buffer
 * whole and split at odd points (the continuation rule), and all-zero and
 * all-one buffers (the folding constants' edge cases).  On a machine with
 * PCLMULQDQ both paths are exercised; elsewhere the tables alone are. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compress/afmt_crc32.h"
#include "check.h"

/* The definition: reflected 0xEDB88320, one bit at a time. */
static uint32_t crc32_by_bits(uint32_t crc, const uint8_t *p, size_t n)
{
    uint32_t c = ~crc;
    int k;

    while (n--) {
        c ^= *p++;
        for (k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

/* A reproducible byte stream (xorshift32), not rand(): the same everywhere. */
static void fill(uint8_t *p, size_t n, uint32_t seed)
{
    uint32_t x = seed ? seed : 1;
    size_t i;

    for (i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = (uint8_t)x;
    }
}

static int every_length_and_offset(const uint8_t *buf)
{
    size_t n, off;
    uint32_t start = 0x9e3779b9u;

    for (n = 0; n <= 2100; n++)
        for (off = 0; off < 16; off++) {
            start = start * 1664525u + 1013904223u;
            if (afmt_crc32(start, buf + off, n) != crc32_by_bits(start, buf + off, n)) {
                printf("  differs at length %zu, offset %zu\n", n, off);
                return 0;
            }
        }
    return 1;
}

static int split_anywhere(const uint8_t *buf, size_t len)
{
    static const size_t cuts[] = { 1, 15, 63, 64, 65, 1000, 4095, 65536 + 7, 1048576 + 13 };
    uint32_t whole = crc32_by_bits(0, buf, len);
    size_t i;

    if (afmt_crc32(0, buf, len) != whole)
        return 0;
    for (i = 0; i < sizeof cuts / sizeof cuts[0]; i++)
        if (afmt_crc32(afmt_crc32(0, buf, cuts[i]), buf + cuts[i], len - cuts[i]) != whole)
            return 0;
    return 1;
}

int main(void)
{
    static const uint8_t check_input[] = "123456789";
    size_t big = (size_t)4 << 20;
    uint8_t *buf = malloc(big);

    if (!buf) {
        printf("FAIL crc32: no memory for the test buffer\n");
        return 1;
    }
    CHECK("crc32: the check value of \"123456789\" is 0xCBF43926",
          afmt_crc32(0, check_input, 9) == 0xcbf43926u);
    CHECK("crc32: no bytes leave the value as it was", afmt_crc32(0x12345678u, NULL, 0) == 0x12345678u);
    fill(buf, big, 2026);
    CHECK("crc32: every length 0-2100 at 16 offsets, from random values, is the bitwise CRC",
          every_length_and_offset(buf));
    CHECK("crc32: 4 MiB whole and split at 9 points is the bitwise CRC", split_anywhere(buf, big));
    memset(buf, 0, 4096);
    CHECK("crc32: 4 KiB of zeros", afmt_crc32(0, buf, 4096) == crc32_by_bits(0, buf, 4096));
    memset(buf, 0xff, 4096);
    CHECK("crc32: 4 KiB of 0xff", afmt_crc32(0, buf, 4096) == crc32_by_bits(0, buf, 4096));
    free(buf);
    CHECK_DONE();
}
