/* afmt fuzzing: reading inputs from files and folders (see inputs.h). */
#include "inputs.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

uint8_t *fz_read_file(const char *path, uint64_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL, *nb;
    size_t cap = 0, n = 0, got;

    *len = 0;
    if (!f)
        return NULL;
    /* Read in growing pieces rather than trusting a size: the path may be
     * a pipe or a file that changes. */
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        got = fread(buf + n, 1, cap - n, f);
        if (got == 0)
            break;
        n += got;
    }
    if (ferror(f)) {
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    nb = malloc(n ? n : 1);
    if (nb) {
        memcpy(nb, buf, n);
        *len = n;
    }
    free(buf);
    return nb;
}

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
