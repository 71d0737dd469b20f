/* afmt-gen: the in-memory model of one spec file (see spec/LANGUAGE.md). */
#ifndef AFMT_GEN_SPEC_H
#define AFMT_GEN_SPEC_H

/* The longest name of an item or a table, in characters.  Names become
 * parts of C identifiers and expressions, which afmt-gen builds in
 * buffers sized for this (emit.h); the loader refuses a longer name. */
#define SPEC_NAME_MAX 48

#include <stdint.h>
#include <stdio.h>
#include "expr.h"
#include "texthdr.h"
#include "archive.h"
#include "cards.h"

typedef enum item_kind {
    IT_FIELD, IT_LET, IT_LOOKUP, IT_CHECK, IT_ARRAY, IT_REPEAT,
    IT_REGION, IT_SWITCH, IT_PAD, IT_TEXTVAL, IT_TEXTHDR,
    IT_STRUCT, /* a use of a named structure (spec.structs) */
    IT_VAR,    /* a value that changes: declared with its first value */
    IT_SET,    /* a new value of a var */
    IT_DIRECTORY, /* arrays placed in a data area by a repeat's records */
    IT_BYTE_ORDER, /* the byte order of what follows, chosen at run time (it->arg: true for big) */
    IT_ARCHIVE,   /* a zip or tar of named members (gen/archive.h) */
    IT_CARDS      /* card headers and their data units (gen/cards.h) */
} item_kind;

/* A field's or payload's byte order (big_endian, payload_big): 0 little,
 * 1 big, or ORDER_RUN: the one a "byte_order" item chose at run time
 * (the validator's c->big; the writer writes the spec's "endian"). */
#define ORDER_RUN (-1)

typedef enum field_type {
    FT_INT,   /* u8..u64, i8..i64 */
    FT_BYTES, /* fixed-size raw bytes (magic) */
    FT_TEXT,  /* fixed-size text slot, NUL-padded */
    FT_STRING, /* length-prefixed bytes: a u8..u64 length, then that many bytes */
    FT_FLOAT  /* f32, f64: an IEEE-754 float, compared and tested, never a number */
} field_type;

enum { LAYOUT_DENSE = 0, LAYOUT_CSR = 1, LAYOUT_COLUMNS = 2, LAYOUT_ZEROS = 3, LAYOUT_COO = 4, LAYOUT_CSC = 5 };

typedef enum leniency {
    LEN_NONE = 0, /* an error in every mode */
    LEN_WARN,     /* an error when strict, a warning when lenient */
    LEN_NOTE      /* checks only: a note (code ok) in both modes, never an error */
} leniency;

typedef struct check {
    expr *e;
    char *text;     /* the expression as written */
    char *message;  /* optional human reason */
    char *code;     /* afmt_code suffix: "constraint" (default), "size", ... */
    leniency lenient;
    char *jpath;
} check;

typedef struct table_entry {
    expr **key;      /* literal values (E_INT / E_STR), or NULL entries for '*' */
    int nkey;
    expr *when;      /* alternative to key */
    char *when_text;
    char *dtype;     /* afmt dtype name */
    expr *size;      /* element size for opaque */
    uint64_t block_elems, block_bytes; /* "block": N elements in B bytes (opaque), else 0 */
    char *type_name; /* "name": what the format calls an opaque type ("Q4_0"), or NULL */
    char *encoding;  /* "plain" | "bits-lsb" */
    char *warn;      /* warning text when matched */
    int writable;    /* writers may choose this entry */
    expr **write_key; /* a "when" entry's key values for writers: E_INT, or E_STR "elsize" */
    int nwrite_key;
    char *jpath;
} table_entry;

typedef struct table {
    char *name;
    table_entry *entries;
    int nentries;
    int nkeys;       /* arity */
    char *jpath;
} table;

struct item;

typedef struct item_list {
    struct item **v;
    int n;
} item_list;

typedef struct switch_case {
    expr **when;     /* literal values */
    int nwhen;
    item_list body;
    char *jpath;
} switch_case;

/* The members of each item kind.  An item is a common header (struct item
 * below) plus exactly one of these, chosen by its kind; reading another
 * kind's struct is a programming error (the union overlaps them). */

