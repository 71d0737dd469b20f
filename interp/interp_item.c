/* afmt reference interpreter: the items other than fields, lookups and
 * arrays -- let, check, repeat, region, switch, pad, a text value, a text
 * header -- one function each, as gen/emit_validate.c (and the repeat
 * module of gen/layout_tiles.c) emits them. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "text/afmt_header_arrays.h"
#include "interp.h"

int irun_let(irun *r, const item *it)
{
    const iblame b = iblame_pos(it->name);
    ival v;
    isym *y;
    if (ieval(r, &b, it->let.value, it->let.value_text, &v)) return -1;
    y = isym_push(r, IS_INT, it);
    y->t = v.t == VT_S ? VT_S : VT_U; /* a truth value is 0 or 1 */
    y->v = v.v;
    y->off_is_pos = 1;
    return 0;
}

int irun_check_item(irun *r, const item *it)
{
    const isym *attr = it->attribute ? isym_find(r, it->attribute) : NULL;
    const iblame b = iblame_of(attr);
    return irun_checks(r, &b, &it->checks[0], 1, attr);
}

/* ---- repeat */

/* The first case whose values hold v, or -1: from the load's table when
 * the values are small (interp_aux.c), else searched. */
static int case_of(const irun *r, const item *it, uint64_t v)
{
    const iaux *a = iaux_of(r->in, it);
    int i, j;
    if (a && a->case_of) return v <= a->case_max ? a->case_of[v] : -1;
    for (i = 0; i < it->ncases; i++)
        for (j = 0; j < it->cases[i].nwhen; j++)
            if (v == it->cases[i].when[j]->ival) return i;
    return -1;
}


/* The integer field a count names when it is one field alone, else NULL
 * (as afmt-gen's count_field). */
static const isym *count_field(const irun *r, const item *it)
{
    const isym *y;
    if (!it->arg || it->arg->kind != E_NAME) return NULL;
    y = isym_find(r, it->arg->sval);
    return y && y->kind == IS_INT && y->it && y->it->kind == IT_FIELD && !y->off_is_pos ? y : NULL;
}

/* A counted repetition's count, held to the bytes left: every repetition
 * takes at least one.  A count that is one field is blamed, at its own
 * offset, as the generated validator does. */
static int repeat_count(irun *r, const item *it, uint64_t *n)
{
    const isym *field = count_field(r, it);
    const iblame b = field ? iblame_of(field) : iblame_pos(it->name);
    if (ieval_u64(r, &b, it->arg, it->arg_text, n)) return -1;
    if (!afmt_count_exceeds(r->c, *n)) return 0;
    if (field) {
        const uint64_t left = afmt_end(r->c) - r->c->pos;
        return ifail(r, &b, AFMT_E_TRUNCATED, LEN_NONE,
                     "%" PRIu64 " repetition%s of %s cannot fit in the %" PRIu64 " byte%s left at offset %" PRIu64, *n,
                     *n == 1 ? "" : "s", it->name, left, left == 1 ? "" : "s", r->c->pos);
    }
    return ifail(r, &b, AFMT_E_TRUNCATED, LEN_NONE, "%" PRIu64 " repetitions cannot fit in the %" PRIu64 " bytes left",
                 *n, afmt_end(r->c) - r->c->pos);
}

/* What starts repetition k: blanks skipped, the end (*stop), the limit on
 * repetitions, the path's index. */
static int repeat_head(irun *r, const item *it, itiles *tiles, uint64_t k, uint64_t *comments, int *stop)
{
    afmt_validation *c = r->c;
    const int top = c->region == NULL;
    const iblame b = iblame_pos(it->name);
    *stop = 0;
    if (it->repeat.skip_ws == 2) {
        *comments = 0;
        afmt_src_skip_blank(c->src, afmt_end(c), &c->pos, 1, top, comments);
    } else if (it->repeat.skip_ws) {
        afmt_src_skip_blank(c->src, afmt_end(c), &c->pos, 0, top, NULL);
    }
    if (it->repeat.until_tiled) {
        if (k >= it->repeat.min_count && afmt_tiles_complete(tiles->set)) return *stop = 1, 0;
    } else if (it->repeat.until_end) {
        const int at_end = afmt_src_at_end(c->src, afmt_end(c), c->pos);
        char what[256];
        if (at_end > 0) return *stop = 1, 0;
        snprintf(what, sizeof what, "the next %s", it->name);
        if (at_end < 0)
            return afmt_src_short(c->src, c->err, c->path, it->name, AFMT_NO_INDEX, c->pos, afmt_end(c), 1, what);
    }
    if (it->repeat.until_end && !it->repeat.skip_ws && top) afmt_src_keep_from(c->src, c->pos);
    if (k >= c->opt->limits.max_items)
        return ifail(r, &b, AFMT_E_LIMIT, LEN_NONE, "more than %" PRIu64 " repetitions", c->opt->limits.max_items);
    afmt_path_set_index(c->path, k);
    return 0;
}

