/* afmt-gen: the typed-value grammar of a repeat's "metadata" value
 * structure (value_grammar.c), a fact of the model: the checker, the
 * emitters and the interpreter all ask it here. */
#ifndef AFMT_GEN_VALUE_GRAMMAR_H
#define AFMT_GEN_VALUE_GRAMMAR_H

#include "diag.h"
#include "spec.h"

typedef struct value_case {
    unsigned long long code;
    const char *kind;    /* "AFMT_VALUE_UINT", ... (the runtime's enumerator, by name) */
    int width;
} value_case;

typedef struct value_grammar {
    const named_struct *ns;
    const char *type_field;   /* the field of the repetition holding the type code */
    value_case cases[64];
    int ncases;
    int len_width, elem_width, count_width, big;
} value_grammar;

/* The use of the value's structure in the repeat's body (a case's or a
 * region's too), or NULL. */
item *value_use(const item *repeat);
/* The grammar of repeat's value structure (0), or why it is none, in d
 * (-1). */
int value_grammar_of(const spec *s, diag *d, const item *repeat, value_grammar *g);
/* 0 when the value's bytes start where its type field (of repeat's body)
 * ends, as the validator hands them to afmt_kv_visit; else why not, in d
 * (-1). */
int value_follows_type(diag *d, const item *repeat, const item *type);

#endif
