/* afmt CLI: afmt-validate (and afmt validate): option parsing, walking the
 * arguments and directories, and running the checks on one or several
 * threads while keeping the output in argument order.
 *
 * The walk runs on the calling thread.  With -j 1 it checks each input as
 * it finds it; with -j N it hands inputs to N workers in batches through
 * a bounded pool (pool.h), so neither memory nor output ever grows with
 * the number of files: a directory is listed (and sorted) one at a time.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "afmt_internal.h"
#include "args.h"
#include "cli.h"
#include "files_from.h"
#include "formats.h"
#include "spec.h"
#include "limit_opts.h"
#include "pool.h"
#include "remote.h"
#include "report.h"
#include "sarif.h"

#define MAX_JOBS 256

/* A directory on the current walk path, to notice symlink loops. */
typedef struct walk_node {
    dev_t dev;
    ino_t ino;
    const struct walk_node *up;
} walk_node;

typedef struct runner {
    const afmt_cli_config *cfg;
    unsigned jobs;
    afmt_cli_worker *workers;
    afmt_cli_seq seq;
    afmt_cli_pool pool;  /* jobs > 1 */
    afmt_cli_item one;   /* jobs == 1 */
    uint64_t next_seq;
    /* The walk. */
    char path[AFMT_CLI_ITEM_PATH_MAX];
    size_t path_len;
    int walking; /* inside a directory named on the command line */
    /* --files-from LIST (NULL: none), its delimiter ('\n', or '\0' with
     * -0), and a buffer for one of its paths. */
    const char *files_from;
    int list_delim;
    int list_failed;
    char list_path[AFMT_CLI_ITEM_PATH_MAX];
    int sarif_started; /* --sarif: a result was written (out.h) */
} runner;

/* ---------------------------------------------------------------- work */

static void fill_item(afmt_cli_item *it, afmt_cli_item_kind kind, int err_no,
                      const char *note, const char *path, int walked)
{
    size_t n = strlen(path);

    it->walked = walked;
    it->kind = kind;
    it->err_no = err_no;
    it->note = note;
    if (n >= sizeof it->path) {
        /* Too long to carry: report it (shortened) instead of checking. */
        it->kind = AFMT_CLI_ITEM_ERRNO;
        it->err_no = ENAMETOOLONG;
        n = sizeof it->path - 1;
    }
    memcpy(it->path, path, n);
    it->path[n] = '\0';
}

static void dispatch(runner *r, afmt_cli_item_kind kind, int err_no, const char *note,
                     const char *path)
{
    if (r->jobs <= 1) {
        afmt_cli_worker *w = &r->workers[0];
        fill_item(&r->one, kind, err_no, note, path, r->walking);
        afmt_cli_out_begin(&w->out, r->next_seq++);
        afmt_cli_process_item(w, &r->one);
        afmt_cli_out_end(&w->out);
        return;
    }
    fill_item(afmt_cli_pool_slot(&r->pool), kind, err_no, note, path, r->walking);
    afmt_cli_pool_commit(&r->pool);
}

/* ---------------------------------------------------------------- walk */

static int skip_dots(const struct dirent *d)
{
    return !(d->d_name[0] == '.' &&
             (d->d_name[1] == '\0' || (d->d_name[1] == '.' && d->d_name[2] == '\0')));
}

/* Byte order, whatever the locale: the same listing everywhere. */
static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static void walk_dir(runner *r, const struct stat *st, const walk_node *up)
{
    walk_node node;
    const walk_node *p;
    struct dirent **list = NULL;
    size_t base = r->path_len;
    int n, i;

    for (p = up; p; p = p->up) {
        if (p->dev == st->st_dev && p->ino == st->st_ino) {
            dispatch(r, AFMT_CLI_ITEM_NOTE, 0, "symlink loop (directory already being walked)",
                     r->path);
            return;
        }
    }
    node.dev = st->st_dev;
    node.ino = st->st_ino;
    node.up = up;

    n = scandir(r->path, &list, skip_dots, by_name);
    if (n < 0) {
        dispatch(r, AFMT_CLI_ITEM_ERRNO, errno, NULL, r->path);
        return;
    }
    for (i = 0; i < n; i++) {
        const char *name = list[i]->d_name;
        size_t len = strlen(name);
        int need_sep = base > 0 && r->path[base - 1] != '/';
        struct stat cst;
        unsigned char dt = DT_UNKNOWN;

#ifdef _DIRENT_HAVE_D_TYPE
        dt = list[i]->d_type;
#endif
        if (base + (size_t)need_sep + len >= sizeof r->path) {
            dispatch(r, AFMT_CLI_ITEM_ERRNO, ENAMETOOLONG, NULL, r->path);
            free(list[i]);
            continue;
        }
        if (need_sep)
            r->path[base] = '/';
        memcpy(r->path + base + need_sep, name, len + 1);
        r->path_len = base + (size_t)need_sep + len;

        if (dt == DT_REG) {
            /* The common case needs no stat here: the worker's fstat
             * decides. */
            dispatch(r, AFMT_CLI_ITEM_PATH, 0, NULL, r->path);
        } else if (stat(r->path, &cst) != 0) {
            int e = errno;
            struct stat lst;
            if (lstat(r->path, &lst) == 0 && S_ISLNK(lst.st_mode))
                dispatch(r, AFMT_CLI_ITEM_NOTE, 0,
                         e == ELOOP ? "symlink loop" : "broken symlink", r->path);
            else
                dispatch(r, AFMT_CLI_ITEM_ERRNO, e, NULL, r->path);
        } else if (S_ISDIR(cst.st_mode)) {
            walk_dir(r, &cst, &node);
        } else if (S_ISREG(cst.st_mode)) {
            dispatch(r, AFMT_CLI_ITEM_PATH, 0, NULL, r->path);
        }
        /* FIFOs, sockets and devices met in a walk are skipped: reading
         * them could block forever.  Name them to read them. */
        free(list[i]);
        r->path[base] = '\0';
        r->path_len = base;
    }
    free(list);
}

