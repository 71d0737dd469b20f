/* afmt reference interpreter: a run over one input -- the symbol stack,
 * blame and failure, the items in order, and the entry points. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "core/afmt_driver.h"
#include "common/afmt_options.h"
#include "interp.h"

/* ---- symbols */

isym *isym_find_spelled(const irun *r, const char *name)
{
    int i;
    for (i = r->nsyms - 1; i >= 0; i--)
        if (r->syms[i].name[0] == name[0] && strcmp(r->syms[i].name, name) == 0) return &r->syms[i];
    return NULL;
}

void isym_pool_init(isym_pool *pool)
{
    /* (not the whole struct: its local symbols need no zeros) */
    pool->stacks = pool->local_stacks;
    pool->caps = pool->local_caps;
    pool->depths = ISYM_POOL_DEPTHS;
    memset(pool->local_stacks, 0, sizeof pool->local_stacks);
    memset(pool->local_caps, 0, sizeof pool->local_caps);
    pool->local_used = 0;
}

static int in_pool(const isym_pool *pool, const isym *s)
{
    return s >= pool->local && s < pool->local + ISYM_POOL_LOCAL;
}

/* stacks and caps for depth + 8 depths, out of the pool (copied) */
static int pool_more_depths(isym_pool *pool, uint64_t depth)
{
    const uint64_t n = depth + 8;
    isym **stacks;
    int *caps;
    if (n > SIZE_MAX / sizeof *stacks) return -1;
    stacks = malloc(sizeof *stacks * (size_t)n);
    caps = malloc(sizeof *caps * (size_t)n);
    if (!stacks || !caps) {
        free(stacks);
        free(caps);
        return -1;
    }
    memcpy(stacks, pool->stacks, sizeof *stacks * (size_t)pool->depths);
    memcpy(caps, pool->caps, sizeof *caps * (size_t)pool->depths);
    memset(stacks + pool->depths, 0, sizeof *stacks * (size_t)(n - pool->depths));
    memset(caps + pool->depths, 0, sizeof *caps * (size_t)(n - pool->depths));
    if (pool->stacks != pool->local_stacks) {
        free(pool->stacks);
        free(pool->caps);
    }
    pool->stacks = stacks;
    pool->caps = caps;
    pool->depths = n;
    return 0;
}

isym *isym_pool_grow(isym_pool *pool, uint64_t depth, int cap)
{
    isym *room;
    if (depth >= pool->depths && pool_more_depths(pool, depth)) return NULL;
    /* the pool's own symbols while they last, then the heap; nothing at
     * this depth is live while a body enters it: nothing is copied */
    if (cap <= ISYM_POOL_LOCAL - pool->local_used) {
        room = pool->local + pool->local_used;
        pool->local_used += cap;
    } else if (!(room = malloc(sizeof *room * (size_t)cap))) {
        return NULL;
    }
    if (pool->stacks[depth] && !in_pool(pool, pool->stacks[depth])) free(pool->stacks[depth]);
    pool->stacks[depth] = room;
    pool->caps[depth] = cap;
    return room;
}

void isym_pool_free(isym_pool *pool)
{
    uint64_t d;
    for (d = 0; d < pool->depths; d++)
        if (!in_pool(pool, pool->stacks[d])) free(pool->stacks[d]);
    if (pool->stacks != pool->local_stacks) {
        free(pool->stacks);
        free(pool->caps);
    }
    isym_pool_init(pool);
}


/* ---- blame and failure */

uint64_t iblame_off(const irun *r, const iblame *b) { return b->at_pos ? r->c->pos : b->off; }

int ifail(irun *r, const iblame *b, afmt_code code, leniency len, const char *fmt, ...)
{
    va_list ap;
    int rc;
    va_start(ap, fmt);
    if (len == LEN_NOTE) { /* a note in both modes (afmt_warn's, code ok) */
        char msg[AFMT_MESSAGE_MAX];
        vsnprintf(msg, sizeof msg, fmt, ap);
        afmt_warn(r->c->vis, r->c->path, b->field, b->index, iblame_off(r, b), "%s", msg);
        rc = 0;
    } else if (len == LEN_WARN) {
        rc = afmt_toleratev(r->c->opt, r->c->vis, r->c->err, code, r->c->path, b->field, b->index, iblame_off(r, b),
                            fmt, ap);
    } else {
        afmt_failv(r->c->err, code, r->c->path, b->field, b->index, iblame_off(r, b), fmt, ap);
        rc = -1;
    }
    va_end(ap);
    return rc;
}

