/* afmt runtime: what a caller passes to a validator or writer.
 *
 * There is no global state: limits, strictness and the callbacks that
 * receive arrays and warnings travel in these structs.
 */
#ifndef AFMT_OPTIONS_H
#define AFMT_OPTIONS_H

#include <stdint.h>
#include "afmt_array.h"
#include "afmt_error.h"

typedef enum afmt_mode {
    AFMT_STRICT = 0,  /* accept exactly what a conforming writer produces */
    AFMT_LENIENT = 1  /* also accept what reference readers tolerate, warning */
} afmt_mode;

typedef struct afmt_limits {
    uint64_t max_rank;          /* most dimensions of one array */
    uint64_t max_header_bytes;  /* most bytes of one list of strings (frame labels);
                                 * dims are held to max_rank */
    uint64_t max_total_bytes;   /* most bytes of input */
    uint64_t max_items;         /* most repetitions of one repeated structure */
    uint64_t max_decoded_bytes; /* most bytes a compressed payload may expand to */
} afmt_limits;

typedef struct afmt_visitor {
    void *ctx;
    /* Called once per array found, in file order.  Return non-zero to stop
     * (the validator then fails with AFMT_E_CALLBACK). */
    int (*on_array)(void *ctx, const afmt_array *array);
    /* Lenient-mode tolerances, and notes such as an ambiguous type code. */
    void (*on_warning)(void *ctx, const afmt_error *warning);
    /* Trailing bytes a format allows and keeps (RawArray metadata). */
    void (*on_trailer)(void *ctx, const uint8_t *data, uint64_t len, uint64_t offset);
} afmt_visitor;

typedef struct afmt_options {
    afmt_mode mode;
    afmt_limits limits;
    /* 0: skip payload value checks (bool bytes, pad bits) when only the
     * structure is wanted.  Validators default to 1. */
    int check_values;
} afmt_options;

/* Sensible defaults: strict, rank 255, 1 MiB headers, 2^62 bytes input,
 * 2^32 items, 64 GiB decoded. */
void afmt_options_default(afmt_options *opt);

typedef struct afmt_write_options {
    /* Bytes appended after the structure where the format allows them
     * (RawArray metadata), so a rewrite keeps them. */
    const uint8_t *trailer;
    uint64_t trailer_len;
    /* Compress payloads where the format can (RawArray: one LZ4 block). */
    int compress;
} afmt_write_options;

/* Report a lenient tolerance (mode LENIENT) or fail (mode STRICT): the one
 * place generated code decides between warning and error. */
int afmt_tolerate(const afmt_options *opt, const afmt_visitor *vis,
                  afmt_error *err, afmt_code code, const afmt_path *path,
                  const char *field, uint64_t index, uint64_t offset,
                  const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 9, 10)))
#endif
    ;

/* Report a warning in any mode. */
void afmt_warn(const afmt_visitor *vis, const afmt_path *path,
               const char *field, uint64_t index, uint64_t offset,
               const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

#endif /* AFMT_OPTIONS_H */
