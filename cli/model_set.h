/* afmt CLI: a model stored as several files, checked as one model
 * (afmt-validate and afmt info on a folder, an index or a split).
 *
 * A folder holding model.safetensors.index.json (any *.index.json with a
 * weight_map), or the index itself, is checked as the set its weight_map
 * names; a folder holding gguf-split's PREFIX-00001-of-00003.gguf files,
 * or the first of them met in a -r walk, as that split.  Each shard gets
 * its own verdict (a walk gives it its own line instead), then each fault
 * of the set gets a line of the file it is in (the index, or the shard,
 * naming the tensor or key and the byte offset), and a set without any
 * fault a line "ok model (...)" of the index or the split's first file.
 * The rules are the runtime's (afmt_model, afmt.h "Model sets"); this
 * file finds the files, validates each shard through the worker's
 * ordinary check, and reports.
 *
 * Thread-safety: a worker belongs to one thread at a time, and so does
 * everything here.
 */
#ifndef AFMT_CLI_MODEL_SET_H
#define AFMT_CLI_MODEL_SET_H

#include <stddef.h>
#include "afmt.h"
#include "report.h"

/* Most faults kept per shard while it is validated; the rest are counted
 * and said in one more line. */
#define AFMT_CLI_MODEL_FAULTS 64

/* The shard the collecting visitor (collect.c) hands tensors to. */
typedef struct afmt_cli_model_hook {
    afmt_model *model;
    size_t shard;
    afmt_error faults[AFMT_CLI_MODEL_FAULTS];
    size_t nfaults;    /* kept */
    uint64_t dropped;  /* not kept */
} afmt_cli_model_hook;

/* path names a file of a model set: an index (*.index.json), or, met in
 * a walk, the first file of a gguf-split.  1 when so, and checked; 0 when
 * path is to be checked as any file (a shard of the set being checked is
 * one). */
int afmt_cli_check_model_file(afmt_cli_worker *w, const char *path, int walked);

/* path is a directory named as an operand: 1 when it holds model sets
 * (each then checked), 0 when it holds none. */
int afmt_cli_check_model_dir(afmt_cli_worker *w, const char *path);

/* A tensor of the current shard (collect.c's on_array). */
void afmt_cli_model_array(afmt_cli_model_hook *hook, const afmt_array *a);

/* A key-value of the current shard: an afmt_visitor.on_kv whose ctx is
 * the worker. */
int afmt_cli_model_kv(void *ctx, const afmt_kv *kv, uint64_t offset);

/* afmt info on path: 1 when it is a model set (a folder holding one, or
 * an index), then described as afmt-validate -v (--json: as afmt-validate
 * --json) describes it: each shard's verdict and tensors, the set's faults
 * and its verdict, on standard output, *status the exit status; 0 when
 * path is none (nothing said). */
int afmt_cli_info_model(const char *path, const afmt_options *opt, int json, int *status);

#endif /* AFMT_CLI_MODEL_SET_H */
