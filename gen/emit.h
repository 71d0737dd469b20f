/* afmt-gen: shared state of the C emitters.
 *
 * The validator emitter (emit_validate.c) and the writer emitter
 * (emit_write.c) walk the same item tree.  Names are resolved as the walk
 * reaches them, so a name used before its definition (which also rules out
 * cycles among definitions) is reported with the JSON path of the use.
 */
#ifndef AFMT_GEN_EMIT_H
#define AFMT_GEN_EMIT_H

#include "spec.h"
#include "util.h"
#include "value_grammar.h"

typedef enum sym_kind {
    SY_INT,     /* integer field or let */
    SY_ARRF,    /* integer array field (dims) */
    SY_TEXT,    /* bytes/text field */
    SY_LOOKUP,  /* type-table lookup result */
    SY_PAYLOAD, /* payload array item */
    SY_BUILTIN, /* index inside "each" */
    SY_STRINGS, /* length-prefixed strings (a field with "count") */
    SY_STR,     /* one length-prefixed string: c its length, off its prefix's offset */
    SY_FLOAT,   /* a float field: c its value (a double), width its bytes */
    SY_FARR     /* a float array field: count elements of width bytes at off (only "each" reads them) */
} sym_kind;

typedef struct sym {
    sym_kind kind;
    const char *name;
    item *it;
    vtype t;             /* SY_INT: VT_U / VT_S; SY_ARRF: element type */
    /* Owned strings ("" when unset), set by str_printf (util.h) and freed
     * by sym_pop_to: no C text has a fixed size. */
    char *c;             /* C expression of the value (INT), pointer (TEXT), prefix */
    char *elem;          /* SY_ARRF: printf format of element i ("%s" = index) */
    char *count;         /* SY_ARRF: C expression of the element count */
    char *off;           /* C expression of the byte offset (validator) */
    int width, is_signed, big;
    int size;            /* SY_TEXT: bytes */
    int bounded;         /* writer: the value (SY_INT) or every element (SY_ARRF) */
    unsigned long long max; /* is at most max */
    const table *tb;     /* SY_LOOKUP */
    /* The declarations (decl_defer) of what the code reads through this
     * symbol, 0 for one always there: decl of c (a field's value, a
     * writer's lookup size, a writer's array), off_decl of off (a field's
     * offset), enc_decl of a writer's lookup encoding, nbytes_decl of a
     * writer's payload size (nbytes()). */
    int decl, off_decl, enc_decl, nbytes_decl;
    /* validator: the region whose function declared it (NULL: none): at
     * the region's end, handed out if the region's escapes name it
     * (region_item.escapes, gen/scope.c) */
    const item *region;
} sym;

#define MAX_SYMS 1024
#define AFMT_GEN_FIELD_MAX_ 128

#define MAX_FRAMES 16

/* emit_check.c: a field's constraints as one function of the prelude that
 * the validator and the writer call (cs[0..n), blamed on field). */
typedef struct check_param {
    const char *name;    /* the spec's name */
    char *c;             /* the parameter: the validator's local (owned) */
    vtype t;
} check_param;
typedef struct check_fn {
    const check *cs;
    int n;
    char *field, *name;
    char *text;          /* its parameters and body: equal text, one function */
    check_param *params;
    int nparams;
    int lenient;         /* has a tolerance (through the context's options) */
    int indexed;         /* takes at_index (an element of an "each") */
} check_fn;

/* The names local_name gave in one function, indexed, and for each base
 * the number its next search starts at (every one below is taken): a
 * thousand locals of one base cost a thousand tries, not half a million
 * string compares each. */
typedef struct local_set {
    char **names;
    int n;
    strindex index;      /* names[i] -> i */
    strindex next;       /* a base -> the first number not known taken */
    char **bases;        /* next's keys, owned */
    int nbases;
} local_set;
void local_set_free(local_set *ls);

/* A fact the emitter proved, in force to the end of the block at indent:
 * the C value key is >= 0 (val NULL), or the C local val holds the value
 * key describes (known_note).  Owned strings, no fixed size. */
typedef struct fact {
    char *key, *val;
    int indent;
} fact;

