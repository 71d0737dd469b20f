/* afmt fuzzing: reading inputs from files and folders (fuzz/inputs.c).
 *
 * Shared by the fuzz targets' replay main (fuzz/harness.c,
 * -DFZ_STANDALONE_MAIN) and tests/unit/test_fuzz_regressions.c, which
 * both run the checks on files: one reader, so both hand the checks the
 * same bytes in the same kind of buffer.  POSIX (dirent, stat).  No global
 * state; thread-safe.
 */
#ifndef AFMT_FUZZ_INPUTS_H
#define AFMT_FUZZ_INPUTS_H

#include <stddef.h>
#include <stdint.h>

/* fz_read_file: read_file.h (the unit tests' reader too). */
#include "read_file.h"

/* Which entries fz_list_dir keeps. */
typedef enum { FZ_REGULAR_FILES, FZ_FOLDERS } fz_entry_kind;

/* The names of the entries of dir of the given kind, sorted (strcmp),
 * without dot files and without those skip(name) is true for (skip may be
 * NULL).  Returns how many; *names (NULL when none) and each name are
 * malloc'd: free them with fz_free_names.  A folder that cannot be read
 * has no entries; names that cannot be stored for want of memory are left
 * out. */
size_t fz_list_dir(const char *dir, fz_entry_kind kind, int (*skip)(const char *name),
                   char ***names);

/* Free what fz_list_dir returned (n names). */
void fz_free_names(char **names, size_t n);

#endif /* AFMT_FUZZ_INPUTS_H */