typedef struct field_item {       /* IT_FIELD: bytes at the cursor */
    field_type ftype;
    int width;              /* bytes of an integer field */
    int is_signed;
    int big_endian;
    int size;               /* bytes of a bytes/text field */
    int len_width;          /* string: bytes of the length prefix */
    expr *count;            /* array field when set */
    char *count_text;
    expr *equals;           /* literal */
    char *equals_text;
    leniency equals_lenient;
    char *equals_code;
    check *each; int neach;           /* per element of an array field */
    char *order;                      /* "nondecreasing" | "increasing" */
    expr *first, *last;               /* array field: value of first/last */
    char *first_text, *last_text;
    char *increasing_within;          /* array field: strictly increasing within segments */
    char *increasing_segments;        /* offsets field: an earlier array field strictly
                                       * increasing within the segments it marks (CSC) */
    int text_nul_padded;              /* text field: printable ASCII then NULs */
    int order_explicit;               /* the type names its byte order (u32le, f64be) */
    char *write_literal;              /* bytes/text field: "write", the content the writer gives it */
    int has_fequals;                  /* float field: "equals" (fequals, exact in the type) */
    double fequals;
    /* "names": what each value of an integer field is called (afmt info
     * shows the name beside the number), nnames of them */
    uint64_t *name_values;
    char **name_texts;
    int nnames;
} field_item;

typedef struct let_item {         /* IT_LET: a named value */
    expr *value; char *value_text;
} let_item;

typedef struct lookup_item {      /* IT_LOOKUP: a table row chosen by key */
    char *table; expr **key; int nkey;
    char *cname;                      /* its C locals' base (<cname>_type, <cname>_entry):
                                       * c_lookup_base(name) */
} lookup_item;

typedef struct array_item {       /* IT_ARRAY: a payload */
    char *dtype_from;                 /* lookup name */
    char *shape_field;                /* array field used as shape */
    expr *rank; char *rank_text;      /* "rank": the shape is shape_field's first `rank` entries */
    uint64_t fill;                    /* "fill": what a writer writes in the entries past the rank (1) */
    expr **shape; int nshape; char **shape_text; /* or a list of expressions */
    int col_major;
    int payload_big;                  /* 0, 1 or ORDER_RUN */
    int payload_explicit;             /* "endian" given */
    char *name_from;                  /* text field giving the array's name */
    char *logical_from;               /* "logical": the lookup of the values' type, or NULL */
    int check_values;                 /* bool bytes 0/1, pad bits zero */
    leniency values_lenient;
    int layout;                       /* LAYOUT_* */
    expr *compressed; char *compressed_text;   /* true: one LZ4 block */
    expr *stored; char *stored_text;           /* its length in bytes */
    expr *nnz; char *nnz_text;        /* csr, coo: number of stored values */
    char *row_offsets, *col_indices;  /* csr: array fields; csc: its col_offsets, row_indices */
    char *types_field;                /* columns: array field of type codes */
    char *names_field;                /* columns: string field of labels */
    char *col_table;                  /* columns: table mapping codes */
    int coo_index_width;              /* coo: bytes of each index */
    expr *coo_with_cols; char *coo_with_cols_text; /* coo: records hold a column index */
    /* Not from a spec: the writer's stand-in for the array a directory's
     * record describes (gen/emit_write_dir.c), binding the record's fields
     * (shape, rank, name, type) to it; its payload is the directory's. */
    int dir_record;
    char *offset_from;                /* the record's field of the array's offset */
    const char *offset_c;             /* the C local holding that offset */
    const char *default_name;         /* the C local of the prefix of unnamed arrays' names, or NULL */
    int dims_reversed;                /* the shape field holds the view's dims reversed */
} array_item;