/* One repetition: its names are its own; it must consume a byte; a
 * directory's repeat keeps its record (dl). */
static int repeat_body(irun *r, const item *it, itiles *tiles, const uint64_t *comments, afmt_dir_list *dl)
{
    const iblame b = iblame_pos(it->name);
    const uint64_t start = r->c->pos;
    const int mark = isym_mark(r);
    const uint64_t *saved_comments = r->comments;
    itiles *saved_tiles = r->tiles;
    int rc;
    if (it->repeat.tile_row) {
        tiles->placed = 0;
        r->tiles = tiles;
    }
    if (it->repeat.skip_ws == 2) r->comments = comments;
    rc = irun_items(r, &it->body);
    if (rc == 0 && dl) rc = idir_add(r, it, dl);
    if (rc == 0 && it->repeat.meta_value) rc = irun_kv_visit(r, it); /* as the generated repetition ends */
    r->comments = saved_comments;
    r->tiles = saved_tiles;
    isym_pop_to(r, mark);
    if (rc) return -1;
    if (r->c->pos == start) return ifail(r, &b, AFMT_E_CONSTRAINT, LEN_NONE, "a repetition consumed no bytes");
    return 0;
}

/* A tiled repeat's matrix (before the loop) and its coverage (after). */
static int tiles_before(irun *r, const item *it, itiles *t, afmt_tiles *set)
{
    const iblame b = iblame_pos(it->name);
    uint64_t w0, w1;
    t->repeat = it;
    t->set = set;
    t->placed = 0;
    if (!it->repeat.tile_row) return 0;
    if (ieval_u64(r, &b, it->repeat.tile_within[0], it->repeat.tile_within_text[0], &w0)) return -1;
    if (ieval_u64(r, &b, it->repeat.tile_within[1], it->repeat.tile_within_text[1], &w1)) return -1;
    afmt_tiles_init(set, w0, w1);
    return 0;
}

static int tiles_after(irun *r, const item *it, const itiles *t)
{
    const iblame b = iblame_pos(it->name);
    if (!it->repeat.tile_row || afmt_tiles_complete(t->set)) return 0;
    return ifail(r, &b, AFMT_E_CONSTRAINT, LEN_NONE,
                 "the blocks cover %" PRIu64 " cells of the %" PRIu64 " x %" PRIu64 " matrix, not all", t->set->area,
                 t->set->rows, t->set->cols);
}

int irun_tiles_after_item(irun *r)
{
    itiles *t = r->tiles;
    const item *rep = t->repeat;
    const isym *row, *col, *rows, *cols;
    afmt_tile_fields names;
    if (t->placed) return 0;
    row = isym_find(r, rep->repeat.tile_row);
    col = isym_find(r, rep->repeat.tile_col);
    rows = isym_find(r, rep->repeat.tile_rows);
    cols = isym_find(r, rep->repeat.tile_cols);
    if (!row || !col || !rows || !cols) return 0;
    t->placed = 1;
    names.row = row->name;
    names.col = col->name;
    names.rows = rows->name;
    names.cols = cols->name;
    return afmt_tiles_place(r->c, t->set, &names, row->v, col->v, rows->v, cols->v, row->off, col->off, rows->off,
                            cols->off);
}

/* Is the repeat's "unique" key an integer field (of its own body, as
 * gen/emit_struct.c's emit_unique_setup looks)? */
static int unique_is_int(const item *it)
{
    int i, is_int = 0;
    for (i = 0; i < it->body.n; i++) {
        const item *f = it->body.v[i];
        if (f->kind == IT_FIELD && f->name && strcmp(f->name, it->repeat.unique) == 0 && !f->field.count)
            is_int = f->field.ftype == FT_INT;
    }
    return is_int;
}

