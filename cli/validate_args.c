/* afmt CLI: afmt-validate's command line (validate_args.h). */
#include "validate_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "cli.h"
#include "formats.h"
#include "limit_opts.h"
#include "report.h"
#include "spec.h"

#define MAX_JOBS 256

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
"Usage: %s [OPTION]... FILE...\n"
"Check that each FILE is a well-formed binary array file in a format afmt\n"
"knows, and print one line per file.\n",
                prog);
    fprintf(f,
"\n"
"The format is found from the file's magic bytes, else its extension,\n"
"else its content (a file that parses completely as Futhark text values).\n"
"An empty input is \"empty file\" (--format tenbin accepts it).\n"
"FILE \"-\" is standard input; pipes and other non-regular files are\n"
"validated as streams through a 32 MiB window, whatever their length.\n"
"A directory is walked with -r.  A model's folder (one holding\n"
"model.safetensors.index.json, any *.index.json, or gguf-split's\n"
"PREFIX-00001-of-00003.gguf files), an index, or an index or a split's first\n"
"file met in a walk is checked as one model: every shard there and valid,\n"
"every tensor once, in the shard the index names, metadata.total_size the\n"
"sum of their bytes; split.no, split.count, split.tensors.count consistent.\n"
"Each fault is a line of the file it is in (\"invalid model: ...\"), then\n"
"the set gets one (\"ok model (...)\").  A tar shard (.tar, or a tar\n"
"stream on standard input) is the webdataset format: each member named as\n"
"an array format's file (.ten, .npy, .npz, .ra, .safetensors, .gguf,\n"
".dbdf) is checked by it and shown as ARCHIVE:MEMBER, the rest ignored.\n"
"A compressed shard (.tar.gz, .tgz, .tar.bz2, .tbz2, .tar.xz, .txz,\n"
".tar.zst, .tar.lz4) is decompressed by libarchive, loaded only then.\n"
"An archive of other formats' files (a NumPy .npz: np.savez,\n"
"np.savez_compressed) is validated whole by its format (end records,\n"
"central directory against local headers, members back to back, CRC-32s,\n"
"declared sizes; a deflated member claiming more than 1032 bytes per\n"
"compressed byte is refused unread), each member another format parses\n"
"shown as ARCHIVE:MEMBER, what is the archive's own as ARCHIVE, in\n"
"bounded memory and without extracting anything.  --format names the\n"
"format of files, never of an archive's members.\n"
"\n"
"Options:\n"
"  -f, --format NAME  no detection: check every input as format NAME\n"
"      --spec FILE    no detection: check every input as the format the\n"
"                     spec FILE describes (spec/LANGUAGE.md), read now by\n"
"                     afmt's reference interpreter: a format of your own\n"
"                     with no build step.  Same verdicts and messages as\n"
"                     the code afmt-gen would generate, more slowly;\n"
"                     generate code for speed, to ship the format or to\n"
"                     write it (docs/TUTORIAL.md).  In a walk (-r), files\n"
"                     are checked if the spec's magic or extensions match\n"
"      --strict       accept exactly what a conforming writer produces\n"
"                     (the default)\n"
"      --lenient      also accept what the reference readers tolerate,\n"
"                     reporting each tolerance as a warning\n"
"      --structure    check the structure only (headers, sizes, offsets,\n"
"                     layout) and read no payload: bool values and the\n"
"                     CRC-32 of archive members are not checked\n"
"  -v, --verbose      list every array and every warning on its own line\n"
"  -q, --quiet        print only invalid inputs and errors\n"
"      --json         print one JSON object per input instead of text\n"
"      --sarif        print one SARIF 2.1.0 log instead of text: a result\n"
"                     per invalid input and per warning, located by file\n"
"                     and byte region (for code-scanning tools)\n"
"  -r, --recursive    walk directories, in byte order of names.  Files met\n"
"                     in a walk are checked only if their magic or extension\n"
"                     matches a format (the --format one, if given); others\n"
"                     are skipped (listed with -v).  Symlink loops, FIFOs\n"
"                     and devices inside are skipped\n"
"      --files-from LIST  also check the paths listed in LIST, one per line\n"
"                     (\"-\": standard input), as if given as FILEs; the\n"
"                     list is read as it is checked, whatever its length\n"
"  -0, --null         the --files-from list is NUL-separated (find -print0)\n"
"  -j, --jobs N       check N inputs in parallel (0: one per CPU); the\n"
"                     output keeps the argument order.  Default: one per\n"
"                     CPU (at most 8) when there are several inputs\n"
"      --max-bytes N  an input larger than N bytes is invalid (code limit);\n"
"                     suffixes k, M, G, T (powers of 1024).  Default: no\n"
"                     limit (a compressed shard's: of the tar it holds)\n"
"      --max-rank N   an array of more than N dimensions is invalid\n"
"                     (code limit; default 255)\n"
AFMT_CLI_LIMIT_HELP
"  -h, --help         print this help and exit\n"
"  -V, --version      print the version and exit\n"
"\n"
"Output (text):\n"
"  PATH: ok FORMAT DTYPE[SHAPE] ORDER [(+N more)] [(N warnings)]\n"
"    [i] NAME DTYPE[SHAPE] ORDER offset=N     with -v, one per array\n"
"    warning: FIELD at offset N: MESSAGE      with -v, one per warning\n"
"  PATH: invalid FORMAT: FIELD at offset N: MESSAGE\n"
"  PATH: invalid FORMAT (closest match): FIELD at offset N: MESSAGE\n"
"                       no format detected: the one that got furthest\n"
"  PATH: invalid: no format's magic or extension matches, but it reads as\n"
"        valid FORMAT: pass --format FORMAT\n"
"  PATH: invalid: no known format matches (magic or extension)\n"
"  PATH: invalid: empty file\n"
"  PATH: error: MESSAGE                       on standard error\n"
"\n"
"Output (--json), one self-contained line per input (merge lines from\n"
"many runs with cat):\n"
"  {\"path\":..., \"verdict\":\"valid\"|\"invalid\"|\"error\",\n"
"   \"format\":NAME|null, [\"closest_match\":NAME,]\n"
"   \"valid\":BOOL, \"array_count\":N,\n"
"   \"arrays\":[{\"index\",\"name\",\"dtype\",\"shape\",\"order\",\"offset\",\n"
"   \"nbytes\"}...], \"error\":null|{\"code\",\"offset\",\"field\",\"message\"},\n"
"   \"warnings\":[{\"code\",\"offset\",\"field\",\"message\"}...],\n"
"   \"afmt_version\":VERSION}       verdict error: could not be read (io)\n"
"  At most %d arrays and %d warnings are listed per input; then\n"
"  \"arrays_truncated\" / \"warnings_truncated\" is true.\n"
"\n"
"Progress: when standard error is a terminal and standard output is not,\n"
"a run that takes more than a second keeps a line \"PROG: N checked, Ts\"\n"
"up to date on standard error, erased at the end.\n"
"\n"
"Examples (the files are in the afmt sources' examples/ folder):\n"
"  afmt-validate examples/*.*\n"
"  afmt-validate examples/invalid/*                # exit 1: all invalid\n"
"  afmt-validate --lenient examples/invalid/bool_byte_2.bin\n"
"  afmt-validate -q -r examples             # exit 1: only the invalid ones\n"
"  afmt-validate --json examples/test.ra\n"
"  cat examples/two_arrays_i2_u1.ten | afmt-validate -\n"
"\n"
"Exit status:\n"
"  0  every input is valid\n"
"  1  some input is invalid\n"
"  2  a usage error, some input could not be read, or standard output\n"
"     could not be written (this wins over 1)\n"
"\n"
"Remote files: a FILE that is an http:// or https:// URL, percent-encoded\n"
"as URLs are (a space is %%20), is checked by HTTP range requests,\n"
"fetching only the bytes the checks read and the size the server gives.\n"
"Headers only: daphne, fits, futhark, gguf, inebin, mat5, nifti1, npy, npz,\n"
"rawarray, safetensors, tenbin, torch, webdataset (a 16 MiB file costs one\n"
"64 KiB range, an archive its directory and each member's headers, a\n"
"MAT-file's compressed variable all its bytes; an array of\n"
"bools has its values checked too, read by ranges).  afmt info URL\n"
"fetches what afmt-validate does; afmt dump and afmt convert fetch the\n"
"whole file.  Redirects are followed (at most 5),\n"
"TLS certificates verified, a connection that stalls for 60 s dropped; a\n"
"server without range support is an error.  Needs libcurl (libcurl.so.4),\n"
"loaded only when a URL is met.\n"
"\n"
"Formats: ",
            AFMT_CLI_MAX_LISTED_ARRAYS, AFMT_CLI_MAX_LISTED_WARNINGS);
    afmt_cli_print_format_names(f);
    fprintf(f, "\n(see 'afmt formats' for their extensions).\n");
}

