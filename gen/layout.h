/* afmt-gen: array layouts as modules (spec/LANGUAGE.md, "Layouts").
 *
 * An array item's "layout" says how its elements are stored: "dense"
 * (every element, the default), "csr", "coo", "zeros", "columns".  Each
 * layout other than dense is one module, gen/layout_<name>.c, that owns
 * what the validator emits for it; emit_validate.c's emit_array calls the
 * hooks of the array's layout and knows no layout by name, and so does
 * emit_write.c (the write_* hooks).  (The keys of each layout are still
 * loaded and checked in load_item.c's load_array_layout.)
 *
 * To add a layout: add LAYOUT_<NAME> to gen/spec.h, write
 * gen/layout_<name>.c defining one `const layout_module layout_<name>`,
 * declare it below and list it in LAYOUTS (layout.c); document it in
 * spec/LANGUAGE.md and give its diagnostics negative tests in tests/specs/bad.
 *
 * Hooks may be NULL: a NULL hook does what a dense array does.
 * Not thread-safe state: none (the table is constant). */
#ifndef AFMT_GEN_LAYOUT_H
#define AFMT_GEN_LAYOUT_H

#include "emit.h"

/* What the validator of one array item shares with its layout's hooks. */
typedef struct layout_emit {
    sym *lk;       /* the dtype lookup: <lk->c>_size, _enc, _dtype */
    char **dims;   /* C names of the dimensions (a shape of expressions), or NULL */
    sym *ref[2];   /* fields the layout refers to (csr: row_offsets, col_indices) */
} layout_emit;

typedef struct layout_module {
    const char *name;   /* as the spec writes it */
    int id;             /* LAYOUT_* of gen/spec.h */
    /* The storage fixes the order of the elements (csr: row by row; coo:
     * records in row-major order): "order" must say row-major, a spec
     * saying column-major is refused rather than read as row-major. */
    int stored_by_rows;
    /* Validator of the whole array item, instead of emit_array's (and
     * the hooks below): for a layout that is no single view. */
    void (*validate)(emitter *m, item *it);
    /* Validator, in the order emit_array calls them.  resolve: look up the
     * fields the layout refers to; nonzero (after gen_error) stops. */
    int (*resolve)(emitter *m, item *it, layout_emit *le);
    /* stored: declare `stored_<name>` (elements stored) and, when
     * computes_nbytes, `nbytes_<name>` too (else afmt_payload_bytes does). */
    void (*stored)(emitter *m, item *it, layout_emit *le);
    int computes_nbytes;
    /* records: checks on the stored bytes before the view is described. */
    void (*records)(emitter *m, item *it, layout_emit *le);
    /* view: set the layout's members of the view `a_<name>`; the first
     * runs before the tile members are set, the second after them. */
    void (*view)(emitter *m, item *it, layout_emit *le);
    void (*view_after_tiles)(emitter *m, item *it, layout_emit *le);
    /* Writer (emit_write.c), in the order it calls them; NULL: as for a
     * dense array.  write_check: what the array(s) given must be, first
     * (write_refuses: a form afmt reads and never writes; its check
     * refuses the whole structure).  write_role: nonzero when the value
     * of field f comes from array a (a role of the module's own); then
     * write_field defines it (a symbol: an integer, an array field, a list
     * of strings).  write_size: the payload's size nbytes_<a> where the
     * writer reads it (lk: the dtype lookup, NULL if none).  write_payload:
     * put the payload.  write_lazy: A_<a> is declared only where an
     * expression names it. */
    void (*write_check)(emitter *m, item *a);
    int write_refuses;
    int (*write_role)(const item *a, const item *f);
    void (*write_field)(emitter *m, item *a, item *f, int role);
    void (*write_size)(emitter *m, item *a, sym *lk);
    void (*write_payload)(emitter *m, item *a, sym *lk, const char *endian);
    int write_lazy;
} layout_module;

/* emit_write.c, for the writer hooks: fail unless exactly one array is
 * written (a format whose arrays are not repeated), and define field f as
 * the integer C expression c (malloc'd, taken) of type t, range-checked
 * against f's signedness. */
void writer_need_one(emitter *m, item *a);
void writer_int(emitter *m, item *f, char *c, vtype t);

/* emit_validate.c: fail (truncated) unless need_c bytes are left at pos;
 * what names them in the message. */
void need_bytes(emitter *m, const blame *bl, const char *need_c, const char *what);

/* A payload encoding chosen by the file ("compressed" on an array item:
 * gen/layout_lz4.c), around whatever layout the array has.  Each hook
 * may be NULL. */
typedef struct encoding_module {
    const char *name;
    /* validator, in emit_array: open a branch that sets nbytes_<a> for the
     * encoded payload and proves it decodes, before emit_array's plain
     * size (then in an else branch) and close it after */
    void (*validate_size_open)(emitter *m, item *it, sym *lk);
    void (*validate_size_close)(emitter *m, item *it, sym *lk);
    /* validator: set the view's members (its encoding) */
    void (*view)(emitter *m, item *it, sym *lk);
    /* validator: a C condition appended to the bool scan's (malloc'd) */
    char *(*scan_guard)(const item *it);
    /* writer: set nbytes_<a>, encoding the payload when the file says so */
    void (*write_size)(emitter *m, item *it, sym *lk);
    /* writer: put the payload to the sink */
    void (*write_payload)(emitter *m, item *it, sym *lk, const char *endian);
} encoding_module;

extern const encoding_module encoding_lz4;

/* What a repeat module saves of the emitter around a repetition's body. */
typedef struct repeat_state {
    item *tiles;
    int tiles_done;
} repeat_state;

/* A repetition with a structure of its own (blocks that tile a matrix:
 * gen/layout_tiles.c).  emit_repeat calls the hooks where the loop needs
 * them; each may be NULL. */
typedef struct repeat_module {
    const char *name;
    void (*before)(emitter *m, item *repeat);                /* before the loop */
    /* the end of the repetitions (r: the counter); 0: as the spec's "until" says */
    int (*until)(emitter *m, item *repeat, const char *r);
    void (*body_begin)(emitter *m, item *repeat, repeat_state *saved);
    void (*body_end)(emitter *m, item *repeat, repeat_state *saved);
    void (*after_item)(emitter *m);                          /* after each item of the body */
    void (*array_view)(emitter *m, item *array);             /* view members of an array in the body */
    void (*after)(emitter *m, item *repeat);                 /* after the loop */
} repeat_module;

extern const repeat_module repeat_tiles;
/* The module of a repeat item, NULL for a plain repetition. */
const repeat_module *repeat_module_of(const item *repeat);
/* The encoding module of an array item, NULL for a payload stored as its
 * dtype says. */
const encoding_module *encoding_of(const item *array);

extern const layout_module layout_csr, layout_csc, layout_coo, layout_zeros, layout_columns;

/* The module of a layout, by its id or by the name a spec writes; NULL for
 * dense and for names that are no layout. */
const layout_module *layout_by_id(int id);
const layout_module *layout_by_name(const char *name);

#endif
