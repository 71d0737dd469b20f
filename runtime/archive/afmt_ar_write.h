/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: writing an archive from its description (the writer of a
 * spec whose body is an "archive" item).  The member rules of the
 * afmt_archive_desc the validator reads say what to write, in rule order:
 *
 *   text    its first text, when that is literal (no capture): torch's
 *           ".format_version", "version", "byteorder" ("little");
 *   pickle  the values grammar's writer: a state dict of the arrays, each
 *           a storage of its own (afmt_pickle_write_state_dict);
 *   record  one member per array, its elements plain, row-major,
 *           little-endian (or as the endian variable's first text says),
 *           keyed 0, 1, 2, ... as the pickle names them;
 *   format  one member per array, written by that format, named by the
 *           rule's pattern with the array's name in the array_name capture
 *           (an unnamed array: "arr_<index>", as np.savez names them);
 *   refuse, ignore: nothing.
 *
 * Captures shared across members ({prefix}) take the value the spec's
 * "write_captures" gives.  A zip is written as the spec's layout wants it
 * read back: stored members, data aligned with the "FB" extra field
 * (0x4246) when "align" is set, data descriptors and the zip64 end record
 * when asked (torch.save's form), else sizes and CRC-32 in the local
 * header (np.savez's), zip64 fields once a size or offset needs them; dates
 * are 1980-01-01 00:00 (no clock is read: the same arrays give the same
 * bytes).
 *
 * Thread-safety: reentrant; descriptors are constant data. */
#ifndef AFMT_AR_WRITE_H
#define AFMT_AR_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include "../afmt.h"
#include "afmt_archive.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct afmt_ar_write_desc {
    const char *const *capture_names;  /* write_captures: names ... */
    const char *const *capture_values; /* ... and the text each is written as */
    size_t ncaptures;
    int descriptor;                    /* data descriptors after each member (flags 0x0808) */
    int zip64_end;                     /* the zip64 end record and locator, always */
    int zip64_local;                   /* a zip64 extra field in every local header (np.savez's) */
} afmt_ar_write_desc;

/* Write arrays[0..n) (plain, native byte order, row-major) to sink as d
 * and w say.  Allocation: the central directory's entries (about 40 bytes
 * and a name per member), a member's bytes while they are written when
 * they are not the array's own (a record in another byte order or order,
 * a format's member), freed before returning.  0, or -1 with err naming
 * the array ("array[2]") or the member; on failure the sink holds a
 * partial file: abort it. */
AFMT_GEN_API int afmt_archive_write(const afmt_archive_desc *d, const afmt_ar_write_desc *w, const afmt_array *arrays,
                                    size_t n, const afmt_write_options *wopt, afmt_sink *sink, afmt_error *err);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_AR_WRITE_H */
