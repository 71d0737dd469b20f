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
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "afmt.h"
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
#include "validate_args.h"

/* A directory on the current walk path, to notice symlink loops. */
typedef struct walk_node {
    dev_t dev;
    ino_t ino;
    const struct walk_node *up;
} walk_node;

typedef struct runner {
    const afmt_cli_config *cfg;
    unsigned jobs;
    unsigned nworkers; /* as many as were made (jobs may fall to 1) */
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
    time_t started;    /* for the SARIF log's invocation */
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

static void walk_dir(runner *r, const struct stat *st, const walk_node *up);

/* Why a file met in a walk that is not a regular file or a directory
 * (a symlink's target, for a link) is not read. */
static const char *special_file_note(const struct stat *st)
{
    if (S_ISFIFO(st->st_mode))
        return "a FIFO (reading it could block; name it to read it)";
    if (S_ISSOCK(st->st_mode))
        return "a socket (name it to read it)";
    if (S_ISCHR(st->st_mode))
        return "a character device (reading it could block or never end; name it to read it)";
    if (S_ISBLK(st->st_mode))
        return "a block device (name it to read it)";
    return "not a regular file (name it to read it)";
}

/* The entry r->path (of type dt, DT_UNKNOWN when the directory did not
 * say) found in a walk: checked, walked into, or said to be broken. */
static void walk_entry(runner *r, unsigned char dt, const walk_node *node)
{
    struct stat cst;

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
        walk_dir(r, &cst, node);
    } else if (S_ISREG(cst.st_mode)) {
        dispatch(r, AFMT_CLI_ITEM_PATH, 0, NULL, r->path);
    } else {
        /* FIFOs, sockets and devices met in a walk are skipped: reading
         * them could block forever.  Name them to read them. */
        dispatch(r, AFMT_CLI_ITEM_SKIP, 0, special_file_note(&cst), r->path);
    }
}

/* Is the directory st already on the walk's path (a symlink loop)?  Said
 * when it is. */
static int walking_already(runner *r, const struct stat *st, const walk_node *up)
{
    const walk_node *p;

    for (p = up; p; p = p->up) {
        if (p->dev == st->st_dev && p->ino == st->st_ino) {
            dispatch(r, AFMT_CLI_ITEM_NOTE, 0, "symlink loop (directory already being walked)",
                     r->path);
            return 1;
        }
    }
    return 0;
}

static void walk_dir(runner *r, const struct stat *st, const walk_node *up)
{
    walk_node node;
    struct dirent **list = NULL;
    size_t base = r->path_len;
    int n, i;

    if (walking_already(r, st, up))
        return;
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
        unsigned char dt = DT_UNKNOWN;

#ifdef _DIRENT_HAVE_D_TYPE
        dt = list[i]->d_type;
#endif
        if (base + (size_t)need_sep + len >= sizeof r->path) {
            dispatch(r, AFMT_CLI_ITEM_ERRNO, ENAMETOOLONG, NULL, r->path);
        } else {
            if (need_sep)
                r->path[base] = '/';
            memcpy(r->path + base + need_sep, name, len + 1);
            r->path_len = base + (size_t)need_sep + len;
            walk_entry(r, dt, &node);
            r->path[base] = '\0';
            r->path_len = base;
        }
        free(list[i]);
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

/* ---------------------------------------------------------------- run */

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

/* The workers: r->jobs of them (as -j says, no more than there are
 * operands, one for standard input), on threads when there are several
 * and threads can start.  0, or -1 said. */
static int start_workers(runner *r, const char *prog, char **argv, const int *operands, int nops)
{
    const afmt_cli_config *cfg = r->cfg;
    unsigned i;

    r->jobs = cfg->jobs ? cfg->jobs : default_jobs();
    if ((unsigned)nops < r->jobs && !cfg->recursive && !r->files_from)
        r->jobs = nops > 0 ? (unsigned)nops : 1;
    /* A pipe or a shard on standard input is one input, read once. */
    if (nops == 1 && strcmp(argv[operands[0]], "-") == 0 && !r->files_from)
        r->jobs = 1;
    r->nworkers = r->jobs;
    r->workers = calloc(r->nworkers, sizeof *r->workers);
    if (!r->workers) {
        afmt_cli_progress_stop(cfg->progress);
        fprintf(stderr, "%s: out of memory\n", prog);
        return -1;
    }
    memset(&r->seq, 0, sizeof r->seq);
    pthread_mutex_init(&r->seq.mu, NULL);
    pthread_cond_init(&r->seq.cv, NULL);
    r->seq.next = 0;
    r->seq.list_started = cfg->list_started;
    r->started = time(NULL);
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
    return 0;
}

/* Wait for the workers, end the output and add up the verdicts: the
 * exit status. */
static int finish_workers(runner *r, const char *prog)
{
    const afmt_cli_config *cfg = r->cfg;
    uint64_t invalid = 0, errors = 0;
    int write_failed = 0;
    unsigned i;

    if (r->jobs > 1)
        afmt_cli_pool_finish(&r->pool);
    afmt_cli_progress_stop(cfg->progress);
    for (i = 0; i < r->nworkers; i++) {
        invalid += r->workers[i].invalid;
        errors += r->workers[i].errors;
        write_failed |= r->workers[i].out.write_failed;
        afmt_cli_worker_free(&r->workers[i]);
    }
    if (cfg->sarif) {
        /* the exit status, as far as it is known before the log is out */
        afmt_cli_sarif_invocation inv;
        inv.exit_code = errors || r->list_failed ? AFMT_EXIT_ERROR
                        : invalid                ? AFMT_EXIT_INVALID : AFMT_EXIT_OK;
        inv.start = r->started;
        inv.end = time(NULL);
        afmt_cli_sarif_end(stdout, &inv);
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

static int run(runner *r, const char *prog, char **argv, const int *operands, int nops)
{
    int k;

    if (start_workers(r, prog, argv, operands, nops) != 0)
        return AFMT_EXIT_ERROR;
    for (k = 0; k < nops; k++)
        walk_arg(r, argv[operands[k]]);
    if (r->files_from)
        walk_list(r, prog);
    return finish_workers(r, prog);
}

int afmt_cli_validate_main(int argc, char **argv, int first, const char *prog)
{
    afmt_cli_validate_args a;
    afmt_cli_progress progress;
    runner *r;
    int rc = afmt_cli_validate_parse(&a, argc, argv, first, prog);

    if (rc >= 0) {
        afmt_cli_validate_args_free(&a);
        return rc;
    }
    r = calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "%s: out of memory\n", prog);
        afmt_cli_validate_args_free(&a);
        return AFMT_EXIT_ERROR;
    }
    /* Started before the workers (they erase it before their stderr
     * lines); run() stops it once the last verdict is in. */
    a.cfg.progress = afmt_cli_progress_start(&progress, prog);
    r->cfg = &a.cfg;
    r->files_from = a.files_from;
    if (a.cfg.sarif)
        a.cfg.list_started = &r->sarif_started;
    r->list_delim = a.list_delim;
    rc = run(r, prog, argv, a.operands, a.nops);
    free(r);
    afmt_cli_validate_args_free(&a);
    return rc;
}
