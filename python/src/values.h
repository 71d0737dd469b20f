/* afmt Python extension: typed metadata values (afmt_value, GGUF's
 * key-values, a torch checkpoint's plain values) to and from Python.
 *
 * To Python: an unsigned or signed number is an int, a float a float, a
 * bool a bool, a string a str (bytes when it is not UTF-8), a list a list;
 * afmt_py_value_type names the stored type ("u32", "str", "list[f32]")
 * so that nothing is lost.  From Python (afmt.save's GGUF metadata): bool
 * -> bool, int -> i64 (u64 above its range), float -> f64, str or bytes
 * -> string, list or tuple -> a list of one item type; an afmt.Typed
 * (an object with attributes afmt_type and value) gives the type itself
 * ("u32", "f32", "list[u32]"...). */
#ifndef AFMT_PY_VALUES_H
#define AFMT_PY_VALUES_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "afmt.h"

/* v as a Python value (new reference), NULL with an exception. */
PyObject *afmt_py_value_to_python(const afmt_value *v);

/* "u32", "str", "list[str]", "list[list[u8]]" into out. */
void afmt_py_value_type(const afmt_value *v, char *out, size_t size);

/* Memory the values made from Python point into, freed at once. */
typedef struct afmt_py_arena {
    void **blocks;
    size_t n, cap;
} afmt_py_arena;

void afmt_py_arena_free(afmt_py_arena *a);

/* The Python mapping `metadata` (str keys) as n key-values in *kv, all
 * memory in arena (keys and strings point into Python objects the caller
 * keeps alive while the kvs are used: metadata itself).  0, or -1 with a
 * Python exception naming the key. */
int afmt_py_kvs_from_python(PyObject *metadata, afmt_py_arena *arena, afmt_kv **kv, size_t *n);

#endif /* AFMT_PY_VALUES_H */
