/* afmt CLI: a visitor to start from.  Its own file because the Python
 * extension compiles it too (cli/closest.c needs it) without the CLI's
 * loader.  Thread-safe: it fills the caller's struct only. */
#ifndef AFMT_CLI_VISITOR_H
#define AFMT_CLI_VISITOR_H

#include "afmt.h"

/* Fill vis with callbacks that all exist and do nothing (on_metadata,
 * on_kv and on_member NULL: not asked for), with ctx as their context;
 * the caller then sets the ones it needs. */
void afmt_cli_visitor_init(afmt_visitor *vis, void *ctx);

#endif /* AFMT_CLI_VISITOR_H */
