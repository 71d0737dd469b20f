/* afmt CLI: a small command-line option parser.
 *
 * getopt keeps its state in globals; this one keeps it in a struct the
 * caller owns.  Short options bundle (-qv), take values attached or
 * separate (-j4, -j 4), long options take "--name=value" or "--name value",
 * "--" ends options and "-" is an operand.  Options and operands may be
 * mixed; operands come back in order.
 */
#ifndef AFMT_CLI_ARGS_H
#define AFMT_CLI_ARGS_H

#include <stdint.h>

typedef struct afmt_cli_optdef {
    const char *long_name; /* without "--"; NULL for none */
    int short_name;        /* 0 for none */
    int has_arg;           /* 1 if the option takes a value */
    int id;                /* returned by afmt_cli_args_next; > 0 */
} afmt_cli_optdef;

typedef struct afmt_cli_args {
    int argc;
    char **argv;
    const afmt_cli_optdef *defs; /* ends with a zeroed entry */
    const char *prog;            /* for messages */
    int i;                       /* next argv index */
    int sub;                     /* position inside a short-option bundle */
    int only_operands;           /* after "--" */
} afmt_cli_args;

enum {
    AFMT_CLI_ARGS_END = -1,     /* nothing left */
    AFMT_CLI_ARGS_OPERAND = 0,  /* *value is an operand */
    AFMT_CLI_ARGS_ERROR = -2    /* afmt_cli_usage_error said why: exit 2 */
};

void afmt_cli_args_init(afmt_cli_args *a, int argc, char **argv, int first,
                        const afmt_cli_optdef *defs, const char *prog);
/* The id of the next option (and its value in *value), an operand, END or
 * ERROR. */
int afmt_cli_args_next(afmt_cli_args *a, const char **value);

/* A usage error, as every afmt tool reports one: "PROG: MESSAGE" (unless
 * fmt is NULL) and "Try 'PROG --help' for more information." on standard
 * error.  Returns AFMT_EXIT_ERROR (2), the exit status it calls for. */
int afmt_cli_usage_error(const char *prog, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* "1048576", "64k", "1M", "2GiB", "1T": binary multiples.  0 or -1. */
int afmt_cli_parse_size(const char *s, uint64_t *out);
/* A plain decimal number in [lo, hi].  0 or -1. */
int afmt_cli_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

#endif /* AFMT_CLI_ARGS_H */
