/* afmt-gen: blocks that tile a matrix, as a module (spec/LANGUAGE.md,
 * "Blocks that tile a matrix"; gen/layout.h, repeat_module).
 *
 * A repeat with "tiles": {row, col, rows, cols, within} (and "until":
 * "tiled") holds blocks at (row, col) of rows x cols cells that together
 * cover a within[0] x within[1] matrix exactly once.  The validator keeps
 * a fixed-capacity tile set (runtime afmt_tiles), adds each block as soon
 * as its position and size are read, and hands each 2-d array in a block
 * over with its place in the matrix.  Nothing here is tied to one format. */
#include <stdlib.h>
#include <string.h>
#include "layout.h"

/* Before the loop: the tile set, on the stack. */
static void tiles_before(emitter *m, item *it)
{
    blame bl;
    if (!it->repeat.tile_row) return;
    char *w0, *w1;
    bl = blame_at(it->name, "AFMT_NO_INDEX", "c->pos");
    w0 = emit_u64(m, &bl, it->repeat.tile_within[0], it->repeat.tile_within_text[0]);
    w1 = emit_u64(m, &bl, it->repeat.tile_within[1], it->repeat.tile_within_text[1]);
    line(m, "afmt_tiles tile_set_%s; /* on the stack: a fixed capacity, whatever the file claims */", it->name);
    line(m, "afmt_tiles *const tiles_%s = &tile_set_%s;", it->name, it->name);
    line(m, "afmt_tiles_init(tiles_%s, %s, %s);", it->name, w0, w1);
    free(w0);
    free(w1);
}

/* Blocks follow until they cover the matrix (at least min of them); what
 * follows the last is the trailer, not another block. */
static int tiles_until(emitter *m, item *it, const char *r)
{
    if (!it->repeat.until_tiled) return 0;
    line(m, "if (%s >= %llu && afmt_tiles_complete(tiles_%s)) break;", r, (unsigned long long)it->repeat.min_count, it->name);
    return 1;
}

static void tiles_body_begin(emitter *m, item *it, repeat_state *saved)
{
    saved->tiles = m->tiles;
    saved->tiles_done = m->tiles_done;
    if (it->repeat.tile_row) {
        m->tiles = it;
        m->tiles_done = 0;
    }
}

static void tiles_body_end(emitter *m, item *it, repeat_state *saved)
{
    if (it->repeat.tile_row && !m->tiles_done)
        gen_error(m, it->jpath, "tiles: the body must define '%s', '%s', '%s' and '%s'", it->repeat.tile_row, it->repeat.tile_col,
                  it->repeat.tile_rows, it->repeat.tile_cols);
    m->tiles = saved->tiles;
    m->tiles_done = saved->tiles_done;
}

/* Once a tiled repeat's block position and size are known, add the block
 * to the set: outside the matrix or overlapping another is an error before
 * any of its payload is looked at. */
static void tiles_after_item(emitter *m)
{
    if (m->tiles_done) return;
    item *t = m->tiles;
    sym *r = sym_find(m, t->repeat.tile_row), *c = sym_find(m, t->repeat.tile_col);
    sym *h = sym_find(m, t->repeat.tile_rows), *w = sym_find(m, t->repeat.tile_cols);
    if (!r || !c || !h || !w) return;
    m->tiles_done = 1;
    if (r->kind != SY_INT || c->kind != SY_INT || h->kind != SY_INT || w->kind != SY_INT || r->t != VT_U || c->t != VT_U ||
        h->t != VT_U || w->t != VT_U) {
        gen_error(m, t->jpath, "tiles: block position and size must be unsigned integer fields");
        return;
    }
    /* the names of the fields, for messages: one table per repeat */
    {
        char *names = xprintf("tile_fields_%s", t->name);
        char *what = xprintf("the tile fields of repeat '%s'", t->name);
        const char *stored;
        if (helper_once(m, names, what, t->jpath, &stored) == 0) {
            sb_printf(m->prelude, "/* The fields that place a block of %s in the matrix. */\n", t->name);
            sb_printf(m->prelude, "static const afmt_tile_fields %s =\n"
                      "    {.row = \"%s\", .col = \"%s\", .rows = \"%s\", .cols = \"%s\"};\n\n",
                      names, r->name, c->name, h->name, w->name);
        }
        free(what);
        decl_use(m, r->off_decl);
        decl_use(m, c->off_decl);
        decl_use(m, h->off_decl);
        decl_use(m, w->off_decl);
        /* inside the matrix, overlapping no block before it: one call */
        line(m, "if (afmt_tiles_place(c, tiles_%s, &%s, %s, %s, %s, %s, %s, %s, %s, %s)) return -1;", t->name, names, r->c,
             c->c, h->c, w->c, r->off, c->off, h->off, w->off);
        free(names);
    }
}

/* A 2-d array in a block: where the block is in the matrix. */
static void tiles_array_view(emitter *m, item *it)
{
    if (it->array.nshape != 2) return;
    sym *r = sym_find(m, m->tiles->repeat.tile_row), *c = sym_find(m, m->tiles->repeat.tile_col);
    if (r && c) line(m, "afmt_view_tile(&a_%s, %s, %s, tiles_%s);", it->name, r->c, c->c, m->tiles->name);
}

/* After the loop: every cell covered. */
static void tiles_after(emitter *m, item *it)
{
    blame bl;
    if (!it->repeat.tile_row) return;
    line(m, "if (!afmt_tiles_complete(tiles_%s)) {", it->name);
    m->indent++;
    bl = blame_at(it->name, "AFMT_NO_INDEX", "c->pos");
    {
        char *args = xprintf("tiles_%s->area, tiles_%s->rows, tiles_%s->cols", it->name, it->name, it->name);
        emit_fail(m, &bl, "constraint", LEN_NONE,
                  "\"the blocks cover %\" PRIu64 \" cells of the %\" PRIu64 \" x %\" PRIu64 \" matrix, not all\"", args);
        free(args);
    }
    m->indent--;
    line(m, "}");
}

const repeat_module repeat_tiles = {
    "tiles", tiles_before, tiles_until, tiles_body_begin, tiles_body_end, tiles_after_item, tiles_array_view, tiles_after,
};

const repeat_module *repeat_module_of(const item *repeat)
{
    return repeat->kind == IT_REPEAT && (repeat->repeat.tile_row || repeat->repeat.until_tiled) ? &repeat_tiles : NULL;
}