static void walk_arg(runner *r, const char *arg)
{
    struct stat st;
    size_t n;

    /* Without -r a named path is only opened, by a worker, which reports a
     * missing file or a directory itself: no stat here, so the walk (one
     * thread) does not hold up the workers on many small files. */
    if (strcmp(arg, "-") == 0 || !r->cfg->recursive || afmt_cli_is_url(arg)) {
        dispatch(r, AFMT_CLI_ITEM_PATH, 0, NULL, arg);
        return;
    }
    if (stat(arg, &st) != 0) {
        dispatch(r, AFMT_CLI_ITEM_ERRNO, errno, NULL, arg);
        return;
    }
    if (!S_ISDIR(st.st_mode)) {
        dispatch(r, AFMT_CLI_ITEM_PATH, 0, NULL, arg);
        return;
    }
    n = strlen(arg);
    if (n >= sizeof r->path) {
        dispatch(r, AFMT_CLI_ITEM_ERRNO, ENAMETOOLONG, NULL, arg);
        return;
    }
    memcpy(r->path, arg, n + 1);
    r->path_len = n;
    r->walking = 1;
    walk_dir(r, &st, NULL);
    r->walking = 0;
}

/* One path of the --files-from list: checked as if it were an operand. */
static void walk_listed(void *ctx, const char *path, int too_long)
{
    runner *r = ctx;
    if (too_long)
        dispatch(r, AFMT_CLI_ITEM_ERRNO, ENAMETOOLONG, NULL, path);
    else
        walk_arg(r, path);
}

static void walk_list(runner *r, const char *prog)
{
    if (afmt_cli_files_from(r->files_from, r->list_delim, r->list_path,
                            sizeof r->list_path, walk_listed, r) == 0)
        return;
    afmt_cli_progress_hold(r->cfg->progress);
    fprintf(stderr, "%s: --files-from %s: %s\n", prog,
            strcmp(r->files_from, "-") == 0 ? "(standard input)" : r->files_from,
            strerror(errno));
    afmt_cli_progress_release(r->cfg->progress);
    r->list_failed = 1;
}

/* ---------------------------------------------------------------- usage */

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
"A directory is walked with -r.  A tar shard (.tar, .tar.gz, .tgz,\n"
".tar.bz2, .tbz2, .tar.xz, .txz, .tar.zst, .tar.lz4, or a tar stream on\n"
"standard input) is opened, and each regular member whose name has a\n"
"known extension is\n"
"checked and shown as ARCHIVE:MEMBER; a shard without such a member is\n"
"invalid.  Shards need libarchive, loaded only when one is met.\n"
"A NumPy .npz archive (np.savez, np.savez_compressed) is checked as a zip\n"
"(end records, central directory against local headers, no overlapping\n"
"members, CRC-32, declared sizes; a deflated member claiming more than\n"
"1032 bytes per compressed byte is refused unread), then each member with\n"
"a known extension as ARCHIVE:MEMBER, in bounded memory and without\n"
"extracting anything.  Deflated members need zlib (libz.so.1), loaded\n"
"when one is met.\n"
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
"                     limit for files and pipes, 1G for archive members\n"
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
"Remote files: a FILE that is an http:// or https:// URL is checked by\n"
"HTTP range requests, fetching only the bytes the checks read (for a\n"
"safetensors or .npy file, its header) and the size the server gives; an\n"
"array of bools has its values checked too, the body then read by\n"
"ranges through the stream window.  Redirects are followed (at most 5),\n"
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

