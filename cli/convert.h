/* afmt CLI: afmt convert, in steps of one purpose each.
 *
 *   convert.c         the command: the steps below in order
 *   convert_args.c    the command line (--help, options, OUT's format)
 *   convert_input.c   IN validated and its arrays collected
 *   convert_cast.c    the element type each array is written with
 *                     (--dtype by class, --dtype-of by name)
 *   convert_plan.c    each array made into what the target's writer takes
 *                     (kept as it is, cast, streamed, or decoded)
 *   convert_stream.c  an array the sink asks for piece by piece
 *   convert_fit.c     the target's checks, and names shortened to fit
 *   convert_refuse.c  how a refusal is said on stderr
 *   convert_write.c   OUT written all or nothing (and its sidecar)
 *   convert_kv.c      typed metadata (GGUF) kept, carried to and from
 *                     safetensors' __metadata__, or said dropped
 *
 * Nothing here is a library interface: these are the command's own parts,
 * each printing its messages ("afmt convert: ...") and returning an exit
 * status (cli.h).
 */
#ifndef AFMT_CLI_CONVERT_H
#define AFMT_CLI_CONVERT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "afmt.h"
#include "load.h"

struct afmt_interp;

/* Most --dtype-of options one command line gives. */
#define AFMT_CLI_DTYPE_OF_MAX 256

/* --dtype-of NAME=TYPE: the array whose name (or arr_I, unnamed: the one
 * naming rule, afmt_array_key) is name[0..name_len) is cast to dtype;
 * AFMT_DTYPE_INVALID ("keep") keeps it as it is. */
typedef struct afmt_cli_dtype_of {
    const char *name;                /* into argv */
    size_t name_len;
    afmt_dtype dtype;
    const char *arg;                 /* the option's value, for messages */
} afmt_cli_dtype_of;

/* What the command line asks for. */
typedef struct afmt_cli_convert_args {
    const char *in, *out;
    const afmt_format *from;         /* --from / --spec; NULL: detect */
    const struct afmt_interp *spec;  /* --spec's interpreter, or NULL */
    const afmt_format *target;       /* OUT's format */
    afmt_options opt;                /* --lenient, limits */
    afmt_dtype dtype;                /* --dtype, or AFMT_DTYPE_INVALID */
    afmt_cli_dtype_of dtype_of[AFMT_CLI_DTYPE_OF_MAX]; /* in order given: the last wins */
    size_t n_dtype_of;
    int allow_lossy, text, keep_names, to_stdout;
    int apply_scale; /* --apply-scale: a general scale's f64 values, not refused */
    int compress;                    /* -1 as IN is, 0 or 1 as asked */
} afmt_cli_convert_args;

/* IN, validated, and what its validator gave: arrays and the trailer
 * (RawArray) in views (into IN's bytes, valid while l is open; a deflated
 * archive member's into afmt_views' copies), and a copy of the metadata
 * (safetensors). */
typedef struct afmt_cli_convert_input {
    afmt_cli_loaded l;
    int loaded;                      /* l is open: close it */
    const char *path;
    afmt_views views;                /* views.v[0..views.n): IN's arrays */
    int oom;                         /* the metadata could not be copied */
    uint8_t *metadata;               /* a copy: a stream's header is gone once read */
    uint64_t metadata_len;
    afmt_kv *kv;                     /* typed key-values (GGUF), in order: copies */
    afmt_kv **kv_blocks;             /* their afmt_kv_copy blocks */
    size_t n_kv, kv_cap;
    uint8_t *json_kv_bytes;          /* the decoded strings of metadata made key-values */
} afmt_cli_convert_input;

/* convert_kv.c: the visitor's on_kv (a copy of each key-value, in order);
 * the write options' kv or metadata for target from IN's key-values or
 * metadata (json: a buffer the metadata is built in, freed by the caller),
 * each key the target cannot keep said on stderr; 0 or -1 (said). */
int afmt_cli_convert_collect_kv(void *ctx, const afmt_kv *kv, uint64_t offset);
void afmt_cli_convert_kv_free(afmt_cli_convert_input *c);
struct afmt_cli_buf;
int afmt_cli_convert_kv_options(afmt_cli_convert_input *c, const afmt_format *target, afmt_write_options *wopt,
                                struct afmt_cli_buf *json);

/* An array the sink asks for piece by piece (convert_stream.c). */
typedef struct afmt_cli_convert_streamed {
    const afmt_array *src;
    afmt_order order;
    afmt_sink_producer producer;
} afmt_cli_convert_streamed;

/* What the writer is given: a view per array of IN, in the target's
 * order and element type, its data in bufs[i] (freed by
 * afmt_cli_convert_plan_free) or IN's own bytes. */
