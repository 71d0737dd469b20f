/* afmt CLI: a model stored as several files (see model_set.h).
 *
 * Why here and not in the runtime: finding the files (a folder's listing,
 * names beside an index) and reporting each fault as a verdict line are
 * the tools' business; the rules of the set are the runtime's
 * (afmt_model), so a program checks a model the same way. */
#include "model_set.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect.h"
#include "fail.h"
#include "input.h"
#include "render.h"
#include "cli.h"
#include "config.h"

#define MODEL_PATH_MAX 4200

static const char *const no_extensions[] = { NULL };

/* What a set's own lines name as their format: the set, not a shard's
 * format.  Only its name is read (render.c, sarif.c). */
static const afmt_format model_format = { .name = "model", .spec = "", .extensions = no_extensions };

static const char index_suffix[] = ".index.json";

/* One check of a set. */
typedef struct set_run {
    afmt_cli_worker *w;
    afmt_model *model;
    afmt_cli_model_hook *hook;
    const char *dir;     /* the folder of the set's files ("" : the current one) */
    const char *walked;  /* met in a walk: the path the walk gave (its own
                          * verdict is shown, the other shards' not), else NULL */
    uint64_t faults;     /* fault lines given */
    size_t bad_shards;   /* missing or invalid */
    char path[MODEL_PATH_MAX];
} set_run;

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* dir + "/" + name into out (name alone when dir is empty); 0, or -1 when
 * it does not fit. */
static int join(char *out, size_t cap, const char *dir, const char *name)
{
    size_t n = strlen(dir);
    int k = n == 0 ? snprintf(out, cap, "%s", name)
                   : snprintf(out, cap, "%s%s%s", dir, dir[n - 1] == '/' ? "" : "/", name);
    return k < 0 || (size_t)k >= cap ? -1 : 0;
}

/* The folder part of path ("" for a bare name) into out. */
static void dir_of(const char *path, char *out, size_t cap)
{
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) + 1 : 0;

    if (n >= cap)
        n = cap - 1;
    memcpy(out, path, n);
    out[n] = '\0';
}

static void fault(set_run *r, const char *display, const afmt_error *err)
{
    afmt_cli_report_invalid(r->w, display, &model_format, err);
    r->faults++;
}

/* ---------------------------------------------------------------- hooks */

void afmt_cli_model_array(afmt_cli_model_hook *hook, const afmt_array *a)
{
    afmt_error err;

    afmt_error_clear(&err);
    if (afmt_model_add_array(hook->model, hook->shard, a, &err) == 0)
        return;
    if (hook->nfaults < AFMT_CLI_MODEL_FAULTS)
        hook->faults[hook->nfaults++] = err;
    else
        hook->dropped++;
}

int afmt_cli_model_kv(void *ctx, const afmt_kv *kv, uint64_t offset)
{
    afmt_cli_worker *w = ctx;
    afmt_cli_model_hook *hook = w->model;
    afmt_error err;

    afmt_error_clear(&err);
    if (!hook || afmt_model_add_kv(hook->model, hook->shard, kv, offset, &err) == 0)
        return 0;
    if (hook->nfaults < AFMT_CLI_MODEL_FAULTS)
        hook->faults[hook->nfaults++] = err;
    else
        hook->dropped++;
    return 0;
}

/* ---------------------------------------------------------------- shards */

/* The faults the shard's tensors and key-values had, on its lines. */
static void shard_faults(set_run *r, const char *display)
{
    afmt_cli_model_hook *hook = r->hook;
    afmt_error err;
    size_t k;

    for (k = 0; k < hook->nfaults; k++)
        fault(r, display, &hook->faults[k]);
    if (hook->dropped) {
        afmt_error_clear(&err);
        afmt_cli_fail(&err, AFMT_E_CONSTRAINT, NULL, AFMT_NO_OFFSET,
                      "%" PRIu64 " more faults of the set in this shard, not listed", hook->dropped);
        afmt_cli_error_set_format(&err, "model");
        fault(r, display, &err);
    }
}

/* Shard s at r->path: validated by the worker's own check (its verdict
 * line, unless a walk gives it one), its tensors handed to the model.
 * 0, or -1 when there is no such file (errno said in *err). */
