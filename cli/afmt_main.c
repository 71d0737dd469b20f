/* afmt: inspect, dump and convert binary array files (see docs/afmt.1). */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "suggest.h"

static const char *const commands[] = {
    "formats", "info", "dump", "convert", "random", "validate", "help",
};

/* "unknown command 'X'", with the closest command when one is close. */
static int unknown_command(const char *cmd)
{
    const char *best = afmt_cli_suggest(cmd, strlen(cmd), commands,
                                        sizeof commands / sizeof commands[0]);

    if (best)
        return afmt_cli_usage_error("afmt", "unknown command '%s' (did you mean '%s'?)",
                                    cmd, best);
    return afmt_cli_usage_error("afmt", "unknown command '%s'", cmd);
}

static void usage(FILE *f)
{
    fprintf(f,
"Usage: afmt COMMAND [OPTION]... [ARG]...\n"
"Read, check and convert binary array files: futhark, tenbin, inebin,\n"
"daphne, rawarray, npy, npz, safetensors, gguf, torch (PyTorch checkpoints,\n"
"read without running their pickle), webdataset (tar shards, read only),\n"
"nifti1 (NIfTI-1 images), fits (FITS images) and mat5 (MATLAB Level 5\n"
"MAT-files, read only; 'afmt formats' lists them all).\n"
"\n"
"Commands:\n"
"  formats                  list the known formats and their extensions\n"
"  info [--json] FILE...    every header field (offset, width, value, doc),\n"
"                           then every array, warning and the verdict\n"
"  dump [--format NAME] [--list] FILE\n"
"                           print every array as a Futhark text value\n"
"                           (--list: one element a line)\n"
"  convert [--from NAME] [--to NAME] [--dtype TYPE] [--allow-lossy] [--text]\n"
"          IN OUT           write the arrays of IN to OUT in another format\n"
"  random [--to NAME] [--seed N] [--T-bounds=LO:HI] TYPE... -o OUT\n"
"                           random arrays, such as '[10][20]f32'\n"
"  validate FILE...         the same as afmt-validate\n"
"  help [COMMAND]           this text, or the help of COMMAND\n"
"\n"
"Options:\n"
"  -h, --help               print this help and exit\n"
"  -V, --version            print the version and exit\n"
"\n"
"'afmt COMMAND --help' describes each command.\n"
"\n"
"Examples (the files are in the afmt sources' examples/ folder):\n"
"  afmt formats\n"
"  afmt info examples/test.ra\n"
"  afmt dump examples/i32_2x3.bin\n"
"  afmt convert examples/test.ra test.npy\n"
"  afmt random '[10][20]f32' -o x.npy\n"
"  afmt validate examples/*.*\n"
"\n"
"Exit status: 0 success, 1 an input is invalid or a conversion was\n"
"refused, 2 usage or I/O error.\n");
}

static int dispatch(const char *cmd, int argc, char **argv, int first)
{
    if (strcmp(cmd, "formats") == 0)
        return afmt_cli_formats_main(argc, argv, first);
    if (strcmp(cmd, "info") == 0)
        return afmt_cli_info_main(argc, argv, first);
    if (strcmp(cmd, "dump") == 0)
        return afmt_cli_dump_main(argc, argv, first);
    if (strcmp(cmd, "convert") == 0)
        return afmt_cli_convert_main(argc, argv, first);
    if (strcmp(cmd, "random") == 0)
        return afmt_cli_random_main(argc, argv, first);
    if (strcmp(cmd, "validate") == 0)
        return afmt_cli_validate_main(argc, argv, first, "afmt validate");
    return unknown_command(cmd);
}

static int run_command(int argc, char **argv)
{
    const char *cmd;

    if (argc < 2)
        return afmt_cli_usage_error("afmt", "no COMMAND (formats, info, dump, convert, "
                                            "random, validate, help)");
    cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
        usage(stdout);
        return AFMT_EXIT_OK;
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf("afmt %s\n", AFMT_CLI_VERSION);
        return AFMT_EXIT_OK;
    }
    if (strcmp(cmd, "help") == 0) {
        char help[] = "--help";
        char *hargv[3];

        /* "afmt help", "afmt help --help", "afmt help help": this text. */
        if (argc < 3 || strcmp(argv[2], "-h") == 0 || strcmp(argv[2], "--help") == 0 ||
            strcmp(argv[2], "help") == 0) {
            usage(stdout);
            return AFMT_EXIT_OK;
        }
        hargv[0] = argv[0];
        hargv[1] = help;
        hargv[2] = NULL;
        return dispatch(argv[2], 2, hargv, 1);
    }
    if (cmd[0] == '-') {
        static const char *const opts[] = { "--help", "--version" };
        const char *best = cmd[1] == '-' ? afmt_cli_suggest(cmd, strlen(cmd), opts, 2) : NULL;

        if (best)
            return afmt_cli_usage_error("afmt", "unknown option '%s' (did you mean '%s'?)",
                                        cmd, best);
        return afmt_cli_usage_error("afmt", "unknown option '%s'", cmd);
    }
    return dispatch(cmd, argc, argv, 2);
}

int main(int argc, char **argv)
{
    return afmt_cli_close_stdout("afmt", run_command(argc, argv));
}