typedef struct repeat_item {      /* IT_REPEAT: its body again and again */
    int until_end;                    /* repeat until the end of the region */
    int until_tiled;                  /* repeat until the tiles cover the matrix */
    int skip_ws;
    uint64_t min_count;               /* fewest repetitions */
    char *unique;                     /* a field of the body whose value no two repetitions share */
    int unique_c_string;              /* "unique_as": "c-string": keys compared up to their first NUL */
    char *meta_key, *meta_value;      /* "metadata": its string key field and the struct item of its value */
    long long meta_bool;              /* "metadata": the type code of bools, or -1 */
    char *tile_row, *tile_col, *tile_rows, *tile_cols; /* blocks that tile a matrix */
    expr *tile_within[2]; char *tile_within_text[2];
} repeat_item;

typedef struct struct_use {      /* IT_STRUCT: a named structure, here */
    char *use;                        /* its name in spec.structs */
    expr **args; int nargs;           /* one value per parameter */
    char **args_text;
} struct_use;

typedef struct directory_item {  /* IT_DIRECTORY: arrays of earlier records */
    char *records;                    /* the repeat whose repetitions are the records */
    char *dtype, *shape, *name, *offset; /* names of values of the repeat's body */
    char *default_name;               /* writer: unnamed arrays are named it + their index, or NULL */
    int fastest_first;                /* "dims": "fastest-first" (the view's shape reversed) */
    expr *rank; char *rank_text;      /* "rank": the shape is the first `rank` entries of the shape field */
    uint64_t fill;                    /* "fill": what a writer writes in the entries past the rank (1) */
    int payload_big;                  /* 0, 1 or ORDER_RUN */
    int payload_explicit;             /* "endian" given */
    leniency pad_lenient;
    char *align_c;                    /* writer: the C local holding "align", evaluated once
                                       * where the records are written (emit_write_dir.c) */
} directory_item;

typedef struct region_item {      /* IT_REGION: a sized window */
    int exact;                        /* content must fill it */
    leniency exact_lenient;
    /* "inflate": "zlib": the size bytes are a zlib stream and the body
     * reads what it inflates to (gen/inflated.c, runtime/compress/afmt_inflated.c) */
    int inflate;
    expr *out_size; char *out_size_text; /* "inflated_size" as an expression, or */
    unsigned size_at, size_width;     /* ... as {"at", "type", "plus"}: an integer of
                                       * the output (width 0: not so) */
    int size_big, size_order_explicit;
    uint64_t size_plus;
    uint64_t max_size;                /* "max_size": 0 none */
    /* Not from a spec: the names its items bind that the items after it
     * read, in the order they are first read (gen/scope.c): what its
     * function hands out to its caller (gen/emit_func.c). */
    const char **escapes; int nescapes;
} region_item;

typedef struct switch_item {      /* IT_SWITCH: one body chosen by value (cases in struct item) */
    char *else_message;
    /* Not from a spec: the C names of its cases, made for every switch of
     * the spec at the first ask (gen/emit_case_names.c). */
    char **case_names;
} switch_item;

typedef struct pad_item {         /* IT_PAD: bytes that must be zero */
    leniency fill_lenient;            /* non-zero fill */
} pad_item;

typedef struct textval_item {     /* IT_TEXTVAL: one value in text syntax */
    char *grammar;                    /* runtime scanner afmt_<grammar>_text_scan */
} textval_item;

typedef struct item {
    item_kind kind;
    char *name;
    char *jpath;            /* "/body/3" */
    char *doc;
    /* Members more than one kind has, with one meaning each: */
    expr *arg; char *arg_text;        /* repeat count, region size, pad size, switch selector */
    /* The nested bodies: empty for other kinds, so that code walking the
     * whole tree needs no test of the kind. */
    item_list body;                   /* repeat, region */
    switch_case *cases; int ncases;   /* switch */
    check *checks; int nchecks;       /* field: its checks; check item: its one check */
    char *attribute;                  /* lookup, check: the field it concerns */
    expr *write; char *write_text;    /* field, switch: the value a writer stores */
    union {                           /* by kind; IT_CHECK has nothing more */
        field_item field;
        let_item let;
        lookup_item lookup;
        array_item array;
        repeat_item repeat;
        region_item region;
        switch_item sw;
        pad_item pad;
        textval_item textval;
        struct_use st;
        directory_item dir;
        texthdr *th;                  /* IT_TEXTHDR (gen/texthdr.c) */
        archive *ar;                  /* IT_ARCHIVE (gen/archive.c) */
        struct afmt_cards_desc *cards; /* IT_CARDS (gen/cards.c) */
    };
} item;