static int check_shard(set_run *r, size_t s, afmt_error *err)
{
    afmt_cli_worker *w = r->w;
    struct stat st;
    afmt_error done;

    int e = 0;

    if (stat(r->path, &st) != 0)
        e = errno;
    else if (!S_ISREG(st.st_mode))
        e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
    if (e) {
        afmt_cli_errno_error(err, e);
        r->bad_shards++;
        (void)afmt_model_shard_done(r->model, s, 0, &done);
        return -1;
    }
    memset(r->hook, 0, sizeof *r->hook);
    r->hook->model = r->model;
    r->hook->shard = s;
    w->model = r->hook;
    w->hold = r->walked && strcmp(r->walked, r->path) != 0;
    w->verdict = -1;
    afmt_cli_check_path(w, r->path, 0);
    w->model = NULL;
    w->hold = 0;
    if (w->verdict != 1)
        r->bad_shards++;
    afmt_error_clear(&done);
    if (afmt_model_shard_done(r->model, s, w->verdict == 1, &done) != 0 &&
        r->hook->nfaults < AFMT_CLI_MODEL_FAULTS)
        r->hook->faults[r->hook->nfaults++] = done;
    shard_faults(r, r->path);
    return 0;
}

/* The last line of a set: "ok model (SUMMARY)", or what is wrong with it
 * as a whole. */
static void conclude(set_run *r, const char *display, const char *kind)
{
    afmt_cli_worker *w = r->w;
    size_t n = afmt_model_shards(r->model);
    afmt_error err;
    char summary[160];

    afmt_error_clear(&err);
    if (r->faults == 0 && r->bad_shards == 0) {
        snprintf(summary, sizeof summary, "%s: %zu shard%s, %" PRIu64 " tensors, %" PRIu64 " bytes", kind, n,
                 n == 1 ? "" : "s", afmt_model_tensors(r->model), afmt_model_found_bytes(r->model));
        afmt_cli_collect_begin(w);
        w->summary = summary;
        afmt_cli_emit(w, display, &model_format, 1, &err);
        w->summary = NULL;
        return;
    }
    afmt_cli_fail(&err, AFMT_E_CONSTRAINT, NULL, AFMT_NO_OFFSET,
                  "not one whole model (%s): %" PRIu64 " fault%s of the set, %zu of %zu shards missing or invalid",
                  kind, r->faults, r->faults == 1 ? "" : "s", r->bad_shards, n);
    afmt_cli_error_set_format(&err, "model");
    afmt_cli_report_invalid(w, display, &model_format, &err);
}

static int set_begin(set_run *r, afmt_cli_worker *w, const char *dir, const char *walked)
{
    memset(r, 0, sizeof *r);
    r->w = w;
    r->dir = dir;
    r->walked = walked;
    r->hook = malloc(sizeof *r->hook);
    return r->hook ? 0 : -1;
}

static void set_end(set_run *r)
{
    afmt_model_free(r->model);
    free(r->hook);
}

/* ---------------------------------------------------------------- index */

/* The index's bytes (at most the header limit), malloc'd into *out. */
static int read_index(afmt_cli_worker *w, const char *path, uint8_t **out, uint64_t *len, afmt_error *err)
{
    uint64_t limit = w->cfg->opt.limits.max_header_bytes;
    struct stat st;
    size_t got = 0;
    int fd = open(path, O_RDONLY);

    *out = NULL;
    if (fd < 0 || fstat(fd, &st) != 0) {
        afmt_cli_errno_error(err, errno);
        if (fd >= 0)
            close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > limit) {
        close(fd);
        return afmt_cli_fail(err, S_ISREG(st.st_mode) ? AFMT_E_LIMIT : AFMT_E_IO, NULL, AFMT_NO_OFFSET,
                             S_ISREG(st.st_mode) ? "an index of %" PRIu64 " bytes exceeds the header limit"
                                                 : "not a regular file (%" PRIu64 ")",
                             (uint64_t)st.st_size);
    }
    *out = malloc((size_t)st.st_size + 1);
    if (!*out || afmt_cli_read_full(fd, *out, (size_t)st.st_size, -1, &got) != 0) {
        int e = *out ? errno : ENOMEM;
        free(*out);
        *out = NULL;
        close(fd);
        afmt_cli_errno_error(err, e);
        return -1;
    }
    close(fd);
    *len = got;
    return 0;
}

