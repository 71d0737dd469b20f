/* afmt reference interpreter of the spec language (spec/LANGUAGE.md).
 *
 * It loads a spec at run time with afmt-gen's own loader and checks (one
 * spec model: gen/load*.c, gen/expr.c, and afmt-gen's emitters run as
 * `afmt-gen --check` runs them, writing nothing), then validates bytes by
 * walking the spec's items with the shared runtime (runtime/): the same
 * steps, in the same order, that the C afmt-gen would write for the spec
 * carries out.  So it gives the same verdict, error (code, field path,
 * offset, message), lenient warnings and array views as the generated
 * validator, with no build step.  It is written for clarity, not speed:
 * one small function per item kind (interp_item.c, interp_field.c,
 * interp_array.c), one per expression kind (interp_expr.c).
 *
 * Uses: `afmt-validate --spec my.json FILE...`, `afmt info|dump|convert
 * --spec my.json` (a format of one's own without generating code), and a
 * second oracle for the generated validators (tests/interp, fuzz/).
 *
 * Thread-safety: a loaded afmt_interp is immutable; any number of threads
 * may validate with it at once.  Loading is not reentrant in one respect:
 * afmt-gen's loader prints its diagnostics to stderr.
 */
#ifndef AFMT_INTERP_H
#define AFMT_INTERP_H

#include <stddef.h>
#include <stdint.h>
#include "afmt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct afmt_interp afmt_interp;

/* Load and check the spec at path.  On a spec afmt-gen would reject,
 * prints afmt-gen's diagnostics ("PATH: /json/path: message") to stderr
 * and returns NULL; on a spec that uses a construct the interpreter does
 * not know, prints "PATH: /json/path: ..." and returns NULL.  The result
 * is freed by afmt_interp_free (the spec model itself lives until exit:
 * afmt-gen's loader has no free). */
afmt_interp *afmt_interp_load(const char *path);
/* The same for the spec's JSON text in memory (path: its name in
 * diagnostics and the descriptor's spec).  The fuzz targets carry the
 * shipped specs in their binaries this way. */
afmt_interp *afmt_interp_load_text(const char *path, const char *text);
/* Why afmt_interp_load_why returned NULL (or AFMT_INTERP_LOADED). */
typedef enum afmt_interp_refusal {
    AFMT_INTERP_LOADED = 0,
    AFMT_INTERP_BAD_SPEC = 1,    /* afmt-gen refuses the spec too: the
                                  * diagnostics on stderr are those
                                  * `afmt-gen --check PATH` prints */
    AFMT_INTERP_UNSUPPORTED = 2, /* afmt-gen accepts it, but the interpreter
                                  * does not run one of its constructs yet
                                  * (named on stderr): generate its C */
    AFMT_INTERP_NOMEM = 3        /* out of memory (nothing printed) */
} afmt_interp_refusal;
/* afmt_interp_load, saying in *why (not NULL) why it returned NULL. */
afmt_interp *afmt_interp_load_why(const char *path, afmt_interp_refusal *why);
/* 0 when the interpreter runs every construct of the spec at path (or the
 * spec does not load), else 1 and a message in why[n] (caller's buffer,
 * truncated to fit; n may be 0) naming the first construct it does not;
 * afmt_interp_load refuses such a spec with that message.  Thread-safe. */
int afmt_interp_unsupported(const char *path, char *why, size_t n);
void afmt_interp_free(afmt_interp *in);

/* The format descriptor of the spec: name, spec path, extensions, detect,
 * order and multi as a generated format's; its validate and validate_src
 * are NULL (they need the interpreter: use the functions below), and so
 * are the writer's (can_write, encoded_size, write: the interpreter
 * validates and reads, it does not write).  Lives as long as in. */
const afmt_format *afmt_interp_format(const afmt_interp *in);

/* 1 when the first bytes of buf match the spec's detection rules (as the
 * generated afmt_<format>_detect), else 0. */
int afmt_interp_detect(const afmt_interp *in, const uint8_t *buf, uint64_t len);

/* Validate buf[0..len) (or a source) as the spec's generated validator
 * would: 0, or -1 with err filled.  opt and vis as for a generated
 * validator (NULL: defaults, no callbacks).  Allocates a symbol table of
 * the spec's size for the run (nomem when that fails). */
int afmt_interp_validate(const afmt_interp *in, const uint8_t *buf, uint64_t len,
                         const afmt_options *opt, const afmt_visitor *vis, afmt_error *err);
int afmt_interp_validate_src(const afmt_interp *in, afmt_src *src, const afmt_options *opt,
                             const afmt_visitor *vis, afmt_error *err);

#ifdef __cplusplus
}
#endif
#endif