/* ---- a repeat of one plain field
 *
 * GGUF's arrays are a repeat of one structure use whose switch, on the
 * structure's parameter, picks one number or one string with nothing to
 * check: 450,000 repetitions in a 150,000-token vocabulary, each a
 * structure's scope, a switch and a field.  When the field every
 * repetition reads is known before the loop -- the body is one item,
 * resolved through a structure use (its arguments integer names of the
 * scope: the same in every repetition) and switches on names whose
 * values are known -- and reading it is only its take (ifield_plain),
 * the loop takes it count times, with the repetition's index in the path,
 * and fails where and as the items would: nothing else a repetition does
 * can fail, or be seen, for that body. */

/* The value of a name e in a structure's scope (ns's parameters bound to
 * args) or, ns NULL, in r's; as_u64: as ieval_u64 takes it (0 for a
 * negative value, which fails there). */
static int known_value(const irun *r, const named_struct *ns, const uint64_t *args, const expr *e, int as_u64,
                       uint64_t *v)
{
    const isym *y;
    int i;
    if (e->kind != E_NAME) return 0;
    if (ns) { /* a body of one item: nothing but the parameters is defined before it */
        for (i = 0; i < ns->nparams; i++)
            if (ns->params[i] == e->sval || strcmp(ns->params[i], e->sval) == 0) return *v = args[i], 1;
        return 0;
    }
    y = iname_int(r, e);
    if (!y || (as_u64 && y->t == VT_S && (int64_t)y->v < 0)) return 0;
    *v = y->v;
    return 1;
}

/* The plain field (ifield_plain, descriptor in d) a body of one item
 * reads and all it does, or NULL; ns, args: the structure it is in. */
static const item *plain_field_of(const irun *r, const item_list *body, const named_struct *ns, const uint64_t *args,
                                  afmt_field_desc *d)
{
    const item *it = body->n == 1 ? body->v[0] : NULL;
    uint64_t v, inner[8];
    const iaux *a;
    int i;
    if (!it) return NULL;
    switch (it->kind) {
    case IT_FIELD: return ifield_plain(r, it, d) ? it : NULL;
    case IT_SWITCH:
        if (!known_value(r, ns, args, it->arg, 0, &v) || (i = case_of(r, it, v)) < 0) return NULL;
        return plain_field_of(r, &it->cases[i].body, ns, args, d);
    case IT_STRUCT: {
        const uint64_t depth_limit = r->c->opt ? r->c->opt->limits.max_depth : 32; /* afmt_struct_enter's */
        const named_struct *use;
        a = iaux_of(r->in, it);
        if (ns || !a || a->struct_index < 0 || it->st.nargs > 8 || r->c->depth >= depth_limit) return NULL;
        use = &r->in->s->structs[a->struct_index];
        for (i = 0; i < it->st.nargs; i++)
            if (!known_value(r, NULL, NULL, it->st.args[i], 1, &inner[i])) return NULL;
        return plain_field_of(r, &use->body, use, inner, d);
    }
    default: return NULL;
    }
}

/* Is each repetition of it only the take of one plain field (*f, its
 * descriptor d)?  A counted repeat with nothing kept or placed per
 * repetition (unique keys, metadata, directory records, tiles). */
static int repeat_of_plain_field(const irun *r, const item *it, const item **f, afmt_field_desc *d)
{
    const repeat_item *rp = &it->repeat;
    if (!it->arg || rp->until_end || rp->until_tiled || rp->skip_ws || rp->tile_row || rp->unique || rp->meta_value ||
        r->tiles || directory_of(r->in->s, it))
        return 0;
    *f = plain_field_of(r, &it->body, NULL, NULL, d);
    return *f != NULL;
}

/* The repetitions of a repeat of one plain field: what repeat_head and
 * the body's items would do that can fail. */
static int repeat_plain(irun *r, const item *it, const item *f, const afmt_field_desc *d, uint64_t count, uint64_t *k)
{
    afmt_validation *c = r->c;
    for (; *k < count; ++*k) {
        if (*k >= c->opt->limits.max_items) {
            const iblame b = iblame_pos(it->name);
            return ifail(r, &b, AFMT_E_LIMIT, LEN_NONE, "more than %" PRIu64 " repetitions", c->opt->limits.max_items);
        }
        afmt_path_set_index(c->path, *k);
        if (ifield_take_plain(r, f, d)) return -1;
    }
    return 0;
}

