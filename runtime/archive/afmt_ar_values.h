/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: the hook between an archive (zip members) and a value
 * grammar run on one member (a PyTorch checkpoint's data.pkl).
 *
 * The archive validator finds a member a spec's VALUES rule names and calls
 * the rule's afmt_ar_values_fn on its bytes; the grammar (afmt_pickle.h's
 * afmt_pickle_member) asks back, through afmt_ar_resolve_fn, for the record
 * each storage key names (data/<key>), and hands the views it builds over
 * those records to the visitor.  Both sides are reentrant; the records'
 * bytes stay valid for the whole call.
 */
#ifndef AFMT_AR_VALUES_H
#define AFMT_AR_VALUES_H

#include <stddef.h>
#include <stdint.h>
#include "../afmt.h"
#include "../common/afmt_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the archive gives back for a storage key: the record's bytes in memory. */
typedef struct afmt_ar_storage { const uint8_t *data; uint64_t nbytes; uint64_t offset; /* absolute */
                                 afmt_endian endian;
                                 int transient; /* data: an inflated record, live only during the run
                                                   (offset: its compressed data's; afmt.h data_transient) */
                               } afmt_ar_storage;
typedef int (*afmt_ar_resolve_fn)(void *ctx, const char *key, size_t key_len,
                                  afmt_ar_storage *out, afmt_error *err);  /* 0, or -1 with err */
typedef int (*afmt_ar_values_fn)(const void *desc, const uint8_t *bytes, uint64_t len, uint64_t base,
        afmt_ar_resolve_fn resolve, void *resolve_ctx, const afmt_options *opt,
        const afmt_visitor *vis, const afmt_path *path, afmt_error *err);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_AR_VALUES_H */
