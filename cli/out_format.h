/* afmt CLI: the format an output is written in, for afmt random and afmt
 * convert alike.
 *
 * One rule, so that a file's name never lies about its bytes: an OUT
 * whose extension names a format is written in that format, or refused
 * (two.npz is a NumPy archive, never Futhark binary data with an .npz
 * name).  In full:
 *   - --to NAME wins, unless OUT's extension is another format's
 *     (x.safetensors --to gguf is refused).  A spec's
 *     "shared_extensions" are the exception: ".bin" is torch's
 *     (pytorch_model.bin) but Futhark data, inebin files and raw dumps are
 *     named .bin too, so --to may choose for it;
 *   - without --to, the format whose extension OUT has (its
 *     "extensions", else its "shared_extensions"); an extension that
 *     several formats claim, or that no format of this build has
 *     (".xyz", ".h5"), is refused;
 *   - an OUT without extension, or standard output, gets the command's
 *     default (afmt random: futhark), or is refused when it has none.
 *
 * Thread-safety: pure functions of their arguments and the registry's
 * constant table. */
#ifndef AFMT_CLI_OUT_FORMAT_H
#define AFMT_CLI_OUT_FORMAT_H

#include <stddef.h>
#include "afmt.h"

/* Room for any reason afmt_cli_output_format gives. */
#define AFMT_CLI_OUT_FORMAT_WHY 512

/* The format to write out in.  out: OUT as given (NULL or "-": standard
 * output); asked: the --to format, or NULL; fallback: the command's
 * default for an OUT without extension, or NULL.  Returns the format, or
 * NULL with why (why_size bytes, AFMT_CLI_OUT_FORMAT_WHY is enough) a
 * sentence saying why and what to do, without the program's name. */
const afmt_format *afmt_cli_output_format(const char *out, const afmt_format *asked,
                                          const afmt_format *fallback, char *why,
                                          size_t why_size);

/* The extension of out's last path component (".npz"; the last dot on),
 * or "" when it has none (a leading dot, as in ".hidden", is no
 * extension).  Points into out. */
const char *afmt_cli_path_extension(const char *out);

#endif /* AFMT_CLI_OUT_FORMAT_H */