/* ---------------------------------------------------------------- main */

enum {
    OPT_HELP = 1, OPT_VERSION, OPT_VERBOSE, OPT_QUIET, OPT_RECURSIVE,
    OPT_JOBS, OPT_JSON, OPT_STRICT, OPT_LENIENT, OPT_FORMAT, OPT_MAX_BYTES,
    OPT_MAX_RANK, OPT_FILES_FROM, OPT_NULL, OPT_SARIF, OPT_SPEC
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

/* Without -j: one job per CPU the process may run on (at most 8: beyond
 * that, opening files is the limit), since batches make -j N cost next
 * to nothing when it cannot help. */
static unsigned default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        return 1;
    return n > 8 ? 8 : (unsigned)n;
}

static int run(runner *r, const char *prog, int argc, char **argv, const int *operands,
               int nops)
{
    const afmt_cli_config *cfg = r->cfg;
    unsigned i, nworkers;
    uint64_t invalid = 0, errors = 0;
    int k, write_failed = 0;

    (void)argc;
    r->jobs = cfg->jobs ? cfg->jobs : default_jobs();
    if ((unsigned)nops < r->jobs && !cfg->recursive && !r->files_from)
        r->jobs = nops > 0 ? (unsigned)nops : 1;
    /* A pipe or a shard on standard input is one input, read once. */
    if (nops == 1 && strcmp(argv[operands[0]], "-") == 0 && !r->files_from)
        r->jobs = 1;
    nworkers = r->jobs;
    r->workers = calloc(nworkers, sizeof *r->workers);
    if (!r->workers) {
        afmt_cli_progress_stop(cfg->progress);
        fprintf(stderr, "%s: out of memory\n", prog);
        return AFMT_EXIT_ERROR;
    }
    memset(&r->seq, 0, sizeof r->seq);
    pthread_mutex_init(&r->seq.mu, NULL);
    pthread_cond_init(&r->seq.cv, NULL);
    r->seq.next = 0;
    r->seq.list_started = cfg->list_started;
    if (cfg->sarif)
        afmt_cli_sarif_begin(stdout);
    for (i = 0; i < r->jobs; i++)
        afmt_cli_worker_init(&r->workers[i], cfg, r->jobs > 1 ? &r->seq : NULL);

    if (r->jobs > 1 && afmt_cli_pool_start(&r->pool, r->workers, r->jobs) == 0) {
        /* Cannot start threads: check on this one instead. */
        r->jobs = 1;
        r->workers[0].out.seq = NULL;
        r->workers[0].out.has_turn = 1;
    }

    for (k = 0; k < nops; k++)
        walk_arg(r, argv[operands[k]]);
    if (r->files_from)
        walk_list(r, prog);

    if (r->jobs > 1)
        afmt_cli_pool_finish(&r->pool);
    afmt_cli_progress_stop(cfg->progress);
    if (cfg->sarif)
        afmt_cli_sarif_end(stdout);
    for (i = 0; i < nworkers; i++) {
        invalid += r->workers[i].invalid;
        errors += r->workers[i].errors;
        write_failed |= r->workers[i].out.write_failed;
        afmt_cli_worker_free(&r->workers[i]);
    }
    write_failed |= r->seq.write_failed; /* parked outputs written by others */
    free(r->workers);
    pthread_mutex_destroy(&r->seq.mu);
    pthread_cond_destroy(&r->seq.cv);
    if (fflush(stdout) != 0 || ferror(stdout))
        write_failed = 1;
    if (write_failed) {
        fprintf(stderr, "%s: error writing standard output\n", prog);
        return AFMT_EXIT_ERROR;
    }
    if (errors || r->list_failed)
        return AFMT_EXIT_ERROR;
    return invalid ? AFMT_EXIT_INVALID : AFMT_EXIT_OK;
}

