/* afmt CLI: a URL (http://, https://) as the input of afmt info, dump and
 * convert, as afmt-validate takes it (remote.h, remote_file.h).
 *
 * afmt info (opened bounded: it needs no array's data) reads only what its
 * checks read: the file is validated over a mapping that fetches a range
 * where the validator reads one, the validation running again from the
 * start after each (afmt_cli_loaded.restart says so to the caller); the
 * header of a 4 GiB safetensors file costs one or a few ranges.  afmt dump
 * and afmt convert read every value: the whole file is fetched, as a pipe
 * is read whole, up to AFMT_CLI_STREAM_DEFAULT_LIMIT bytes (1 GiB); a
 * larger one is refused before anything but its first range is fetched.
 *
 * Ownership: the remote file belongs to the afmt_cli_loaded and is freed
 * by afmt_cli_load_url_close (called by afmt_cli_loaded_close).  One
 * thread at a time.
 */
#ifndef AFMT_CLI_LOAD_URL_H
#define AFMT_CLI_LOAD_URL_H

#include "afmt.h"
#include "load.h"

/* Open url into l (cleared by the caller, l->path set): l->in.data is the
 * mapping, l->in.len and l->in.size the file's size; *detect_len is how
 * many bytes from the start are readable now (the rest is fetched as read
 * when bounded, else already).  Over the limit (not bounded), only the
 * first range is fetched and l->in.over_limit set.  0, or -1 with err
 * (AFMT_E_IO: libcurl, HTTP, TLS; AFMT_E_NOMEM). */
int afmt_cli_load_url(afmt_cli_loaded *l, const char *url, int bounded, uint64_t *detect_len,
                      afmt_error *err);

/* The refusal of a URL over the limit of a whole fetch, naming its size. */
void afmt_cli_load_url_limit_error(const afmt_cli_loaded *l, afmt_error *err);

/* afmt_cli_loaded_run for a URL opened bounded: l->restart (if set) is
 * called before each run of the validation, which starts again after each
 * range fetched.  0 valid, -1 with err (invalid), -2 with err when a
 * range could not be fetched (AFMT_E_IO; AFMT_E_LIMIT past
 * AFMT_CLI_REMOTE_MAX_FETCHED bytes): no verdict. */
int afmt_cli_load_url_run(afmt_cli_loaded *l, const afmt_options *opt, const afmt_visitor *vis,
                          afmt_error *err);

/* Free l's remote file, if it has one. */
void afmt_cli_load_url_close(afmt_cli_loaded *l);

#endif /* AFMT_CLI_LOAD_URL_H */