typedef struct emitter {
    const spec *s;
    sbuf *out;
    int indent;
    local_set locals;    /* the names local_name gave in the current function */
    int errors;
    int writer;          /* 0: validator, 1: writer */
    int writer_owns;     /* writer: its code fills *owned (else the impl marks `owned` unused) */
    int returned;        /* the current function's statements end in an unconditional return */
    int multi;           /* writer: a top-level repeat holds the arrays */
    sym *syms[MAX_SYMS];
    int nsyms;
    const char *end;     /* validator: C name of the current region end */
    const char *comments_var; /* validator: C name of the count of -- comments the innermost
                                 skipping repeat passed before this repetition, or NULL */
    const char *jpath;   /* for generator diagnostics */
    sbuf *prelude;       /* static helpers emitted before the functions */
    item *tiles;         /* validator: the innermost repeat with a module (gen/layout_tiles.c) */
    int tiles_done;      /* its block has been added to the tile set */
    char **helpers;      /* names of the helpers already in the prelude (helper_once) */
    strindex helper_index; /* helpers[i] -> i */
    int nhelpers;
    /* validator: the afmt_field_desc constants in the prelude, name and
     * initializer, so that equal fields share one and names stay unique */
    char **desc_names, **desc_inits;
    strindex desc_name_index, desc_init_index; /* desc_names[i], desc_inits[i] -> i */
    int ndescs;
    sbuf *descs;         /* their text, put before the prelude */
    /* Signed C values already proved non-negative by an unconditional
     * failure, with the indent of the block the proof holds in: a value
     * tested once is not tested again (line() forgets a proof when its
     * block closes). */
    struct fact *facts;  /* facts[0..nnonneg) hold; those after are spare
                            (their strings reused: restoring a smaller
                            nnonneg forgets facts without freeing) */
    int nfacts_alloc;    /* facts allocated, live or spare */
    int nnonneg;
    int nonneg_floor;    /* the proofs below it are out of scope (a check function's body) */
    /* declarations emitted only where used (decl_defer): whether each is
     * used, the one it needs, and the pieces of text that stand in the
     * output as placeholders until decls_resolve */
    int *decl_used, *decl_needs;
    int ndecls;
    char **pieces;
    int *piece_decl;
    int npieces;
    /* validator: the functions being emitted, outermost first (their
     * statements so far), and the finished ones, in the order they must
     * be defined, with their names */
    sbuf *frames[MAX_FRAMES];
    const char *frame_names[MAX_FRAMES]; /* what each is named after ("body": the top level) */
    int nframes;
    /* emit_func.c: the declarations of each frame's text scanned so far
     * (scanned once, as it grows: a spec's functions cost linear time) */
    struct frame_scan *scans[MAX_FRAMES];
    sbuf *funcs;
    char **func_names;
    int nfunc_names;
    strindex func_name_index; /* func_names[i] -> i */
    /* the file-scope C names claimed, each with what it names
     * (gen/emit_names.c) */
    char **cnames, **cname_whats;
    int ncnames;
    strindex cname_index; /* cnames[i] -> i */
    /* the next number to try of a numbered C name (name_number): a
     * thousand fields named alike cost a thousand tries, not half a
     * million; its keys are owned (number_keys) */
    strindex number_next;
    /* bytes of C scanned (work) and names tried (tries): what would grow
     * faster than the spec if the generator went quadratic again
     * (AFMT_GEN_WORK=1 prints them; tests/specs/linear.sh compares 1x
     * and 8x specs) */
    unsigned long long work, tries;
    char **number_keys;
    int nnumber_keys;
    char **clashes;      /* "cname what" of each clash reported, reported once */
    int nclashes;
    int sole_item;       /* the item being emitted is all its function holds */
    check_fn *check_fns; /* the shared check functions defined so far */
    int ncheck_fns;
    const item *region;  /* validator: the innermost region being emitted, or NULL */
    char *last_error;    /* the last error printed, path and message: one
                            problem met again (an expression with two peek()
                            calls, a rule emitted twice) is printed once */
    /* the text headers' tables in the prelude (texthdr.c), name and
     * text, so that equal tables of two text headers are one */
    char **th_table_names, **th_table_texts;
    int nth_tables;
    /* validator: the named structures whose functions are defined (or
     * being defined: a recursive use calls the one being made) */
    const named_struct **structs_done;
    int nstructs_done;
    /* validator: the innermost repeat with "unique", while its body is
     * emitted (its key field adds itself to the set), and whether the key
     * field was found */
    item *uniq;
    int uniq_found;
    /* writer: the stand-in array of the directory record the scope being
     * written binds (gen/emit_write_dir.c), or NULL */
    item *wrecord;
    /* writer: the scope being written (emit_write.c's scope), whose
     * definitions that read vars are emitted where their items stand */
    void *wscope;
    /* writer: the metadata repeat whose repetition is being written (its
     * key-value is the C pointer wkv_c; its grammar's name, the field of
     * its type code: owned strings, or NULL), or NULL */
    item *wkv;
    char *wkv_c, *wkv_grammar;
    const char *wkv_type;
} emitter;