/* After a message of its own. */
static int usage_error(const char *prog)
{
    return afmt_cli_usage_error(prog, NULL);
}

enum {
    OPT_HELP = 1, OPT_VERSION, OPT_VERBOSE, OPT_QUIET, OPT_RECURSIVE,
    OPT_JOBS, OPT_JSON, OPT_STRICT, OPT_LENIENT, OPT_FORMAT, OPT_MAX_BYTES,
    OPT_MAX_RANK, OPT_FILES_FROM, OPT_NULL, OPT_SARIF, OPT_SPEC, OPT_STRUCTURE
};

static const afmt_cli_optdef validate_opts[] = {
    { "help", 'h', 0, OPT_HELP },
    { "version", 'V', 0, OPT_VERSION },
    { "verbose", 'v', 0, OPT_VERBOSE },
    { "quiet", 'q', 0, OPT_QUIET },
    { "recursive", 'r', 0, OPT_RECURSIVE },
    { "jobs", 'j', 1, OPT_JOBS },
    { "json", 0, 0, OPT_JSON },
    { "strict", 0, 0, OPT_STRICT },
    { "lenient", 0, 0, OPT_LENIENT },
    { "structure", 0, 0, OPT_STRUCTURE },
    { "format", 'f', 1, OPT_FORMAT },
    { "spec", 0, 1, OPT_SPEC },
    { "max-bytes", 0, 1, OPT_MAX_BYTES },
    { "max-rank", 0, 1, OPT_MAX_RANK },
    { "files-from", 0, 1, OPT_FILES_FROM },
    { "null", '0', 0, OPT_NULL },
    { "sarif", 0, 0, OPT_SARIF },
    AFMT_CLI_LIMIT_OPTDEFS,
    { NULL, 0, 0, 0 }
};