int irun_repeat(irun *r, const item *it)
{
    afmt_tiles *set = NULL;
    itiles tiles;
    uint64_t count = 0, k = 0, comments = 0;
    int stop = 0, rc = 0;
    const item *saved_unique_repeat = r->unique_repeat;
    afmt_unique_keys *saved_unique_keys = r->unique_keys, keys;
    const uint64_t saved_index = r->rep_index;
    afmt_dir_list *dl = NULL;
    const item *plain = NULL;
    afmt_field_desc plain_desc;
    if (it->arg && repeat_count(r, it, &count)) return -1;
    if (it->repeat.tile_row || it->repeat.until_tiled) {
        set = calloc(1, sizeof *set); /* the generated code's is on its stack */
        if (!set) return afmt_fail(r->c->err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, 0, "out of memory");
    }
    memset(&tiles, 0, sizeof tiles);
    if (set && tiles_before(r, it, &tiles, set)) rc = -1;
    if (rc == 0 && it->repeat.unique) afmt_unique_keys_init(&keys, unique_is_int(it), it->repeat.unique_c_string);
    if (rc == 0 && directory_of(r->in->s, it) && !(dl = idir_begin(r, it))) rc = -1;
    if (rc == 0) afmt_path_push(r->c->path, it->name, 0);
    r->unique_repeat = it->repeat.unique ? it : NULL;
    r->unique_keys = it->repeat.unique ? &keys : NULL;
    if (rc == 0 && repeat_of_plain_field(r, it, &plain, &plain_desc)) rc = repeat_plain(r, it, plain, &plain_desc, count, &k);
    for (; rc == 0 && (!it->arg || k < count); k++) {
        r->rep_index = k;
        if (repeat_head(r, it, &tiles, k, &comments, &stop)) rc = -1;
        else if (stop) break;
        else if (repeat_body(r, it, &tiles, &comments, dl)) rc = -1;
    }
    r->unique_repeat = saved_unique_repeat;
    r->unique_keys = saved_unique_keys;
    r->rep_index = saved_index;
    if (rc == 0) {
        const iblame b = iblame_pos(it->name);
        afmt_path_pop(r->c->path);
        if (it->repeat.min_count > 0 && k < it->repeat.min_count)
            rc = ifail(r, &b, AFMT_E_TRUNCATED, LEN_NONE, "needs at least %llu, found %" PRIu64,
                       (unsigned long long)it->repeat.min_count, k);
    }
    if (rc == 0 && set) rc = tiles_after(r, it, &tiles);
    free(set);
    return rc;
}

/* ---- region: its items may not cross its end; what they leave unread is
 * skipped, or refused (tolerated) when it is exact */
int irun_region(irun *r, const item *it)
{
    const isym *sz = it->arg->kind == E_NAME ? isym_find(r, it->arg->sval) : NULL;
    const iblame b = iblame_pos(it->name);
    const afmt_region_rest rest = !it->region.exact                    ? AFMT_REGION_SKIP
                                  : it->region.exact_lenient == LEN_WARN ? AFMT_REGION_EXACT_WARN
                                                                        : AFMT_REGION_EXACT;
    afmt_region_ctx rc;
    uint64_t size;
    if (sz && sz->kind != IS_INT) sz = NULL;
    if (ieval_u64(r, &b, it->arg, it->arg_text, &size)) return -1;
    if (it->region.inflate) return irun_inflated(r, it, size); /* interp_inflated.c */
    if (afmt_region_open(r->c, &rc, it->name, sz ? sz->name : NULL, size)) return -1;
    if (irun_items(r, &it->body)) return -1;
    return afmt_region_close(r->c, rest, sz && it->region.exact ? (sz->off_is_pos ? r->c->pos : sz->off) : 0);
}

