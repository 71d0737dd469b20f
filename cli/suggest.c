/* afmt CLI: did-you-mean suggestions (see suggest.h). */
#include "suggest.h"

#include <string.h>

#define SUGGEST_MAX 64

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

/* Optimal string alignment distance between a[0..n) and b[0..m), both at
 * most SUGGEST_MAX - 1 bytes: three rows of a dynamic programme. */
static size_t edit_distance(const char *a, size_t n, const char *b, size_t m)
{
    size_t rows[3][SUGGEST_MAX];
    size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2], *t;
    size_t i, j;

    for (j = 0; j <= m; j++)
        prev[j] = j;
    for (i = 1; i <= n; i++) {
        cur[0] = i;
        for (j = 1; j <= m; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                prev2[j - 2] + 1 < cur[j])
                cur[j] = prev2[j - 2] + 1;
        }
        t = prev2, prev2 = prev, prev = cur, cur = t;
    }
    return prev[m];
}

const char *afmt_cli_suggest(const char *word, size_t n, const char *const *cands,
                             size_t count)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1, limit, i;

    if (n == 0 || n >= SUGGEST_MAX)
        return NULL;
    limit = n <= 4 ? 1 : n / 3;
    for (i = 0; i < count; i++) {
        size_t m, d;

        if (!cands[i])
            continue;
        m = strlen(cands[i]);
        if (m >= SUGGEST_MAX)
            continue;
        d = edit_distance(word, n, cands[i], m);
        if (n >= 2 && n < m && memcmp(word, cands[i], n) == 0)
            d = 1; /* an abbreviation: as close as one typo */
        if (d <= limit && d < best_d) {
            best = cands[i];
            best_d = d;
        }
    }
    return best;
}
