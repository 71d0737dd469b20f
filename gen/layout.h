/* afmt-gen: array layouts as modules (spec/LANGUAGE.md, "Layouts").
 *
 * An array item's "layout" says how its elements are stored: "dense"
 * (every element, the default), "csr", "coo", "zeros", "columns".  Each
 * layout other than dense is one module, gen/layout_<name>.c, that owns
 * what the validator emits for it; emit_validate.c's emit_array calls the
 * hooks of the array's layout and knows no layout by name.  (The keys of
 * each layout are still loaded and checked in load_item.c's
 * load_array_layout, and the writer's layout code is in emit_write.c.)
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
} layout_module;

/* emit_validate.c: fail (truncated) unless need_c bytes are left at pos;
 * what names them in the message. */
void need_bytes(emitter *m, const blame *bl, const char *need_c, const char *what);
/* emit_validate.c: "; known: ..." listing a table's entries, as a quoted
 * C format literal (malloc'd). */
char *known_entries(const table *tb);

extern const layout_module layout_csr, layout_coo, layout_zeros, layout_columns;

/* The module of a layout, by its id or by the name a spec writes; NULL for
 * dense and for names that are no layout. */
const layout_module *layout_by_id(int id);
const layout_module *layout_by_name(const char *name);

#endif
