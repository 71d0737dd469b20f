/* afmt CLI: the options that set afmt_limits (--max-header-bytes,
 * --max-depth, --max-items, --max-decoded-bytes, --max-kept-bytes), parsed in one place for every command that
 * validates (afmt-validate, afmt info, dump, convert): put
 * AFMT_CLI_LIMIT_OPTDEFS in the command's option table,
 * AFMT_CLI_LIMIT_HELP in its --help, and hand each option id to
 * afmt_cli_limit_option. */
#ifndef AFMT_CLI_LIMIT_OPTS_H
#define AFMT_CLI_LIMIT_OPTS_H

#include "afmt.h"

/* Option ids, above any command's own. */
enum {
    AFMT_CLI_OPT_MAX_HEADER_BYTES = 900,
    AFMT_CLI_OPT_MAX_DEPTH,
    AFMT_CLI_OPT_MAX_ITEMS,
    AFMT_CLI_OPT_MAX_DECODED_BYTES,
    AFMT_CLI_OPT_MAX_KEPT_BYTES
};

/* Entries of an afmt_cli_optdef table. */
#define AFMT_CLI_LIMIT_OPTDEFS                                        \
    { "max-header-bytes", 0, 1, AFMT_CLI_OPT_MAX_HEADER_BYTES },      \
    { "max-depth", 0, 1, AFMT_CLI_OPT_MAX_DEPTH },                    \
    { "max-items", 0, 1, AFMT_CLI_OPT_MAX_ITEMS },                    \
    { "max-decoded-bytes", 0, 1, AFMT_CLI_OPT_MAX_DECODED_BYTES },                 \
    { "max-kept-bytes", 0, 1, AFMT_CLI_OPT_MAX_KEPT_BYTES }

/* Their lines of --help (no '%': a printf format may hold it). */
#define AFMT_CLI_LIMIT_HELP                                                        \
    "      --max-header-bytes N\n"                                                 \
    "                     a header or list of names of more than N bytes is\n"     \
    "                     invalid (code limit; default 100000000, the largest\n"   \
    "                     safetensors header its reference reads)\n"               \
    "      --max-depth N  text header values nested deeper than N (1 to 32;\n"    \
    "                     default 32) are invalid (code limit)\n"                  \
    "      --max-items N  more than N repetitions or header entries are\n"        \
    "                     invalid (code limit)\n"                                 \
    "      --max-decoded-bytes N\n"                                                \
    "                     compressed data (an LZ4 payload, an archive's\n"         \
    "                     deflated members) decoding to more than N bytes in\n"    \
    "                     all is invalid (code limit; default 64G)\n"                       \
    "      --max-kept-bytes N\n"                                                   \
    "                     a check that must keep more than N bytes of what it\n"   \
    "                     read, in all (GGUF's keys and records) is invalid\n"    \
    "                     (code limit; default 256M)\n"

/* 0 when id is none of these options; 1 when it is and val was applied to
 * *limits; -1 when val is wrong, after "PROG: --OPTION needs ..., not
 * 'VAL'" on standard error (the caller then reports a usage error). */
int afmt_cli_limit_option(const char *prog, int id, const char *val, afmt_limits *limits);

/* For an error of code limit that one of these options raises: " (raise
 * it with --OPTION N)", to append to the message; "" for any other error.
 * The runtime's messages name the limit ("(limits.max_header_bytes)",
 * "(limits.max_kept_bytes)");
 * the generated ones say "repetitions" (max_items) or "header limit"
 * (max_header_bytes).  Static storage. */
const char *afmt_cli_limit_hint(const afmt_error *err);

#endif /* AFMT_CLI_LIMIT_OPTS_H */