int ioverflow(irun *r, const iblame *b, const char *text)
{
    return afmt_overflow_c(r->c, b->field, b->index, iblame_off(r, b), text);
}

afmt_code icode(const char *name, afmt_code dflt)
{
    int k;
    if (!name) return dflt;
    for (k = 0; k <= AFMT_E_DIVZERO; k++)
        if (strcmp(afmt_code_name((afmt_code)k), name) == 0) return (afmt_code)k;
    return dflt;
}

/* ---- items: one function per kind */

typedef int (*item_run)(irun *r, const item *it);

static const item_run ITEM_RUNS[] = {
    [IT_FIELD] = irun_field,     [IT_LET] = irun_let,       [IT_LOOKUP] = irun_lookup,
    [IT_CHECK] = irun_check_item, [IT_ARRAY] = irun_array,  [IT_REPEAT] = irun_repeat,
    [IT_REGION] = irun_region,   [IT_SWITCH] = irun_switch, [IT_PAD] = irun_pad,
    [IT_TEXTVAL] = irun_textval, [IT_TEXTHDR] = irun_texthdr,
    [IT_STRUCT] = irun_struct,   [IT_VAR] = irun_var,       [IT_SET] = irun_set,
    [IT_DIRECTORY] = irun_directory, [IT_BYTE_ORDER] = irun_byte_order, [IT_ARCHIVE] = irun_archive,
    [IT_CARDS] = irun_cards,
};

int irun_items(irun *r, const item_list *body)
{
    int i;
    for (i = 0; i < body->n; i++) {
        const item *it = body->v[i];
        if (ITEM_RUNS[it->kind](r, it)) return -1;
        /* a tiled block's place, as soon as its fields are read */
        if (r->tiles && irun_tiles_after_item(r)) return -1;
    }
    return 0;
}

/* Symbols of the top level a run holds on its stack (more: allocated). */
#define RUN_SYMS_LOCAL 64

/* The spec's top level, then the trailer (as <format>_validate_body). */
static int run_body(afmt_validation *c, const void *arg)
{
    const afmt_interp *in = arg;
    irun r;
    isym_pool pool;
    isym local[RUN_SYMS_LOCAL];
    int rc;
    memset(&r, 0, sizeof r);
    isym_pool_init(&pool);
    r.in = in;
    r.c = c;
    r.pool = &pool;
    r.cap = in->max_syms;
    r.syms = r.cap <= RUN_SYMS_LOCAL ? local : malloc(sizeof *r.syms * (size_t)r.cap);
    if (!r.syms) return afmt_fail(c->err, AFMT_E_NOMEM, NULL, NULL, AFMT_NO_INDEX, 0, "out of memory");
    /* a structure used before the "byte_order" item reads the spec's order */
    if (in->s->byte_order) c->big = in->s->big_endian ? 1 : 0;
    rc = irun_items(&r, &in->s->body);
    if (rc == 0) {
        if (in->s->trailer_keep) afmt_keep_trailer(c);
        else rc = afmt_expect_end(c, in->s->trailer_lenient == LEN_WARN);
    }
    if (r.syms != local) free(r.syms);
    isym_pool_free(&pool);
    while (r.ndirs > 0) free(r.dirs[--r.ndirs]);
    free(r.dirs);
    return rc;
}

int afmt_interp_validate_src(const afmt_interp *in, afmt_src *src, const afmt_options *opt,
                             const afmt_visitor *vis, afmt_error *err)
{
    return afmt_run_validator_arg(run_body, in, in->s->format, src, opt, vis, err);
}

int afmt_interp_validate(const afmt_interp *in, const uint8_t *buf, uint64_t len, const afmt_options *opt,
                         const afmt_visitor *vis, afmt_error *err)
{
    afmt_src src;
    if (!buf && len > 0) {
        if (err) {
            afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, 0, "no input buffer");
            afmt_error_set_format(err, in->s->format);
        }
        return -1;
    }
    afmt_src_buffer(&src, buf, len);
    return afmt_interp_validate_src(in, &src, opt, vis, err);
}
