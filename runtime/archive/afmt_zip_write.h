/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: writing a zip archive of stored members to a sink.
 *
 * The two forms archive specs need are options: torch.save's (flags 0x0808
 * with a data descriptor after each member, its data at a multiple of 64
 * behind an "FB" extra field (id 0x4246) of 'Z' bytes, the zip64 end
 * record and locator always) and np.savez's (flags 0, CRC-32 and sizes in
 * the local header, a zip64 extra field in every local header, no
 * padding).  Members are written as they are given, the CRC-32 computed on
 * the way; a member's data comes whole or from a callback in pieces.
 * Archive offsets count from where the sink was at afmt_zip_write_begin.
 * zip64 fields are written wherever a size, offset or count needs them.
 * Times are 1980-01-01 00:00 (what both writers give a member without
 * one), so the output depends on the members only.
 *
 * Memory: a list of the members (names copied), grown by doubling, and a
 * 64 KiB buffer for a callback's pieces; freed by afmt_zip_write_free.
 * Thread-safety: a writer belongs to one thread.
 */
#ifndef AFMT_ZIP_WRITE_H
#define AFMT_ZIP_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include "../afmt.h"
#include "../common/afmt_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct afmt_zip_write_options {
    uint64_t align;       /* data at a multiple of this (1 to 32768), padded by an "FB" extra field;
                             0: no padding field */
    int descriptor;       /* 1: flags bit 3, CRC-32 and sizes 0 in the local header, a PK\7\8
                             descriptor after the data; 0: them in the local header */
    uint16_t flags;       /* other general-purpose bits: 0x0800 (names are UTF-8) or 0 */
    int zip64_end;        /* 1: the zip64 end record and locator even when nothing needs them */
    int zip64_local;      /* 1: a zip64 extra field in every local header (np.savez's force_zip64) */
} afmt_zip_write_options;

/* torch.save's form: align 64, descriptor, flags 0x0800, zip64_end. */
AFMT_GEN_API void afmt_zip_write_options_torch(afmt_zip_write_options *o);
/* np.savez's form: no padding, no descriptor, flags 0, zip64_local. */
AFMT_GEN_API void afmt_zip_write_options_npz(afmt_zip_write_options *o);

typedef struct afmt_zip_entry {
    char *name;           /* a copy */
    uint16_t name_len;
    uint32_t crc;
    uint64_t size, local; /* local: the local header's offset in the archive */
    int zip64_local;
} afmt_zip_entry;

/* Members are private: begin, members, finish, free. */
typedef struct afmt_zip_writer {
    afmt_sink *sink;
    afmt_zip_write_options opt;
    uint64_t base;        /* sink->written at begin */
    afmt_zip_entry *e;
    size_t n, cap;
    uint8_t *buf;         /* a callback's pieces */
    int failed;
} afmt_zip_writer;

/* Start an archive on sink (kept until finish; opt copied; NULL: the npz
 * form).  0, or -1 with AFMT_E_USAGE for an alignment out of range. */
AFMT_GEN_API int afmt_zip_write_begin(afmt_zip_writer *w, afmt_sink *sink, const afmt_zip_write_options *opt,
                                      afmt_error *err);

/* A stored member: its name (name_len bytes: relative, '/'-separated, no
 * empty, "." or ".." component, no '\\' or NUL, at most 65535 bytes, UTF-8
 * when flags say so; else AFMT_E_USAGE) and data[0..size).  A name given
 * twice is refused by afmt_zip_write_finish.  0, or -1 with err (the
 * sink's error); the writer then refuses everything but free. */
AFMT_GEN_API int afmt_zip_write_member(afmt_zip_writer *w, const char *name, size_t name_len, const uint8_t *data,
                                       uint64_t size, afmt_error *err);

/* The same, its size bytes made by fill(ctx, first, buf, n, err) in
 * consecutive pieces of at most 64 KiB (afmt_sink_fill_fn, afmt.h): the
 * payload never needs a buffer of its own size. */
AFMT_GEN_API int afmt_zip_write_member_fill(afmt_zip_writer *w, const char *name, size_t name_len, uint64_t size,
                                            afmt_sink_fill_fn fill, void *ctx, afmt_error *err);

/* Is a name given twice among the members so far?  1 with *first and
 * *second (first < second) the members of the first such pair in name
 * order, 0 when every name is distinct, -1 with AFMT_E_NOMEM (a sorted
 * list of the n members: n pointers, freed before returning).  For a
 * caller that can say whose name it was (an array's: afmt_archive_write)
 * before finish refuses it as a misuse. */
AFMT_GEN_API int afmt_zip_write_twice(const afmt_zip_writer *w, size_t *first, size_t *second, afmt_error *err);

/* The central directory and the end records; names checked distinct
 * (AFMT_E_USAGE naming the second).  0 or -1.  The sink is the caller's to
 * commit or abort. */
AFMT_GEN_API int afmt_zip_write_finish(afmt_zip_writer *w, afmt_error *err);

/* Free what the writer holds (after finish, or after a failure). */
AFMT_GEN_API void afmt_zip_write_free(afmt_zip_writer *w);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_ZIP_WRITE_H */