/* ---- switch: the first case whose values hold the selector */
static int switch_unknown(irun *r, const item *it, const iblame *b, ival sel)
{
    char values[512] = "";
    size_t at = 0;
    int i, j;
    char found[32];
    if (sel.t == VT_S) snprintf(found, sizeof found, "%" PRId64, (int64_t)sel.v);
    else snprintf(found, sizeof found, "%" PRIu64, sel.v);
    if (it->sw.else_message)
        return ifail(r, b, AFMT_E_CONSTRAINT, LEN_NONE, "%s (found %s)", it->sw.else_message, found);
    for (i = 0; i < it->ncases; i++)
        for (j = 0; j < it->cases[i].nwhen && at < sizeof values; j++)
            at += (size_t)snprintf(values + at, sizeof values - at, "%s %llu", i + j ? "," : "",
                                   (unsigned long long)it->cases[i].when[j]->ival);
    return ifail(r, b, AFMT_E_CONSTRAINT, LEN_NONE, "%s: unknown value %s (expected one of%s)", it->name, found, values);
}

int irun_switch(irun *r, const item *it)
{
    const isym *attr = iname_int(r, it->arg);
    const iblame b = iblame_of(attr);
    ival sel;
    int i;
    if (attr) sel = ival_of(attr); /* what ieval gives for the name */
    else if (ieval(r, &b, it->arg, it->arg_text, &sel)) return -1;
    i = case_of(r, it, sel.v);
    if (i >= 0) {
        const int mark = isym_mark(r);
        const int rc = irun_items(r, &it->cases[i].body);
        isym_pop_to(r, mark);
        return rc;
    }
    return switch_unknown(r, it, &b, sel);
}

/* ---- pad: zeros */

/* Is the pad's size `roundup(x, k) - x` (x a name, k a literal > 0)? */
static int pad_to_multiple(const expr *e)
{
    const expr *rd = e && e->kind == E_BINARY && e->op == TK_MINUS ? e->a : NULL;
    return rd && rd->kind == E_CALL && strcmp(rd->sval, "roundup") == 0 && rd->nargs == 2 &&
           rd->args[0]->kind == E_NAME && rd->args[1]->kind == E_INT && rd->args[1]->ival > 0 &&
           e->b->kind == E_NAME && strcmp(e->b->sval, rd->args[0]->sval) == 0;
}

int irun_pad(irun *r, const item *it)
{
    const iblame b = iblame_pos(it->name);
    const int lenient = it->pad.fill_lenient == LEN_WARN;
    uint64_t n;
    if (pad_to_multiple(it->arg)) {
        const expr *rd = it->arg->a;
        if (ieval_u64(r, &b, rd->args[0], it->arg_text, &n)) return -1;
        return afmt_take_pad_to(r->c, it->name, lenient, n, rd->args[1]->ival, it->arg_text);
    }
    if (ieval_u64(r, &b, it->arg, it->arg_text, &n)) return -1;
    return afmt_take_padding(r->c, it->name, lenient, n);
}

/* ---- a value in a text grammar the runtime scans (futhark's) */
int irun_textval(irun *r, const item *it)
{
    const igrammar *g = igrammar_find(it->textval.grammar);
    afmt_validation *c = r->c;
    afmt_array a;
    uint64_t end = 0;
    isym *y;
    if (afmt_src_text(c->src, afmt_end(c), c->pos, g->scan, c->opt->limits.max_rank, &end, &a, c->path, c->err) != 0)
        return -1;
    a.index = c->narrays;
    a.text_decode = g->decode;
    if (c->vis && c->vis->on_array && c->vis->on_array(c->vis->ctx, &a) != 0) {
        const iblame b = iblame_pos(it->name);
        return ifail(r, &b, AFMT_E_CALLBACK, LEN_NONE, "stopped by the caller");
    }
    c->narrays++;
    c->pos = end;
    y = isym_push(r, IS_PAYLOAD, it);
    (void)y;
    return 0;
}

/* ---- a text header and the arrays it describes (runtime/text/afmt_header_arrays.c) */
int irun_texthdr(irun *r, const item *it)
{
    afmt_validation *c = r->c;
    return afmt_header_arrays_validate(ithdr_of(r->in, it), c->src, afmt_end(c), &c->pos, &c->narrays, c->opt, c->vis, c->path,
                               c->err);
}

/* "byte_order": the order of what follows (fields and payloads whose type
 * names none), in c->big, where the runtime's steps find it too (as
 * emit_byte_order). */
int irun_byte_order(irun *r, const item *it)
{
    const iblame b = iblame_pos("");
    int big = 0;
    if (ieval_bool(r, &b, it->arg, it->arg_text, &big)) return -1;
    r->c->big = big;
    return 0;
}
