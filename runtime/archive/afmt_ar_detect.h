/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: detection of an archive format by its first member's name
 * (a spec's detection rule with "first_member"): an npz is a zip whose
 * first member is "{name}.npy", a PyTorch checkpoint one whose first is
 * "{prefix}/data.pkl".  Detection only guesses: nothing is validated.
 *
 * Thread-safety: a pure function of its arguments; allocates nothing. */
#ifndef AFMT_AR_DETECT_H
#define AFMT_AR_DETECT_H

#include <stdint.h>
#include "../afmt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 when buf[0..len) starts with a zip local header (signature at 0, its
 * name at 30) or a tar header (a name of up to 100 bytes at 0, "ustar" at
 * 257) whose member name matches pattern (afmt_archive.h's name patterns);
 * 0 otherwise, also when the name is not all in buf. */
AFMT_GEN_API int afmt_archive_first_member_is(const uint8_t *buf, uint64_t len, const char *pattern);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_AR_DETECT_H */
