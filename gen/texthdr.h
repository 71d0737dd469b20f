/* afmt-gen: the "text_header" item (spec/LANGUAGE.md, "Text headers"):
 * a header in JSON or Python dict syntax that describes the arrays.  The
 * item compiles to a constant afmt_header_arrays_desc that runtime/text/afmt_header_arrays.c
 * carries out; this module loads it and emits it. */
#ifndef AFMT_GEN_TEXTHDR_H
#define AFMT_GEN_TEXTHDR_H

#include <stdint.h>

struct emitter;
struct item;
struct spec;

typedef struct th_key {
    char *key;
    int bind;          /* AFMT_BIND_* of runtime/text/afmt_header_arrays.h */
    int tuple;         /* shape: a tuple (Python) rather than a list */
} th_key;

typedef struct th_type {
    char *text;
    int prefix;
    char *dtype;       /* afmt dtype name, NULL for a refusal */
    int size;
    int big;
    int writable;
    char *refuse;
} th_type;

typedef struct texthdr {
    int python;                 /* syntax: python-dict (else json) */
    int length_width, length_big;
    uint64_t max_length;
    int pad, terminator;        /* bytes, -1 when absent */
    uint64_t align, write_align, write_min_pad, write_spare;
    int map;
    char *metadata_key;
    th_key *keys; int nkeys;
    th_type *types; int ntypes;
    char *default_name;
    int lenient;                /* "lenient": "warn" */
    int write_sort[4];          /* "write_sort": AFMT_HEADER_SORT_* of runtime/text/afmt_header_arrays.h,
                                 * negative for descending, 0-terminated */
    char cname[256];            /* C name of the emitted descriptor */
} texthdr;

/* Load the item at JSON object o (jansson json_t *); reports problems as
 * "PATH: /json/path: message" and adds them to *errors. */
texthdr *texthdr_load(const char *path, void *o, const char *jp, int *errors);

/* Validator: emit (once) the descriptor and the call for this item. */
void texthdr_emit_validate(struct emitter *m, struct item *it);
/* Writer: a spec holding a text header gets this writer: the fields before
 * it from their "equals" or "write" literals, switches through their
 * "write" literal, then the header and the payloads. */
int texthdr_in_spec(const struct spec *s);
int texthdr_multi(const struct spec *s);
void texthdr_emit_writer(struct emitter *m);

#endif
