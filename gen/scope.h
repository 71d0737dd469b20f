/* afmt-gen: the scopes of a spec, as the checker (check.c) and the
 * semantic pass (scope.c) walk them, before anything is emitted.
 *
 * The pipeline is load (load.c: the model, spec.h) -> resolve (scope.c:
 * every name read bound to the item that binds it; facts as data on the
 * model, such as a region's escapes) -> check (check.c: the language's
 * diagnostics of names, structures and tables) -> render (emit_*.c: C
 * text from a checked model).
 *
 * A scope is a stack of bindings, found by spelling through a hash, so
 * that a walk of a spec of n names costs O(n).  What binds and what
 * forgets is the language's rule, the same in every walk: a field, let,
 * var, lookup, array or text value binds its name where it stands (a
 * region's items too: they are read after it); a repeat's body and a
 * switch case forget what they bound when they end; a named structure's
 * body starts from its parameters alone. */
#ifndef AFMT_GEN_SCOPE_H
#define AFMT_GEN_SCOPE_H

#include "spec.h"
#include "util.h"

typedef struct scope_binding {
    const char *name;
    const item *it;          /* the item binding it; NULL: a structure's parameter */
    const item *region;      /* the innermost region it was bound in, or NULL */
    item **left;             /* the regions closed since, innermost first */
    int nleft;
    int shadowed;            /* the binding of this spelling it hides, or -1 */
} scope_binding;

typedef struct scope {
    scope_binding *v;
    int n, cap;
    strindex top;            /* a spelling -> its innermost binding */
    const item *region;      /* the innermost region open */
} scope;

/* What a name's value is, from the item binding it: the kinds the
 * emitters' symbols have (emit.h, sym_kind), known before any C. */
typedef enum value_kind {
    VK_INT,          /* an integer field, let or var, a structure's parameter */
    VK_ARRAY_FIELD,  /* an integer field with "count" */
    VK_FLOAT,        /* a float field */
    VK_FLOAT_ARRAY,  /* a float field with "count" */
    VK_TEXT,         /* a bytes or text field */
    VK_STRING,       /* one length-prefixed string */
    VK_STRINGS,      /* length-prefixed strings (with "count") */
    VK_LOOKUP,       /* a lookup's table row */
    VK_PAYLOAD       /* an array item, a text value */
} value_kind;

/* The kind of the value b binds. */
value_kind scope_kind(const scope_binding *b);

/* Whether the item's name is a value the items after it read (the other
 * kinds' names name C variables, or errors only). */
int scope_binds_value(const item *it);
void scope_bind(scope *sc, const char *name, const item *it);
/* The innermost binding of name, or NULL. */
scope_binding *scope_find(const scope *sc, const char *name);
int scope_mark(const scope *sc);
/* Forget the bindings made since mark (a repeat's body, a case). */
void scope_pop_to(scope *sc, int mark);
void scope_free(scope *sc);

/* The structure named name, or NULL; the table named name, or NULL. */
const named_struct *scope_struct_named(const spec *s, const char *name);
const table *scope_table_named(const spec *s, const char *name);

#endif
