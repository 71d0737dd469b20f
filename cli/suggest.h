/* afmt CLI: "did you mean ...?" for a mistyped option or command name.
 *
 * A word is compared with each candidate by edit distance (insertions,
 * deletions, substitutions and swaps of neighbours all cost one); the
 * closest candidate is suggested when it is close enough to be what was
 * meant: at most one edit for a word of up to 4 characters, else at most
 * a third of the word's length.  A candidate that begins with the word
 * (an abbreviation such as "--jso") is suggested too.
 */
#ifndef AFMT_CLI_SUGGEST_H
#define AFMT_CLI_SUGGEST_H

#include <stddef.h>

/* The candidate closest to word[0..n) among cands[0..count) (NULL entries
 * are skipped), or NULL when none is close enough.  Returns one of cands
 * (no allocation); names longer than 63 bytes are never suggested. */
const char *afmt_cli_suggest(const char *word, size_t n, const char *const *cands,
                             size_t count);

#endif /* AFMT_CLI_SUGGEST_H */
