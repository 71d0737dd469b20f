/* afmt CLI: naming what an input is when it is not an array file of a
 * known format, so that a refusal says so instead of blaming a field of
 * the format its extension names: a Git LFS pointer saved in place of the
 * model ("model.safetensors" of 130 bytes), an HTML or XML page saved by
 * a download that failed, a Python pickle (loading it runs what it names),
 * a bare zip, gzip or tar.  Only the first bytes are looked at; nothing
 * here validates anything.
 *
 * Thread-safety: pure functions of their arguments. */
#ifndef AFMT_CLI_IDENTIFY_H
#define AFMT_CLI_IDENTIFY_H

#include <stdint.h>

typedef enum afmt_cli_kind {
    AFMT_CLI_KIND_NONE = 0,     /* nothing recognised */
    AFMT_CLI_KIND_LFS_POINTER,  /* "version https://git-lfs.github.com/spec/v1" */
    AFMT_CLI_KIND_HTML,         /* an HTML page */
    AFMT_CLI_KIND_XML,          /* an XML document (an S3 error, say) */
    AFMT_CLI_KIND_PICKLE,       /* a Python pickle, protocol 2 to 5 */
    AFMT_CLI_KIND_GZIP,
    AFMT_CLI_KIND_ZIP
} afmt_cli_kind;

/* What buf[0..len) starts like. */
afmt_cli_kind afmt_cli_identify(const uint8_t *buf, uint64_t len);

/* A sentence naming the kind and what to do about it ("a Git LFS pointer
 * file (the data was never downloaded: run git lfs pull)"); static
 * storage; "" for AFMT_CLI_KIND_NONE. */
const char *afmt_cli_kind_text(afmt_cli_kind kind);

/* 1 when a file of this kind must never be skipped in a directory walk
 * (a pickle runs code when loaded: the walk reports it instead). */
int afmt_cli_kind_reported_in_walk(afmt_cli_kind kind);

#endif