/* emit_func.c: one function per structure.  func_begin sends the
 * statements that follow into a function of their own (named after name);
 * func_end finishes it (<format>_validate_<name>, made unique: see
 * emit_func.c; doc, if not NULL, its
 * comment), with the values it reads from the enclosing functions as
 * parameters and `pos` and `narrays` in and out, appends it to m->funcs,
 * and emits the call where the statements stood. */
typedef struct func_frame {
    sbuf body;
    char *name;
    /* a region's function: the struct it hands its escaping values out in
     * (a parameter `<type> *scope`, the caller's local `<var>`, declared
     * before the call), and the statements that fill it, last */
    char *scope_type, *scope_var;
    sbuf scope_fill;
    /* the statement after a failed call, NULL for `return -1;` (a
     * writer's repetition names itself in the error: afmt_error_within) */
    char *on_fail;
    sbuf *saved_out;
    int saved_indent, saved_nnonneg, saved_returned;
    int *saved_fact_indents; /* facts[0..saved_nnonneg).indent, malloc'd */
    /* func_begin_root: the enclosing functions, set aside */
    sbuf *saved_frames[MAX_FRAMES];
    const char *saved_frame_names[MAX_FRAMES];
    struct frame_scan *saved_scans[MAX_FRAMES];
} func_frame;
void func_begin(emitter *m, func_frame *f, const char *name);
void func_end(emitter *m, func_frame *f, const char *doc);
/* Before func_end: the function hands out the values of symbols ys (n of
 * them) in a struct <format>_<name>_scope, filled last, that its caller
 * declares (named name) and later code reads (ys' C expressions are
 * rewritten to read it). */
void func_hand_out(emitter *m, func_frame *f, sym **ys, int n, const char *name);

/* `static const afmt_type_entry <fmt>_<table>[]` (emitted once) for a table
 * of one literal key per entry (text of key_size bytes, or an integer when
 * key_size is 0) and plain dtypes; NULL for any other table. */
const char *type_table(emitter *m, const table *tb, int key_size);
/* The block entries ("block": [N, B] with its "name") of tb, when each has
 * one integer key: `static const afmt_block_entry <fmt>_<table>_blocks[]`
 * in the prelude (once), its name; *n its length (the writable ones: the
 * writer chooses among them).  NULL when there are none, or when one is
 * keyed otherwise. */
const char *block_table(emitter *m, const table *tb, int *n);
/* A table of plain types and block types, each of one integer key, keys
 * distinct (gguf's ggml): `static const afmt_type_entry <fmt>_<table>[]`
 * of its *nplain plain entries (emitted once), its name, and in *blocks
 * block_table's (*nblocks); NULL when tb is not so. */
const char *type_block_tables(emitter *m, const table *tb, int *nplain, const char **blocks, int *nblocks);
/* The number of entries at the start of tb that fit an afmt_type_entry2
 * row: two integer keys, a plain dtype (bool may be bits-lsb), no size. */
int table2_plain_count(const table *tb);
/* `static const afmt_type_entry2 <fmt>_<table>[]` (emitted once, shared by
 * the validator and the writer) of the first nplain entries of tb
 * (table2_plain_count), or NULL when no more tables fit. */
const char *type_table2(emitter *m, const table *tb, int nplain);
/* The name of a `static const char <fmt>_<table>_known[]`
 * (emitted once, beside the table) holding "; known: ..." listing a
 * table's entries, for a failure's "%s". */
const char *known_table(emitter *m, const table *tb);
/* helper_once for one of table tb's helpers, <fmt>_<table><suffix>: ""
 * its entries, "_known" the list of them, "_blocks" its block types. */
int table_helper(emitter *m, const table *tb, const char *suffix, const char **cname);

