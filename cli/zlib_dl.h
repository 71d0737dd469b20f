/* afmt CLI: zlib's inflate, loaded only when a deflated .npz member is met.
 *
 * Why dlopen, as for libarchive (libarchive.h): only .npz files written by
 * np.savez_compressed need inflate, and the tools should not need zlib's
 * headers to build nor libz to start.  libz.so.1 is on every Debian system
 * (zlib1g is essential); its absence is an error for that member only.
 * The declarations below are the part of zlib's stable ABI (libz.so.1,
 * z_stream as zlib.h 1.2 declares it) that npz.c uses.
 */
#ifndef AFMT_CLI_ZLIB_DL_H
#define AFMT_CLI_ZLIB_DL_H

#include <stddef.h>

typedef struct afmt_z_stream {
    const unsigned char *next_in;
    unsigned avail_in;
    unsigned long total_in;
    unsigned char *next_out;
    unsigned avail_out;
    unsigned long total_out;
    const char *msg;
    void *state;
    void *zalloc;
    void *zfree;
    void *opaque;
    int data_type;
    unsigned long adler;
    unsigned long reserved;
} afmt_z_stream;

#define AFMT_Z_OK 0
#define AFMT_Z_STREAM_END 1
#define AFMT_Z_BUF_ERROR (-5)
#define AFMT_Z_NO_FLUSH 0

typedef struct afmt_cli_zlib {
    /* inflateInit2_(strm, -15, "1.2.x", sizeof *strm): raw deflate */
    int (*inflate_init2_)(afmt_z_stream *, int, const char *, int);
    int (*inflate)(afmt_z_stream *, int);
    int (*inflate_end)(afmt_z_stream *);
    unsigned long (*crc32)(unsigned long, const unsigned char *, unsigned);
} afmt_cli_zlib;

/* The loaded library (once per process, thread-safe; never unloaded), or
 * NULL with *why saying why. */
const afmt_cli_zlib *afmt_cli_zlib_get(const char **why);

#endif /* AFMT_CLI_ZLIB_DL_H */
