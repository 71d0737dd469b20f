/* afmt-gen: the loader's private interface, shared by load.c (the spec's
 * top level and its tables), load_item.c (one loader per item kind) and
 * load_json.c (reading JSON values into the model).
 *
 * Every function reports a problem as "PATH: /json/path: message" on
 * stderr and counts it in loader.errors; loading goes on after an error so
 * that one run shows them all.  Strings returned are malloc'd (xstrdup):
 * the model owns them for the life of the process. */
#ifndef AFMT_GEN_LOAD_H
#define AFMT_GEN_LOAD_H

#include <jansson.h>
#include "spec.h"

typedef struct loader {
    const char *path;   /* the spec file, for diagnostics */
    int errors;         /* problems reported so far */
} loader;

#define LERR(L, jp, ...) do { spec_error((L)->path, (jp), __VA_ARGS__); (L)->errors++; } while (0)

/* JSON paths: "base/key" and "base/i", malloc'd. */
char *jp_key(const char *base, const char *key);
char *jp_idx(const char *base, size_t i);

/* Reject keys the language does not define: a typo must not be ignored. */
void check_keys(loader *L, json_t *obj, const char *jp, const char *const *allowed);
/* obj[key] as a malloc'd string, NULL when absent (an error if required). */
char *get_str(loader *L, json_t *obj, const char *key, const char *jp, int required);
/* Parse an expression; NULL (and an error) when it does not parse. */
expr *parse_text(loader *L, const char *text, const char *jp);
/* obj[key] as an expression written as a string or a non-negative integer;
 * *text_out (when given) receives the text as written. */
expr *get_expr(loader *L, json_t *obj, const char *key, const char *jp, char **text_out);
/* A literal: integer, "0x..." integer, or string. */
expr *literal(loader *L, json_t *v, const char *jp);
/* "lenient": "warn" | "reject" (the default). */
leniency get_lenient(loader *L, json_t *obj, const char *key, const char *jp);
leniency get_check_lenient(loader *L, json_t *obj, const char *key, const char *jp);
/* An afmt_code suffix a spec may name (runtime/common/afmt_error.h); NULL is fine. */
void check_code(loader *L, const char *code, const char *jp);
/* "check": "expr" | {...} | [ "expr" | {...}, ... ] into *out, *n. */
void load_checks(loader *L, json_t *obj, const char *key, const char *jp, check **out, int *n);
/* "u16", "i32be", ...: width, signedness and byte order; 0 when not one. */
int parse_int_type(const char *t, field_item *f, int default_big);
/* "f32", "f64", each optionally suffixed le/be: a float field's width and
 * byte order (1), or 0. */
int parse_float_type(const char *t, field_item *f, int default_big);
/* A C-like identifier. */
int valid_name(const char *n);

/* inflated.c: a region's "inflate", "inflated_size" and "max_size". */
void load_inflated(loader *L, spec *s, json_t *obj, const char *jp, item *it);

/* load_item.c: the items of a body (a JSON list) into *out. */
void load_items(loader *L, spec *s, json_t *arr, const char *jp, item_list *out);

#endif
