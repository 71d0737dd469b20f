/* afmt CLI: one member of an archive as the input (afmt info, dump,
 * convert): "x.npz:weights", "x.npz:weights.npy", "shard.tar:000001.ten".
 *
 * The archive is validated whole by its format, in the library, and a
 * visitor passes on only what the library says is the member's (between
 * its afmt_visitor.on_member calls): its arrays, warnings, fields,
 * metadata.  Other members' verdicts are not the question (the library
 * goes past an invalid one); once the member is done the validation is
 * stopped, the archive's structure, which the library checks before any
 * member, having been checked by then.
 *
 * Thread-safety: a pick belongs to one validation on one thread.
 */
#ifndef AFMT_CLI_MEMBER_PICK_H
#define AFMT_CLI_MEMBER_PICK_H

#include <stddef.h>
#include <stdint.h>
#include "afmt.h"

/* If path is "ARCHIVE:MEMBER" -- path names nothing, ARCHIVE names a
 * regular file and MEMBER is not empty (the last ':' that makes it so) --
 * 1 with *archive_len the length of ARCHIVE; else 0. */
int afmt_cli_pick_split(const char *path, size_t *archive_len);

typedef struct afmt_cli_pick {
    const char *want;                  /* the member asked for (NUL-terminated) */
    const afmt_visitor *inner;         /* the caller's visitor (may be NULL) */
    const afmt_field_visitor *inner_fields; /* the caller's opt->fields, or NULL */
    afmt_visitor vis;                  /* what the validator is given */
    afmt_field_visitor fields;
    int in;                            /* inside the member asked for */
    int found, done;
    const afmt_format *format;         /* the member's format, once found */
    uint64_t size;                     /* its bytes */
    uint64_t members;                  /* members another format parses, seen */
} afmt_cli_pick;

/* Set *p up to pick member want out of what vis and opt->fields are told;
 * *opt_out becomes opt with the picking field visitor.  Validate with
 * p->vis and *opt_out; p must outlive the validation. */
void afmt_cli_pick_init(afmt_cli_pick *p, const char *want, const afmt_visitor *vis, const afmt_options *opt,
                        afmt_options *opt_out);

/* The validation's result (rc, err) as the member's: a stop after the
 * member is done is success; an archive with no member of that name is
 * AFMT_E_IO "no member 'NAME' in the archive (N members)".  0 or -1. */
int afmt_cli_pick_result(const afmt_cli_pick *p, int rc, afmt_error *err);

#endif /* AFMT_CLI_MEMBER_PICK_H */