/* Each shard the index names, then the faults of the whole. */
static void check_index_shards(set_run *r, const char *index_path)
{
    size_t s, n = afmt_model_shards(r->model), where;
    afmt_error err;
    char at[MODEL_PATH_MAX];

    for (s = 0; s < n; s++) {
        const char *name = afmt_model_shard_name(r->model, s);
        afmt_error_clear(&err);
        if (join(r->path, sizeof r->path, r->dir, name) != 0 || check_shard(r, s, &err) != 0) {
            char why[AFMT_MESSAGE_MAX];
            snprintf(why, sizeof why, "%s", err.message[0] ? err.message : "its path is too long");
            afmt_error_clear(&err);
            afmt_cli_fail(&err, AFMT_E_IO, "weight_map", afmt_model_shard_offset(r->model, s),
                          "names shard %.150s, which cannot be read: %.100s", name, why);
            afmt_cli_error_set_format(&err, "model");
            fault(r, index_path, &err);
        }
    }
    while (afmt_model_next_fault(r->model, &where, &err)) {
        const char *display = index_path;
        if (where != AFMT_MODEL_INDEX_FILE &&
            join(at, sizeof at, r->dir, afmt_model_shard_name(r->model, where)) == 0)
            display = at;
        fault(r, display, &err);
    }
}

static void check_index(afmt_cli_worker *w, const char *path, const char *walked)
{
    set_run r;
    char dir[MODEL_PATH_MAX];
    uint8_t *text;
    uint64_t len = 0;
    afmt_error err;

    afmt_error_clear(&err);
    dir_of(path, dir, sizeof dir);
    if (read_index(w, path, &text, &len, &err) != 0) {
        afmt_cli_report_error(w, path, &err);
        return;
    }
    if (set_begin(&r, w, dir, walked) != 0 ||
        afmt_model_index_open(&r.model, text, len, &w->cfg->opt, &err) != 0) {
        if (!r.hook)
            afmt_cli_fail(&err, AFMT_E_NOMEM, NULL, AFMT_NO_OFFSET, "out of memory");
        afmt_cli_report_invalid(w, path, &model_format, &err);
        free(text);
        set_end(&r);
        return;
    }
    free(text); /* the model keeps no pointer into it */
    check_index_shards(&r, path);
    conclude(&r, path, "safetensors index");
    set_end(&r);
}

/* ---------------------------------------------------------------- split */

/* A split's files are named alike: PREFIX, the widths of the numbers. */
typedef struct split_names {
    char prefix[512];
    int number_width, count_width;
    uint64_t count;
} split_names;

/* The split name's parts (of a base name): 1, or 0 when it is none. */
static int split_of(const char *name, split_names *sn)
{
    size_t prefix;
    uint64_t number;
    const char *of;

    if (!afmt_model_split_name(name, &prefix, &number, &sn->count) || prefix >= sizeof sn->prefix)
        return 0;
    memcpy(sn->prefix, name, prefix);
    sn->prefix[prefix] = '\0';
    of = strstr(name + prefix + 1, "-of-");
    sn->number_width = (int)(of - (name + prefix + 1));
    sn->count_width = (int)strlen(of + 4) - 5; /* less ".gguf" */
    return 1;
}

static void check_split(afmt_cli_worker *w, const char *dir, const split_names *sn, const char *walked)
{
    set_run r;
    afmt_error err;
    char name[600], first[MODEL_PATH_MAX], at[MODEL_PATH_MAX];
    size_t s, where;

    afmt_error_clear(&err);
    if (set_begin(&r, w, dir, walked) != 0 || afmt_model_split_open(&r.model, sn->count, &err) != 0) {
        set_end(&r);
        afmt_cli_fail(&err, AFMT_E_NOMEM, NULL, AFMT_NO_OFFSET, "out of memory");
        afmt_cli_report_error(w, dir, &err);
        return;
    }
    for (s = 0; s < sn->count; s++) {
        snprintf(name, sizeof name, "%s-%0*" PRIu64 "-of-%0*" PRIu64 ".gguf", sn->prefix, sn->number_width,
                 (uint64_t)s + 1, sn->count_width, sn->count);
        if (join(r.path, sizeof r.path, dir, name) != 0)
            continue;
        if (s == 0)
            snprintf(first, sizeof first, "%s", r.path);
        afmt_error_clear(&err);
        if (check_shard(&r, s, &err) != 0) {
            char why[AFMT_MESSAGE_MAX];
            snprintf(why, sizeof why, "%s", err.message);
            afmt_error_clear(&err);
            afmt_cli_fail(&err, AFMT_E_IO, NULL, AFMT_NO_OFFSET,
                          "file %" PRIu64 " of a split of %" PRIu64 " cannot be read: %.200s", (uint64_t)s + 1,
                          sn->count, why);
            afmt_cli_error_set_format(&err, "model");
            fault(&r, r.path, &err);
        }
    }
    while (afmt_model_next_fault(r.model, &where, &err)) {
        snprintf(name, sizeof name, "%s-%0*" PRIu64 "-of-%0*" PRIu64 ".gguf", sn->prefix, sn->number_width,
                 (uint64_t)where + 1, sn->count_width, sn->count);
        fault(&r, join(at, sizeof at, dir, name) == 0 ? at : first, &err);
    }
    conclude(&r, first, "gguf split");
    set_end(&r);
}