typedef struct detect_rule {
    int skip_ws;
    uint64_t at;
    unsigned char *bytes;
    int nbytes;
    char *first_member;  /* "first_member": the archive's first member name matches this pattern too */
} detect_rule;

/* A named structure (top-level "structs"): a body read wherever an item
 * {"struct": LABEL, "use": NAME, "args": [...]} stands, itself included
 * (recursion, bounded at run time by limits.max_depth).  Its body sees
 * only its parameters (unsigned integers) and what it defines. */
typedef struct named_struct {
    char *name;
    char **params; int nparams;
    item_list body;
    char *doc;
    char *jpath;
} named_struct;

typedef struct spec {
    char *path;          /* "spec/rawarray.json" */
    char *format;        /* "rawarray" */
    char *title;
    char *holds;         /* "2-d matrices": what the format holds, in its users' words (writer refusals), or NULL */
    char **extensions; int nextensions;
    char **shared_extensions; int nshared_extensions; /* named so, but not by this format alone */
    int big_endian;      /* default for fields and payloads */
    detect_rule *detect; int ndetect;
    table *tables; int ntables;
    item_list body;
    named_struct *structs; int nstructs;
    int trailer_keep;    /* 1: bytes after the structure are metadata */
    leniency trailer_lenient;
    int col_major;       /* order of the (first) payload */
    /* sidecar (afmt_meta_desc) */
    char *sidecar_suffix;
    char *sidecar_keys[6]; /* rows, cols, value_type, nnz, schema, label */
    char *sidecar_names[32][2]; int nsidecar_names; /* dtype -> spelling */
    int multi;           /* a top-level repeat holds the arrays */
    char *read_only;     /* "read_only": why there is no writer (it refuses with this), or NULL */
    const struct item *byte_order; /* the top-level "byte_order" item, or NULL */
    /* every directory item, the body's (its repeats, regions and cases
     * too) first, then each structure's: what directory_of searches */
    const struct item **directories; int ndirectories;
} spec;

/* load.c: parse and structurally check a spec file; prints
 * "PATH: /json/path: message" for each problem and returns NULL. */
spec *spec_load(const char *path);
/* The same for a spec's text in memory (path: its name in diagnostics). */
spec *spec_load_text(const char *path, const char *text);

/* scope.c: resolve every name the spec reads to the item binding it and
 * record, on the model, what that tells the emitters (a region's
 * escapes).  Run by spec_load on every spec it returns. */
void scope_resolve(spec *s);
/* The directory whose records are repeat's repetitions, or NULL. */
const item *directory_of(const spec *s, const item *repeat);
/* Whether an item after the region reads the value it binds as name. */
int region_escapes(const item *region, const char *name);

/* check.c: the language's diagnostics of the model (printed as the
 * loader's are); 0 when there are none, -1 otherwise.  The emitters are
 * given only specs it passed. */
int spec_check(const spec *s);
/* 1: repeat's "unique" key is an integer field of its body, 0: another
 * field without "count" (a string, bytes), -2: a float field (no key),
 * -1: no such field. */
int unique_key_kind(const item *repeat);

/* What a format descriptor (afmt_format) says of the spec: the order of
 * its first payload, whether a file may hold several arrays, whether its
 * writer compresses (emit_format.c; the reference interpreter, interp/,
 * describes a spec it loads with the same answers). */
void spec_format_traits(const spec *s, int *col_major, int *multi, int *compresses);

/* "; known: (1, 1) i8, ..." (malloc'd): the entries of tb as an unknown
 * type code's failure lists them (emit_common.c). */
char *table_known_text(const table *tb);

/* emit_*.c */
int emit_format(const spec *s, const char *outdir);
int emit_registry(spec **specs, int n, const char *outdir);
/* emit_dict.c: outdir/fuzz/<format>.dict, a fuzzing dictionary */
int emit_dict(const spec *s, const char *outdir);

/* Diagnostics shared by load.c and the emitters. */
void spec_error(const char *path, const char *jpath, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
