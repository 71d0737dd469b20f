/* afmt reference interpreter: what the load works out once per item so
 * that a run does not work it out again at every use -- a switch's case
 * for each small selector value, the structure a structure use names.
 * GGUF's value structure is used once per array element: 450,000 times,
 * each a switch of 13 cases, in a 150,000-token vocabulary.
 *
 * The entries are found by the item's address (an open-addressing table:
 * the model is gen/'s, which has no room for the interpreter's data). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "interp.h"

/* Selector values up to this have a table of cases (else: a search). */
#define CASE_TABLE_MAX 255


static int find_struct(const spec *s, const char *name)
{
    int i;
    for (i = 0; i < s->nstructs; i++)
        if (strcmp(s->structs[i].name, name) == 0) return i;
    return -1;
}

/* case_of[v]: the first case whose values hold v (as irun_switch's search
 * finds it), -1 for none; NULL when a value is beyond CASE_TABLE_MAX. */
static int16_t *case_table(const item *it, uint64_t *max)
{
    int16_t *t;
    uint64_t v;
    int i, j;
    *max = 0;
    for (i = 0; i < it->ncases; i++)
        for (j = 0; j < it->cases[i].nwhen; j++) {
            if (it->cases[i].when[j]->ival > CASE_TABLE_MAX || i > INT16_MAX) return NULL;
            if (it->cases[i].when[j]->ival > *max) *max = it->cases[i].when[j]->ival;
        }
    t = malloc(sizeof *t * (size_t)(*max + 1));
    if (!t) abort(); /* load-time, as the loader */
    for (v = 0; v <= *max; v++) t[v] = -1;
    for (i = it->ncases - 1; i >= 0; i--) /* backwards: the first case wins */
        for (j = 0; j < it->cases[i].nwhen; j++) t[it->cases[i].when[j]->ival] = (int16_t)i;
    return t;
}

static void add(afmt_interp *in, const item *it)
{
    size_t k = iaux_slot(in, it);
    iaux *a;
    while (in->aux[k].it) k = (k + 1) & in->aux_mask;
    a = &in->aux[k];
    a->it = it;
    a->struct_index = it->kind == IT_STRUCT ? find_struct(in->s, it->st.use) : -1;
    a->case_of = it->kind == IT_SWITCH ? case_table(it, &a->case_max) : NULL;
}

/* Items of body (and of its nested bodies) that have an entry: counted
 * (add NULL), or added. */
static size_t walk(afmt_interp *in, const item_list *b, int adding)
{
    size_t n = 0;
    int i, j;
    for (i = 0; i < b->n; i++) {
        const item *it = b->v[i];
        if (it->kind == IT_SWITCH || it->kind == IT_STRUCT) {
            n++;
            if (adding) add(in, it);
        }
        n += walk(in, &it->body, adding);
        for (j = 0; j < it->ncases; j++) n += walk(in, &it->cases[j].body, adding);
    }
    return n;
}

static size_t walk_all(afmt_interp *in, int adding)
{
    size_t n = walk(in, &in->s->body, adding);
    int k;
    for (k = 0; k < in->s->nstructs; k++) n += walk(in, &in->s->structs[k].body, adding);
    return n;
}

void iaux_collect(afmt_interp *in)
{
    const size_t n = walk_all(in, 0);
    size_t size = 16;
    while (size < 2 * n) size *= 2; /* at most half full */
    in->aux = calloc(size, sizeof *in->aux);
    if (!in->aux) abort();
    in->aux_mask = size - 1;
    (void)walk_all(in, 1);
}

void iaux_free(afmt_interp *in)
{
    size_t k;
    for (k = 0; in->aux && k <= in->aux_mask; k++) free(in->aux[k].case_of);
    free(in->aux);
    in->aux = NULL;
}