/* File-scope C names (gen/emit_names.c).  c_name_claim: cname names
 * what (a text naming the spec's thing); 0 when it is free or already
 * what's, -1 (a generator error at jpath naming both) when it names
 * something else.  c_name_taken: claimed by anything.  c_names_reserve
 * claims the names fixed by the spec before anything is emitted (the
 * validator's body, the writer, extensions, sidecar, every table,
 * every structure's function); c_names_free forgets them all. */
int c_name_claim(emitter *m, const char *cname, const char *what, const char *jpath);
int c_name_taken(const emitter *m, const char *cname);
/* The number a numbered C name of base starts its search at (1: the base
 * itself first, for a caller that numbers so), and to remember where the
 * search stopped: every number below it was taken, and C names once taken
 * stay taken. */
int name_number(const emitter *m, const char *base);
void name_number_set(emitter *m, const char *base, int next);
void c_name_release(emitter *m, const char *cname); /* a name claimed and not used after all */
void c_names_reserve(emitter *m);
void c_names_free(emitter *m);
/* The name of case ci of switch sw in C names (gen/emit_case_names.c):
 * <switch>_<what tells it from the other cases>, kept with the switch. */
const char *switch_case_name(const spec *s, const item *sw, int ci);
/* s as part of a C name: characters other than letters, digits and _
 * become _ (malloc'd). */
char *c_ident_part(const char *s);
/* A static helper of the prelude (a table's entries, its known list, ...)
 * named cname for what, emitted once per emitter: the name is claimed
 * first, so a helper is never taken for another thing's that happens to
 * have its C name (table "x_known" and table "x"'s known list).  1: cname
 * is already emitted for what; 0: the caller emits it now (it is
 * registered); -1: cname is another thing's (a generator error) or the
 * helper list is full.  *out is the stored name when >= 0. */
int helper_once(emitter *m, const char *cname, const char *what, const char *jpath, const char **out);

/* A byte order (0, 1 or ORDER_RUN) as C text: "0", "1", or for ORDER_RUN
 * the validator's "c->big" (the writer writes the spec's "endian");
 * endian_c the same as an afmt_endian ("AFMT_BIG", ...). */
const char *big_c(const emitter *m, int big);
const char *endian_c(const emitter *m, int big);

