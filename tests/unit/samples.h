/* Where the reference samples are, if anywhere.
 *
 * The samples (../shared/samples beside the repository, or the folder named
 * by $AFMT_SAMPLES) are not part of the repository: they are an extra set of
 * inputs that runs when present.  A plain clone has none, and its tests must
 * pass all the same, so a suite that finds no samples says so in one "SKIP"
 * line and runs the rest of its checks. */
#ifndef AFMT_TEST_SAMPLES_H
#define AFMT_TEST_SAMPLES_H
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The samples folder, or NULL after printing "SKIP <suite>: ..." when it is
 * missing or empty.  The returned string is the environment's or a literal:
 * not to be freed. */
static inline const char *samples_root(const char *suite)
{
    const char *env = getenv("AFMT_SAMPLES");
    const char *root = env && *env ? env : "../shared/samples";
    DIR *d = opendir(root);
    struct dirent *de;
    int entries = 0;
    if (d) {
        while (!entries && (de = readdir(d)) != NULL)
            entries = strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
        closedir(d);
    }
    if (!entries) {
        printf("SKIP %s: no reference samples in %s (set AFMT_SAMPLES to a samples folder to run them)\n",
               suite, root);
        return NULL;
    }
    return root;
}
#endif
