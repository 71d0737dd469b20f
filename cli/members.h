/* afmt CLI: an archive's members, each its own verdict (afmt-validate).
 *
 * An input whose format is an archive of other formats' files (npz: a
 * zip of .npy members; a WebDataset shard: a tar of .ten, .npy, ...) is
 * validated whole, by its format, in the library; the library tells the
 * visitor each member another format parses (afmt_visitor.on_member).
 * Each such member gets the line a file of its own would get, named
 * "ARCHIVE:MEMBER" ("x.npz:w.npy: ok npy f32[3,4] row-major"), its JSON
 * object carrying "archive" and "member".  What is the archive's own (its
 * layout, a CRC-32, a member no rule allows) gets the archive's line:
 * "x.npz: invalid npz: archive[\"w.npy\"].central.crc32 at offset ...",
 * or, when valid but with warnings of its own (lenient tolerances), a
 * line that counts the members.  An invalid member does not end the
 * archive's check: each member gets its verdict, the archive's exit
 * status is the worst of them.  An archive that tells no member (torch:
 * its arrays come from a pickle) gets one line, as any input does.
 *
 * Thread-safety: the state is the worker's (one thread at a time).
 */
#ifndef AFMT_CLI_MEMBERS_H
#define AFMT_CLI_MEMBERS_H

#include "report.h"

/* Before validating the input shown as display (which must outlive the
 * check): its members will be named after it.  NULL: no input (the state
 * cleared, nothing told is reported). */
void afmt_cli_members_begin(afmt_cli_worker *w, const char *display);

/* The collecting visitor's on_member (ctx: the worker): a member's
 * collection begins, or its line is emitted (valid or not).  Returns 0:
 * the library goes on past an invalid member, to the next. */
int afmt_cli_members_told(void *ctx, const afmt_member *member);

/* After validating (valid, or err): when members were told, the last
 * line is emitted here (the member the failure is in, or the archive's
 * own line when it has something to say) and 1 is returned; 0 when no
 * member was told and the caller emits the input's verdict itself.
 * Either way the member state is cleared. */
int afmt_cli_members_finish(afmt_cli_worker *w, const char *display, const afmt_format *fmt,
                            int valid, const afmt_error *err);

#endif /* AFMT_CLI_MEMBERS_H */