/* -j N (0: one per CPU online), --max-bytes SIZE, --max-rank N: -1 to go
 * on, else the exit status. */
static int take_number(afmt_cli_config *cfg, int id, const char *val, const char *prog)
{
    uint64_t v = 0;

    if (id == OPT_JOBS && afmt_cli_parse_uint(val, 0, 100000, &v) != 0) {
        fprintf(stderr, "%s: -j needs a number of jobs, not '%s'\n", prog, val);
        return usage_error(prog);
    }
    if (id == OPT_JOBS && v == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        v = n > 0 ? (uint64_t)n : 1;
    }
    if (id == OPT_JOBS)
        cfg->jobs = v > MAX_JOBS ? MAX_JOBS : (unsigned)v;
    if (id == OPT_MAX_BYTES && afmt_cli_parse_size(val, &v) != 0) {
        fprintf(stderr, "%s: --max-bytes needs a size such as 1048576 or "
                        "64M, not '%s'\n", prog, val);
        return usage_error(prog);
    }
    if (id == OPT_MAX_BYTES)
        cfg->file_limit = cfg->stream_limit = cfg->opt.limits.max_total_bytes = v;
    if (id == OPT_MAX_RANK && afmt_cli_parse_uint(val, 0, AFMT_RANK_CAP, &v) != 0) {
        fprintf(stderr, "%s: --max-rank needs a number from 0 to %d, not '%s'\n",
                prog, AFMT_RANK_CAP, val);
        return usage_error(prog);
    }
    if (id == OPT_MAX_RANK)
        cfg->opt.limits.max_rank = v;
    return -1;
}

/* --format or --spec, given once: -1 to go on, else the exit status. */
static int take_format(afmt_cli_config *cfg, int id, const char *val, const char *prog)
{
    if (cfg->forced)
        return afmt_cli_usage_error(prog, "give one of --format and --spec, once");
    if (id == OPT_FORMAT) {
        cfg->forced = afmt_cli_format_arg(prog, val);
    } else {
        cfg->interp = afmt_cli_spec_arg(prog, val);
        cfg->forced = cfg->interp ? afmt_interp_format(cfg->interp) : NULL;
    }
    return cfg->forced ? -1 : usage_error(prog);
}

