/* afmt CLI: afmt-validate's command line (validate_args.c): --help,
 * --version, the options into the run's settings, and the operands. */
#ifndef AFMT_CLI_VALIDATE_ARGS_H
#define AFMT_CLI_VALIDATE_ARGS_H

#include "config.h"

typedef struct afmt_cli_validate_args {
    afmt_cli_config cfg;
    int *operands;          /* argv indexes of the inputs, nops of them */
    int nops;
    const char *files_from; /* --files-from LIST, or NULL */
    int list_delim;         /* its delimiter: '\n', or '\0' with -0 */
} afmt_cli_validate_args;

/* Parse argv[first..] into *a (a->operands allocated, freed by
 * afmt_cli_validate_args_free).  -1 when the run goes on; else the exit
 * status to end it with (0 after --help or --version, 2 after a usage
 * error, said on stderr).  prog names the tool in messages. */
int afmt_cli_validate_parse(afmt_cli_validate_args *a, int argc, char **argv, int first,
                            const char *prog);
void afmt_cli_validate_args_free(afmt_cli_validate_args *a);

#endif /* AFMT_CLI_VALIDATE_ARGS_H */