/* Output helpers. */
void line(emitter *m, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* What the checker (gen/check.c, spec_check) refuses, met by an emitter:
 * a bug of afmt-gen's, reported as an error so that nothing is written. */
void gen_unchecked(emitter *m, const char *jpath, const char *what);
void gen_error(emitter *m, const char *jpath, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Non-negative signed values: nonneg_note records that the C value c
 * (a const local) is >= 0 from here to the end of the current block;
 * nonneg_known asks. */
void nonneg_note(emitter *m, const char *c);
int nonneg_known(const emitter *m, const char *c);
/* Derived values computed once per block: known_note records that the C
 * variable val holds the value described by key (e.g. "prod(v_dims@o_dims)")
 * to the end of the current block; known_find returns it or NULL. */
void known_note(emitter *m, const char *key, const char *val);
const char *known_find(const emitter *m, const char *key);
/* Every fact's strings, live or spare, freed (the emitter's end). */
void facts_free(emitter *m);
/* Whether C expression c is a field's value `v_<name>` (a const local). */
int is_field_value(const char *c);

/* Declarations emitted only where used, so that generated code declares
 * nothing it does not read.  decl_defer writes the line fmt... (as line()
 * would) as a placeholder and returns its declaration's number (> 0);
 * decl_new makes a number and decl_line adds a line to it (a later
 * assignment); decl_use records a use (0: none), decl_needs that using id
 * uses other too.  decls_resolve returns text with each placeholder
 * replaced by its line when the declaration was used, by nothing when not
 * (a new string). */
int decl_defer(emitter *m, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int decl_new(emitter *m);
void decl_line(emitter *m, int id, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* The line fmt... where decl_unless_used stands, when declaration id is
 * not used (`(void)v_x;` for a value that is always computed, since its
 * run-time checks are the format's, but that nothing may read). */
void decl_unless_used(emitter *m, int id, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void decl_use(emitter *m, int id);
void decl_needs(emitter *m, int id, int other);
char *decls_resolve(const emitter *m, const char *text);
/* The current region's context for a runtime call ("&rc_<region>", used
 * from here on), or "NULL" outside regions. */

/* Symbols.  sym_find is a use of the name: it records the use of the
 * symbol's declarations (decl, off_decl).  sym_peek finds it without: for
 * a name that only blames (the blame records its offset's use when a
 * failure is emitted) or only asks whether the name is defined. */
sym *sym_push(emitter *m, sym_kind kind, const char *name, item *it);
sym *sym_find(emitter *m, const char *name);
sym *sym_peek(emitter *m, const char *name);
/* Whether name, declared in region's function, is used after it. */
int sym_mark(emitter *m);
void sym_pop_to(emitter *m, int mark);
const table *find_table(const spec *s, const char *name);

/* The field a failure is blamed on, as the code that emits the failure
 * receives it: the field's name ("" for none), the C expression of its
 * element index (AFMT_NO_INDEX for none) and of its byte offset ("pos",
 * where the validator is; the writer reports no offset). */
typedef struct blame {
    char field[AFMT_GEN_FIELD_MAX_];
    char index[192];
    char offset[256];
    int off_decl;        /* the declaration the offset reads (sym.off_decl), or 0 */
} blame;

/* A blame of field (NULL: none) at index_c (NULL: AFMT_NO_INDEX) and
 * offset_c (NULL: "pos"). */
blame blame_at(const char *field, const char *index_c, const char *offset_c);
/* gen/inflated.c: an inflated region's open and close in the validator */
void emit_inflated_open(emitter *m, item *it, const char *sz);
void emit_inflated_close(emitter *m, item *it);
/* The blame of the value y (its name and offset), or of nothing at pos
 * when y is NULL. */
blame blame_of(const sym *y);

/* emit_fieldvis.c: the name of the `static const afmt_field_desc` (added
 * to the prelude once) describing field it for afmt_take_field. */
const char *field_desc(emitter *m, const item *it, const char *kind, int width, int is_array,
                       int big_endian);

/* Emit `return afmt_fail(...)` (or a lenient tolerate) with a message,
 * blamed on bl. */
void emit_fail(emitter *m, const blame *bl, const char *code, leniency len, const char *fmt_c,
               const char *args_c);

/* The same as one statement `if (cond) return afmt_fail(...)` (or `if
 * (cond && afmt_tolerate(...)) return -1`): cond is the C condition of the
 * failure. */
void emit_fail_if(emitter *m, const char *cond, const blame *bl, const char *code, leniency len,
                  const char *fmt_c, const char *args_c);
/* `if (cond) return afmt_fail_overflow(...)`: checked arithmetic on the
 * expression whose spec text is text overflowed. */
/* `if (cond) stmt` on one line when it fits, else stmt in braces. */
/* "if (cond)" as a new string (caller frees), with one pair of
 * parentheses around all of cond dropped: clang warns on if ((a == b)). */
char *if_head(const char *cond);
/* The line `<before>if (cond) {` through if_head (before: "" or "} else "). */
void emit_if_open(emitter *m, const char *before, const char *cond);
void emit_if_stmt(emitter *m, const char *cond, const char *stmt);
void emit_overflow_if(emitter *m, const char *cond, const blame *bl, const char *text);

typedef struct cexpr {
    char *c;     /* C expression text */
    vtype t;
    int lit;     /* an integer literal: adapts to the other operand's sign */
    int bounded; /* an unsigned value known to be at most max (a writer */
    unsigned long long max; /* then needs no range check to store it) */
} cexpr;

/* Emit the statements computing e and return the C expression of its
 * value; a failure while computing it (overflow, ...) is blamed on bl.
 * Reports type errors through gen_error. */
cexpr emit_expr(emitter *m, const blame *bl, expr *e, const char *text);
/* Same, converted to an unsigned value (negative -> runtime failure). */
char *emit_u64(emitter *m, const blame *bl, expr *e, const char *text);
/* Same, converted to a truth value. */
char *emit_bool(emitter *m, const blame *bl, expr *e, const char *text);
/* A local named base (or base_2, base_3, ... when the function has one
 * of that name already): unique in the function, and the same from run
 * to run.  Returns a new string. */
char *local_name(emitter *m, const char *base);
/* A local holding the value of e, named after it ("dims_product",
 * "header_len_rounded"), or after noun when that name would be long. */
char *expr_local(emitter *m, const expr *e, const char *noun);
/* What e holds in words a C name can carry ("dims_product",
 * "size_eq_0"), malloc'd; NULL when longer than max characters. */
char *expr_words(const expr *e, size_t max);

/* One constraint (shared by validator and writer), its failure blamed on
 * bl; attr is the value its message shows, or NULL.  emit_checks: the
 * constraints cs[0..n) of one field, as a call of their shared function
 * when they read only integer values (emit_check.c), else one by one.
 * emit_check_body: one constraint's code, where it stands. */
void emit_check(emitter *m, const blame *bl, check *c, sym *attr);
void emit_checks(emitter *m, const blame *bl, check *cs, int n, sym *attr);
void emit_check_body(emitter *m, const blame *bl, check *c, sym *attr);
/* emit_check.c: the call of the function of checks cs[0..n) (defined in
 * the prelude when the validator reaches them first); 0 when they cannot
 * be shared (nothing emitted). */
int emit_shared_checks(emitter *m, const blame *bl, check *cs, int n, sym *attr);

/* Item walkers. */
void emit_validator(emitter *m);
/* emit_validate.c: the items of a body, in the current function. */
void emit_body_items(emitter *m, item_list *body);
/* emit_struct.c: the validator of a use of a named structure; a var and a
 * set, for the validator and the writer alike (off: the C offset their
 * messages blame, "c->pos" in the validator, "0" in the writer, which has
 * none); the setup of a repeat's "unique" set before its loop, and the
 * statement adding a key field to it (when it is the key of m->uniq). */
void emit_struct_use(emitter *m, item *it);
void emit_var(emitter *m, item *it, const char *off);
void emit_set(emitter *m, item *it, const char *off);
void emit_unique_setup(emitter *m, item *repeat);
void emit_unique_key(emitter *m, item *field);
/* emit_directory.c: the list of a directory's records before repeat's
 * loop (directory_of, spec.h, finds the directory); the record's addition
 * at the end of a repetition; the directory item. */
void emit_dir_setup(emitter *m, item *repeat);
void emit_dir_add(emitter *m, item *repeat, const item *dir);
void emit_directory(emitter *m, item *dir);
/* emit_value.c: a repeat's "metadata".  emit_value_grammar: the grammar
 * of its value structure (value_grammar.h) in a checked spec (else
 * gen_unchecked, -1); value_grammar_emit: its static afmt_value_grammar
 * in the prelude (once), its C name returned (malloc'd); emit_kv_visit: the end of a
 * repetition, its key-value handed to the visitor. */
int emit_value_grammar(emitter *m, const item *repeat, value_grammar *g);
char *value_grammar_emit(emitter *m, const value_grammar *g);
void emit_kv_visit(emitter *m, item *repeat);
/* emit_func.c: a function of its own for a named structure, outside every
 * other (its parameters are given, nothing is captured): func_begin_root
 * starts it, func_end_root defines it (params_c: its C parameters after
 * `afmt_validation *c`). */
void func_begin_root(emitter *m, func_frame *f, int *saved_nframes);
/* The top-level function of the validator or the writer: body, frame 0,
 * named name; func_frames_free forgets every frame's scan at the end. */
void func_root_frame(emitter *m, sbuf *body, const char *name);
void func_frames_free(emitter *m);
void func_end_root(emitter *m, func_frame *f, int saved_nframes, const char *fname, const char *params_c,
                   const char *doc);
void emit_writer(emitter *m);
/* emit_write.c: a structure's scope (a repetition, a case) written by a
 * function of its own, <format>_write_<name>, for the array arrays[ai]. */
/* index_c: the C expression of the repetition's index when the scope is
 * one repetition of a repeat (its errors then name "name[index]"), or NULL. */
void writer_scope_func(emitter *m, item_list *body, const char *name, const char *index_c);
/* emit_write_dir.c: the writer of a repeat with a count (one repetition
 * per array when its records feed a directory, else none), of a
 * directory's data area. */
void writer_counted_repeat(emitter *m, item *repeat);
void writer_directory(emitter *m, item *dir);
/* The C value the count field f of one of the repeats items[0..n) gets
 * (the number of arrays, or 0), or NULL when none counts with f. */
char *writer_count_value(const emitter *m, item *const *items, int n, const item *f);

/* Helpers for codes: "constraint" -> "AFMT_E_CONSTRAINT". */
char *code_enum(const char *code);
const char *dtype_enum(const char *dtype);
const char *int_c_type(int is_signed);
char *load_c(int width, int is_signed, int big, const char *ptr);

#endif
