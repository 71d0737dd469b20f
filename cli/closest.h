/* afmt CLI: saying something useful about an input no format detects.
 *
 * When neither a magic number nor an extension names the format, every
 * format's validator is run on the bytes, and:
 *   - one that accepts them is named ("it reads as valid futhark: pass
 *     --format futhark"): a Futhark text file has no magic, and detecting
 *     it by content would take arbitrary text for arrays;
 *   - else the one that got furthest is the closest match, with its own
 *     error: the error's offset first, then, for a magic that differs,
 *     how many of its leading bytes agree (INEBIM against INEBIN);
 *   - else nothing comes close (every format stops at byte 0 with nothing
 *     in common).
 */
#ifndef AFMT_CLI_CLOSEST_H
#define AFMT_CLI_CLOSEST_H

#include "afmt.h"

typedef enum afmt_cli_closeness {
    AFMT_CLI_NOTHING_CLOSE,
    AFMT_CLI_CLOSEST,  /* *fmt failed last, *err is its error */
    AFMT_CLI_ACCEPTED  /* *fmt validates the bytes although it was not detected */
} afmt_cli_closeness;

/* buf holds the input (partial: only its first bytes, as for a pipe or an
 * input over its limit; then truncation errors do not count).  *err is
 * set for AFMT_CLI_CLOSEST. */
afmt_cli_closeness afmt_cli_closest(const uint8_t *buf, uint64_t len, int partial,
                                    const afmt_options *opt, const afmt_format **fmt,
                                    afmt_error *err);

/* The report for an undetected input, from afmt_cli_closest: *err becomes
 * the error to print (code detect, or the closest format's own error), and
 * the return value the format to name (NULL for none); *closest is set
 * when it is a closest match.  option is how the command names a format
 * ("--format", "--from"), for the hint. */
const afmt_format *afmt_cli_undetected(const uint8_t *buf, uint64_t len, int partial,
                                       const afmt_options *opt, const char *option,
                                       afmt_error *err, int *closest);

/* Detection by content, for a whole input (partial 0) no magic or
 * extension names: the format that accepts every byte of it as text
 * values (every array it holds is AFMT_ENC_TEXT, and it holds one at
 * least): a Futhark text file has no magic, but a file that parses
 * completely as array values is what it says.  NULL for anything else,
 * for an empty input and for partial input. */
const afmt_format *afmt_cli_detect_text(const uint8_t *buf, uint64_t len, int partial,
                                        const afmt_options *opt);

/* The report for an empty input no format was forced on: "empty file",
 * the same from a path and from a pipe, naming a format that reads 0
 * bytes as valid (option: "--format", "--from") if there is one. */
void afmt_cli_empty_error(const afmt_options *opt, const char *option, afmt_error *err);

#endif /* AFMT_CLI_CLOSEST_H */