int afmt_cli_validate_main(int argc, char **argv, int first, const char *prog)
{
    afmt_cli_config cfg;
    afmt_cli_progress progress;
    afmt_cli_args args;
    runner *r;
    const char *val;
    int *operands, nops = 0, id, rc, k, list_delim = '\n';
    const char *files_from = NULL;
    uint64_t v;

    afmt_cli_config_default(&cfg);
    operands = calloc((size_t)(argc > 0 ? argc : 1), sizeof *operands);
    if (!operands) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return AFMT_EXIT_ERROR;
    }
    afmt_cli_args_init(&args, argc, argv, first, validate_opts, prog);
    while ((id = afmt_cli_args_next(&args, &val)) != AFMT_CLI_ARGS_END) {
        switch (id) {
        case AFMT_CLI_ARGS_ERROR:
            free(operands);
            return AFMT_EXIT_ERROR;
        case AFMT_CLI_ARGS_OPERAND:
            operands[nops++] = args.i - 1;
            break;
        case OPT_HELP:
            usage(stdout, prog);
            free(operands);
            return AFMT_EXIT_OK;
        case OPT_VERSION:
            printf("%s (afmt) %s\n", prog, AFMT_CLI_VERSION);
            free(operands);
            return AFMT_EXIT_OK;
        case OPT_VERBOSE:
            cfg.verbose = 1;
            break;
        case OPT_QUIET:
            cfg.quiet = 1;
            break;
        case OPT_RECURSIVE:
            cfg.recursive = 1;
            break;
        case OPT_JSON:
            cfg.json = 1;
            break;
        case OPT_SARIF:
            cfg.sarif = 1;
            break;
        case OPT_FILES_FROM:
            files_from = val;
            break;
        case OPT_NULL:
            list_delim = '\0';
            break;
        case OPT_STRICT:
            cfg.opt.mode = AFMT_STRICT;
            break;
        case OPT_LENIENT:
            cfg.opt.mode = AFMT_LENIENT;
            break;
        case OPT_JOBS:
            if (afmt_cli_parse_uint(val, 0, 100000, &v) != 0) {
                fprintf(stderr, "%s: -j needs a number of jobs, not '%s'\n", prog, val);
                free(operands);
                return usage_error(prog);
            }
            if (v == 0) {
                long n = sysconf(_SC_NPROCESSORS_ONLN);
                v = n > 0 ? (uint64_t)n : 1;
            }
            cfg.jobs = v > MAX_JOBS ? MAX_JOBS : (unsigned)v;
            break;
        case OPT_FORMAT:
            if (cfg.forced) {
                free(operands);
                return afmt_cli_usage_error(prog, "give one of --format and --spec, once");
            }
            cfg.forced = afmt_cli_format_arg(prog, val);
            if (!cfg.forced) {
                free(operands);
                return usage_error(prog);
            }
            break;
        case OPT_SPEC:
            if (cfg.forced) {
                free(operands);
                return afmt_cli_usage_error(prog, "give one of --format and --spec, once");
            }
            cfg.interp = afmt_cli_spec_arg(prog, val);
            if (!cfg.interp) {
                free(operands);
                return usage_error(prog);
            }
            cfg.forced = afmt_interp_format(cfg.interp);
            break;
        case OPT_MAX_BYTES:
            if (afmt_cli_parse_size(val, &v) != 0) {
                fprintf(stderr, "%s: --max-bytes needs a size such as 1048576 or "
                                "64M, not '%s'\n", prog, val);
                free(operands);
                return usage_error(prog);
            }
            cfg.file_limit = v;
            cfg.stream_limit = v;
            cfg.opt.limits.max_total_bytes = v;
            break;
        case OPT_MAX_RANK:
            if (afmt_cli_parse_uint(val, 0, AFMT_RANK_CAP, &v) != 0) {
                fprintf(stderr, "%s: --max-rank needs a number from 0 to %d, not '%s'\n",
                        prog, AFMT_RANK_CAP, val);
                free(operands);
                return usage_error(prog);
            }
            cfg.opt.limits.max_rank = v;
            break;
        default:
            if (afmt_cli_limit_option(prog, id, val, &cfg.opt.limits) < 0) {
                free(operands);
                return usage_error(prog);
            }
            break;
        }
    }
    for (k = 0; files_from && strcmp(files_from, "-") == 0 && k < nops; k++) {
        if (strcmp(argv[operands[k]], "-") == 0) {
            free(operands);
            return afmt_cli_usage_error(prog, "standard input cannot be both the "
                                        "--files-from list and an input");
        }
    }
    if (cfg.sarif && cfg.json) {
        free(operands);
        return afmt_cli_usage_error(prog, "--json and --sarif: give one of them");
    }
    if (list_delim == '\0' && !files_from) {
        free(operands);
        return afmt_cli_usage_error(prog, "-0 goes with --files-from");
    }
    if (nops == 0 && !files_from) {
        fprintf(stderr, "%s: no input (give FILE..., or - for standard input)\n", prog);
        free(operands);
        return usage_error(prog);
    }
    r = calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "%s: out of memory\n", prog);
        free(operands);
        return AFMT_EXIT_ERROR;
    }
    /* Started before the workers (they erase it before their stderr
     * lines); run() stops it once the last verdict is in. */
    cfg.progress = afmt_cli_progress_start(&progress, prog);
    r->cfg = &cfg;
    r->files_from = files_from;
    if (cfg.sarif)
        cfg.list_started = &r->sarif_started;
    r->list_delim = list_delim;
    rc = run(r, prog, argc, argv, operands, nops);
    free(r);
    free(operands);
    return rc;
}
