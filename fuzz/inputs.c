/* afmt fuzzing: reading inputs from files and folders (see inputs.h). */
#include "inputs.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

size_t fz_list_dir(const char *dir, fz_entry_kind kind, int (*skip)(const char *name),
                   char ***names)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    struct stat st;
    char path[4096];
    size_t n = 0, cap = 0, len;
    char **v = NULL, **nv;

    *names = NULL;
    if (!d)
        return 0;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || (skip && skip(e->d_name)))
            continue;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path)
            continue;
        if (stat(path, &st) != 0 ||
            !(kind == FZ_FOLDERS ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode)))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            nv = realloc(v, cap * sizeof *v);
            if (!nv)
                break;
            v = nv;
        }
        len = strlen(e->d_name) + 1;
        if ((v[n] = malloc(len)) == NULL)
            break;
        memcpy(v[n], e->d_name, len);
        n++;
    }
    closedir(d);
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_names);
    *names = v;
    return n;
}

void fz_free_names(char **names, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        free(names[i]);
    free(names);
}
