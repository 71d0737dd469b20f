/* afmt Python extension: validating a mapped file with the GIL released
 * and under the SIGBUS guard, shared by afmt.validate, afmt.open and
 * afmt.convert. */
#ifndef AFMT_PY_JOB_H
#define AFMT_PY_JOB_H

#include "afmt.h"
#include "run.h"

/* Validate f (open) into run (initialised), as afmt-validate would; a file
 * cut short during it gives an AFMT_E_IO verdict naming the offset.
 * Call with the GIL released. */
void afmt_py_validate_file(afmt_py_run *run, const afmt_file *f, const afmt_format *forced,
                           const afmt_options *opt);

/* The same for bytes in memory: path NULL (no sidecar, no extension), or
the file they were read from whole (a small file: cheaper than a map). */
void afmt_py_validate_bytes(afmt_py_run *run, const void *data, uint64_t len, const char *path,
                            const afmt_format *forced, const afmt_options *opt);

/* err := "the file was cut short while it was read: no byte at offset N
 * any more (it was SIZE bytes when opened)", AFMT_E_IO at N: at, or the
 * file's size now when f (open) ends before it.  SIZE is f->len. */
void afmt_py_cut_error(afmt_error *err, uint64_t at, const afmt_file *f, const char *format);

/* The same for a fault at address fault while f's mapping was read (an
 * address outside it: at f->len). */
void afmt_py_fault_error(afmt_error *err, uintptr_t fault, const afmt_file *f, const char *format);

#endif /* AFMT_PY_JOB_H */