/* An option without a value but --help and --version: 1 when id is one. */
static int take_flag(afmt_cli_validate_args *a, int id)
{
    switch (id) {
    case OPT_VERBOSE:   a->cfg.verbose = 1; return 1;
    case OPT_QUIET:     a->cfg.quiet = 1; return 1;
    case OPT_RECURSIVE: a->cfg.recursive = 1; return 1;
    case OPT_JSON:      a->cfg.json = 1; return 1;
    case OPT_SARIF:     a->cfg.sarif = 1; return 1;
    case OPT_NULL:      a->list_delim = '\0'; return 1;
    case OPT_STRICT:    a->cfg.opt.mode = AFMT_STRICT; return 1;
    case OPT_LENIENT:   a->cfg.opt.mode = AFMT_LENIENT; return 1;
    case OPT_STRUCTURE: a->cfg.opt.check_values = 0; return 1;
    default:            return 0;
    }
}

/* One option (id, val) or the operand argv[index]: -1 to go on, else the
 * exit status. */
static int take_arg(afmt_cli_validate_args *a, int id, const char *val, int index, const char *prog)
{
    if (id == AFMT_CLI_ARGS_ERROR)
        return AFMT_EXIT_ERROR;
    if (id == AFMT_CLI_ARGS_OPERAND) {
        a->operands[a->nops++] = index;
        return -1;
    }
    if (id == OPT_HELP) {
        usage(stdout, prog);
        return AFMT_EXIT_OK;
    }
    if (id == OPT_VERSION) {
        printf("%s (afmt) %s\n", prog, AFMT_CLI_VERSION);
        return AFMT_EXIT_OK;
    }
    if (id == OPT_FILES_FROM) {
        a->files_from = val;
        return -1;
    }
    if (id == OPT_JOBS || id == OPT_MAX_BYTES || id == OPT_MAX_RANK)
        return take_number(&a->cfg, id, val, prog);
    if (id == OPT_FORMAT || id == OPT_SPEC)
        return take_format(&a->cfg, id, val, prog);
    if (take_flag(a, id))
        return -1;
    return afmt_cli_limit_option(prog, id, val, &a->cfg.opt.limits) < 0 ? usage_error(prog) : -1;
}

/* Options that do not go together, and no input at all.  -1 to go on,
 * else the exit status. */
static int check_combination(const afmt_cli_validate_args *a, char **argv, const char *prog)
{
    int k;

    for (k = 0; a->files_from && strcmp(a->files_from, "-") == 0 && k < a->nops; k++)
        if (strcmp(argv[a->operands[k]], "-") == 0)
            return afmt_cli_usage_error(prog, "standard input cannot be both the "
                                        "--files-from list and an input");
    if (a->cfg.sarif && a->cfg.json)
        return afmt_cli_usage_error(prog, "--json and --sarif: give one of them");
    if (a->list_delim == '\0' && !a->files_from)
        return afmt_cli_usage_error(prog, "-0 goes with --files-from");
    if (a->nops == 0 && !a->files_from) {
        fprintf(stderr, "%s: no input (give FILE..., or - for standard input)\n", prog);
        return usage_error(prog);
    }
    return -1;
}

int afmt_cli_validate_parse(afmt_cli_validate_args *a, int argc, char **argv, int first,
                            const char *prog)
{
    afmt_cli_args args;
    const char *val;
    int id, rc;

    memset(a, 0, sizeof *a);
    afmt_cli_config_default(&a->cfg);
    a->list_delim = '\n';
    a->operands = calloc((size_t)(argc > 0 ? argc : 1), sizeof *a->operands);
    if (!a->operands) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return AFMT_EXIT_ERROR;
    }
    afmt_cli_args_init(&args, argc, argv, first, validate_opts, prog);
    while ((id = afmt_cli_args_next(&args, &val)) != AFMT_CLI_ARGS_END)
        if ((rc = take_arg(a, id, val, args.i - 1, prog)) >= 0)
            return rc;
    return check_combination(a, argv, prog);
}

void afmt_cli_validate_args_free(afmt_cli_validate_args *a)
{
    free(a->operands);
    a->operands = NULL;
}