typedef struct afmt_cli_convert_plan {
    const afmt_cli_convert_args *args;
    const afmt_cli_convert_input *input;
    afmt_array *views;
    uint8_t **bufs;
    afmt_dtype *casts;               /* each array's type: AFMT_DTYPE_INVALID keeps it */
    size_t n;
    int compress;                    /* args->compress, made 0 or 1 */
    int is_streamed;                 /* the one array is made by st */
    afmt_cli_convert_streamed st;
} afmt_cli_convert_plan;

/* convert_args.c: parse the command line into *a.  -1 when the command
 * goes on; else the exit status to end it with (0 after --help, 2 after
 * a usage error, said on stderr). */
int afmt_cli_convert_parse(afmt_cli_convert_args *a, int argc, char **argv, int first);

/* convert_input.c: load and validate a->in and collect its arrays into
 * *in, refusing (exit status 1) a count the target cannot hold or a cast
 * of opaque elements.  0 or an exit status, said on stderr; free *in with
 * afmt_cli_convert_input_free either way. */
int afmt_cli_convert_read(afmt_cli_convert_input *in, const afmt_cli_convert_args *a);
void afmt_cli_convert_input_free(afmt_cli_convert_input *in);

/* convert_cast.c: the element type each array of in is written with,
 * into casts[0..in->views.n): --dtype TYPE casts the arrays of TYPE's
 * class (bool; integers; floats; complex), or every array when none is of
 * that class (a lone i32 array to f32), and says on stderr which it kept;
 * --dtype-of NAME=TYPE casts the array so named whatever its class (keep:
 * not at all), and is a usage error when no array has that name.  0 or
 * an exit status, said (opaque elements cannot be cast: exit 1). */
int afmt_cli_convert_choose_casts(const afmt_cli_convert_input *in, const afmt_cli_convert_args *a,
                                  afmt_dtype *casts);

/* convert_plan.c: the writer's view of every array of in (p->views),
 * checked against the target.  *p starts zeroed; 0 or an exit status,
 * said on stderr; free *p with afmt_cli_convert_plan_free either way. */
int afmt_cli_convert_plan_all(afmt_cli_convert_plan *p, const afmt_cli_convert_input *in,
                              const afmt_cli_convert_args *a);
void afmt_cli_convert_plan_free(afmt_cli_convert_plan *p);
/* Keep the storage form where the target can hold it, and say on stderr
 * where it must change: compression (*compress becomes 0 or 1) before
 * decoding (views NULL), sparse matrices written dense after it. */
void afmt_cli_convert_say_form_changes(const char *in, const afmt_cli_convert_input *c,
                                       const afmt_array *views, const afmt_format *target,
                                       int *compress);

/* convert_stream.c: when array a needs only a transpose or a byte swap,
 * set st up to make it for the sink and *view to the view the writer
 * sees; 1 then, else 0. */
int afmt_cli_convert_stream(afmt_cli_convert_streamed *st, const afmt_array *a,
                            const afmt_format *target, afmt_dtype dtype, afmt_array *view);

/* convert_fit.c */
/* The view target->can_write and target->write see for array a. */
void afmt_cli_convert_target_view(const afmt_array *a, const afmt_format *target,
                                  afmt_dtype dtype, const uint8_t *data, afmt_array *out);
/* Can the target hold array [i] (type, shape, bool values)?  A name it
 * cannot hold is shortened or dropped unless keep_names.  0, or -1 with
 * *rc after the refusal, said. */
int afmt_cli_convert_check_target(const char *in, size_t i, const afmt_format *target,
                                  int keep_names, afmt_array *view, int *rc);
/* The same for all of p's arrays together, when there are several. */
int afmt_cli_convert_check_all(afmt_cli_convert_plan *p);

/* convert_refuse.c: "afmt convert: IN: array [i] DESC: WHAT: ERROR" on
 * stderr ("IN: WHAT: ERROR" when a is NULL: the refusal is of all the
 * arrays, and ERROR's field names the one it met); the exit status it
 * calls for. */
int afmt_cli_convert_refuse(const char *in, size_t i, const afmt_array *a, const char *what,
                            const afmt_error *err);
/* A refused cast's "element K" said as the logical index "[0,1]" of a,
 * whose plain data was in `order`. */
void afmt_cli_convert_name_element(afmt_error *err, const afmt_array *a, afmt_order order);

/* convert_write.c: OUT written from p, all or nothing, and its sidecar.
 * 0 or an exit status, said on stderr. */
int afmt_cli_convert_write(afmt_cli_convert_plan *p);

#endif /* AFMT_CLI_CONVERT_H */
