/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: JSON metadata sidecars (DaphneDSL's x.dbdf.meta).
 *
 * A spec says a format has a sidecar, its file suffix, its JSON key names
 * and how element types are spelled there; afmt-gen turns that into an
 * afmt_meta_desc.  This module writes the sidecar for arrays about to be
 * written and checks an existing one against the arrays a file holds.
 *
 *   matrix: {"numRows": R, "numCols": C, "valueType": "f64", "numNonZeros": N}
 *   frame:  {"numRows": R, "numCols": C, "schema": [{"label": "a", "valueType": "si64"}, ...]}
 *
 * The parser reads a small JSON subset (objects, arrays, strings, integers,
 * true/false/null) with fixed limits: sidecars are tiny, and a hostile one
 * gets a clear error, not an allocation.
 */
#ifndef AFMT_META_H
#define AFMT_META_H

#include <stddef.h>
#include <stdint.h>
#include "../array/afmt_array.h"
#include "../common/afmt_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct afmt_meta_desc {
    const char *suffix;          /* ".meta" */
    const char *key_rows, *key_cols, *key_value_type, *key_nnz;
    const char *key_schema, *key_label;
    /* spelling of each element type (indexed by afmt_dtype), NULL: none */
    const char *value_names[AFMT_DTYPE_COUNT_];
} afmt_meta_desc;

#define AFMT_META_MAX_BYTES (1u << 20)
#define AFMT_META_MAX_COLUMNS 4096

typedef struct afmt_meta_column {
    char label[AFMT_NAME_MAX];
    char value_type[16];
} afmt_meta_column;

/* What a sidecar says, parsed. */
typedef struct afmt_meta {
    int has_rows, has_cols, has_nnz, has_value_type, has_schema;
    uint64_t rows, cols;
    int64_t nnz;
    char value_type[16];
    uint32_t ncolumns;
    afmt_meta_column *columns; /* caller-provided, AFMT_META_MAX_COLUMNS entries */
} afmt_meta;

/* Parse JSON text (len bytes).  columns must hold AFMT_META_MAX_COLUMNS
 * entries.  -1 with err (field = the key, offset = byte in the sidecar). */
int afmt_meta_parse(const afmt_meta_desc *d, const char *json, size_t len, afmt_meta *m,
                    afmt_meta_column *columns, afmt_error *err);

/* Check the parsed sidecar against the arrays of the file (all of them,
 * in order: one matrix, or a frame's columns). */
int afmt_meta_check(const afmt_meta_desc *d, const afmt_meta *m, const afmt_array *arrays,
                    size_t n, afmt_error *err);

/* Check one array as it is visited (index i of the file); then
 * afmt_meta_check_end with the number of arrays.  Lets a tool check a file
 * of many columns without keeping their views. */
int afmt_meta_check_array(const afmt_meta_desc *d, const afmt_meta *m, const afmt_array *a,
                          size_t i, afmt_error *err);
int afmt_meta_check_end(const afmt_meta_desc *d, const afmt_meta *m, size_t n, afmt_error *err);

/* Write the sidecar JSON for arrays (NUL-terminated, into out).  -1 with
 * err when an element type has no spelling or out is too small. */
int afmt_meta_write(const afmt_meta_desc *d, const afmt_array *arrays, size_t n, char *out,
                    size_t out_size, size_t *len, afmt_error *err);

#ifdef __cplusplus
}
#endif
#endif