/* ---------------------------------------------------------------- entry */

int afmt_cli_check_model_file(afmt_cli_worker *w, const char *path, int walked)
{
    split_names sn;
    char dir[MODEL_PATH_MAX];
    const char *base = base_name(path);
    size_t prefix;
    uint64_t number, count;

    if (w->model || strcmp(path, "-") == 0)
        return 0; /* a shard of the set being checked is a file like any */
    if (ends_with(base, index_suffix) && strlen(base) > sizeof index_suffix - 1) {
        check_index(w, path, walked ? path : NULL);
        return 1;
    }
    /* The first file of a split met in a walk stands for the set (the
     * walk meets the others too, and shows their own verdicts). */
    if (walked && split_of(base, &sn) && afmt_model_split_name(base, &prefix, &number, &count) &&
        number == 1 && count > 1) {
        dir_of(path, dir, sizeof dir);
        check_split(w, dir, &sn, path);
        return 1;
    }
    return 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* The splits of a folder already checked: each once, whichever of its
 * files comes first (file 1 may be the one missing). */
typedef struct split_list {
    split_names *v;
    size_t n, cap;
} split_list;

/* 1 when sn was not in the list (now added, or the list could not grow:
 * then it is checked again rather than not at all). */
static int split_first_time(split_list *l, const split_names *sn)
{
    size_t k;

    for (k = 0; k < l->n; k++)
        if (l->v[k].count == sn->count && strcmp(l->v[k].prefix, sn->prefix) == 0)
            return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 4;
        split_names *grown = realloc(l->v, cap * sizeof *grown);
        if (!grown)
            return 1;
        l->v = grown;
        l->cap = cap;
    }
    l->v[l->n++] = *sn;
    return 1;
}

int afmt_cli_check_model_dir(afmt_cli_worker *w, const char *path)
{
    struct dirent **list = NULL;
    char at[MODEL_PATH_MAX];
    split_names sn;
    split_list seen = { NULL, 0, 0 };
    int n, i, found = 0;

    if (w->model)
        return 0;
    n = scandir(path, &list, NULL, by_name);
    if (n < 0)
        return 0;
    for (i = 0; i < n; i++) {
        const char *name = list[i]->d_name;
        if (ends_with(name, index_suffix) && strlen(name) > sizeof index_suffix - 1 &&
            join(at, sizeof at, path, name) == 0) {
            check_index(w, at, NULL);
            found = 1;
        } else if (split_of(name, &sn) && split_first_time(&seen, &sn)) {
            check_split(w, path, &sn, NULL);
            found = 1;
        }
    }
    for (i = 0; i < n; i++)
        free(list[i]);
    free(list);
    free(seen.v);
    return found;
}

/* ---------------------------------------------------------------- info */

int afmt_cli_info_model(const char *path, const afmt_options *opt, int json, int *status)
{
    afmt_cli_config cfg;
    afmt_cli_worker *w;
    struct stat st;
    int found;

    if (strcmp(path, "-") == 0 || stat(path, &st) != 0)
        return 0;
    if (!S_ISDIR(st.st_mode) && !(S_ISREG(st.st_mode) && ends_with(base_name(path), index_suffix)))
        return 0;
    afmt_cli_config_default(&cfg);
    cfg.opt = *opt;
    cfg.verbose = 1; /* each shard's tensors, as afmt-validate -v lists them */
    cfg.json = json;
    cfg.jobs = 1;
    if (!(w = malloc(sizeof *w))) {
        fprintf(stderr, "afmt info: out of memory\n");
        *status = AFMT_EXIT_ERROR;
        return 1;
    }
    afmt_cli_worker_init(w, &cfg, NULL);
    afmt_cli_out_begin(&w->out, 0);
    found = S_ISDIR(st.st_mode) ? afmt_cli_check_model_dir(w, path) : afmt_cli_check_model_file(w, path, 0);
    afmt_cli_out_end(&w->out);
    *status = w->errors ? AFMT_EXIT_ERROR : w->invalid ? AFMT_EXIT_INVALID : AFMT_EXIT_OK;
    afmt_cli_worker_free(w);
    free(w);
    return found;
}
