/* afmt CLI: entry points shared by build/afmt-validate and build/afmt. */
#ifndef AFMT_CLI_H
#define AFMT_CLI_H

#define AFMT_CLI_VERSION "0.1.0"

/* The project's home page, named in SARIF output (tool.driver.
 * informationUri) when not empty: set it with -DAFMT_CLI_INFORMATION_URI=...
 * when packaging; a build without one names afmt-validate's man page where
 * it lies beside the program (file: URI), or no page rather than invent one. */
#ifndef AFMT_CLI_INFORMATION_URI
#define AFMT_CLI_INFORMATION_URI ""
#endif

/* Exit statuses of every afmt tool. */
#define AFMT_EXIT_OK 0      /* everything valid / done */
#define AFMT_EXIT_INVALID 1 /* an input is invalid, or a conversion refused */
#define AFMT_EXIT_ERROR 2   /* usage or I/O error */

/* afmt-validate [options] FILE...: argv[first..] are the arguments after
 * the program (or command) name; prog names the tool in messages. */
int afmt_cli_validate_main(int argc, char **argv, int first, const char *prog);

/* afmt subcommands (argv[first..] after the command name). */
int afmt_cli_formats_main(int argc, char **argv, int first);
int afmt_cli_dump_main(int argc, char **argv, int first);
int afmt_cli_convert_main(int argc, char **argv, int first);
int afmt_cli_random_main(int argc, char **argv, int first);
int afmt_cli_info_main(int argc, char **argv, int first);

/* The exit status once standard output is flushed: status, or
 * AFMT_EXIT_ERROR with "PROG: error writing standard output: REASON" on
 * stderr when what was written to it (--help, -V, a report) did not all
 * get out (a full disk, /dev/full, a closed pipe).  A status of
 * AFMT_EXIT_ERROR is kept without a second message: the command said
 * why.  For main() to return. */
int afmt_cli_close_stdout(const char *prog, int status);

#endif /* AFMT_CLI_H */
