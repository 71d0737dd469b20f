/* afmt registry (optional): finding a format by name, by magic, or by
 * extension, as declared in afmt.h.
 *
 * The table itself (afmt_formats) is generated (generated/afmt_formats.c),
 * so a new spec is found here without any change to this file.  It lives
 * outside runtime/ so that a program using one format links without it:
 * compile this file and afmt_formats.c only when you want lookup.
 */
#include "afmt.h"

#include <string.h>

const afmt_format *afmt_format_by_name(const char *name)
{
    size_t i;

    if (!name)
        return NULL;
    for (i = 0; i < afmt_format_count; i++)
        if (afmt_formats[i] && strcmp(afmt_formats[i]->name, name) == 0)
            return afmt_formats[i];
    return NULL;
}

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Does path end with ext, ignoring ASCII case (".RA" is ".ra")? */
static int ends_with_nocase(const char *path, const char *ext)
{
    size_t n = strlen(path), m = strlen(ext), i;

    if (m == 0 || m > n)
        return 0;
    path += n - m;
    for (i = 0; i < m; i++)
        if (lower((unsigned char)path[i]) != lower((unsigned char)ext[i]))
            return 0;
    return 1;
}

/* The format one of whose lists (extensions, or shared_extensions when
 * shared) holds the longest suffix of path; NULL on none, or on a tie (then
 * *tie is one of the two). */
static const afmt_format *by_suffix(const char *path, int shared, const afmt_format **tie)
{
    const afmt_format *best = NULL, *other = NULL;
    const char *const *ext;
    size_t best_len = 0, i;

    if (tie)
        *tie = NULL;
    if (!path)
        return NULL;
    for (i = 0; i < afmt_format_count; i++) {
        const afmt_format *f = afmt_formats[i];
        const char *const *list = f ? (shared ? f->shared_extensions : f->extensions) : NULL;
        if (!list)
            continue;
        for (ext = list; *ext; ext++) {
            size_t n = strlen(*ext);
            if (!ends_with_nocase(path, *ext))
                continue;
            if (n > best_len) {
                best = f;
                best_len = n;
                other = NULL;
            } else if (n == best_len && f != best) {
                other = f;
            }
        }
    }
    if (other) {
        if (tie)
            *tie = best;
        return NULL;
    }
    return best;
}

const afmt_format *afmt_format_by_extension(const char *path, const afmt_format **tie)
{
    return by_suffix(path, 0, tie);
}

const afmt_format *afmt_format_by_shared_extension(const char *path, const afmt_format **tie)
{
    return by_suffix(path, 1, tie);
}

const afmt_format *afmt_format_detect(const uint8_t *buf, uint64_t len, const char *path)
{
    const afmt_format *f;
    size_t i;

    /* Content first: a magic number is stronger evidence than a name. */
    if (buf)
        for (i = 0; i < afmt_format_count; i++) {
            f = afmt_formats[i];
            if (f && f->detect && f->detect(buf, len) == 1)
                return f;
        }
    return afmt_format_by_extension(path, NULL);
}
