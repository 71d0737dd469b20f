/* afmt runtime: the descriptor every generated format exports.
 *
 * afmt-gen emits one `const afmt_format afmt_<name>_format` per spec and a
 * registry (generated/afmt_formats.c) listing them all, so tools find a new
 * format after `make regen && make` with no C change.
 */
#ifndef AFMT_FORMAT_H
#define AFMT_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include "afmt_array.h"
#include "afmt_error.h"
#include "afmt_options.h"
#include "afmt_sink.h"
#include "afmt_src.h"
#include "afmt_meta.h"

typedef struct afmt_format {
    const char *name;                 /* "rawarray" */
    const char *spec;                 /* "spec/rawarray.json" */
    const char *const *extensions;    /* {".ra", NULL} */
    afmt_order order;                 /* payload order the writer expects */
    int multi;                        /* 1 if a file may hold several arrays */
    /* 1 if the bytes start like this format (magic, after any allowed
     * leading whitespace); needs at most the first 64 bytes. */
    int (*detect)(const uint8_t *buf, uint64_t len);
    /* 0 if valid, -1 with err filled.  Arrays go to vis->on_array. */
    int (*validate)(const uint8_t *buf, uint64_t len, const afmt_options *opt,
                    const afmt_visitor *vis, afmt_error *err);
    /* The same over a stream (memory bounded by the source's window). */
    int (*validate_src)(afmt_src *src, const afmt_options *opt, const afmt_visitor *vis,
                        afmt_error *err);
    /* Can this format hold the array as given (dtype, rank, dims)?  0 yes,
     * -1 with err saying why not. */
    int (*can_write)(const afmt_array *array, afmt_error *err);
    int (*encoded_size)(const afmt_array *arrays, size_t n,
                        const afmt_write_options *wopt, uint64_t *size,
                        afmt_error *err);
    int (*write)(const afmt_array *arrays, size_t n,
                 const afmt_write_options *wopt, afmt_sink *sink,
                 afmt_error *err);
    /* A metadata file written and checked beside the data (DAPHNE's
     * x.dbdf.meta), or NULL. */
    const afmt_meta_desc *sidecar;
} afmt_format;

/* Provided by generated/afmt_formats.c */
extern const afmt_format *const afmt_formats[];
extern const size_t afmt_format_count;

const afmt_format *afmt_format_by_name(const char *name);
/* The format whose extension is the longest suffix of path, ignoring
 * ASCII case (".RA" is ".ra"); NULL if none, or when two formats claim
 * that same suffix: then *tie (if tie is not NULL) is one of them. */
const afmt_format *afmt_format_by_extension(const char *path, const afmt_format **tie);
/* Magic first; then afmt_format_by_extension(path) (path may be NULL);
 * NULL if none. */
const afmt_format *afmt_format_detect(const uint8_t *buf, uint64_t len, const char *path);

#endif /* AFMT_FORMAT_H */
