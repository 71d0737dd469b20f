/* afmt CLI: opening one path and sending it the right way: a compressed
 * tar shard to shard.c, a regular file (read or mapped, under the SIGBUS
 * guard) or a stream to check.c (see report.h); an archive (.npz, .tar)
 * is a file like any other, its members reported one by one
 * (members.h). */
#include "report.h"

#include <string.h>
#include <sys/stat.h>

#include "fail.h"
#include "model_set.h"
#include "remote.h"
#include "sigbus.h"

typedef struct mapped_check {
    afmt_cli_worker *w;
    const char *path;
    afmt_cli_input *in;
} mapped_check;

static void run_mapped_check(void *ctx)
{
    mapped_check *m = ctx;
    afmt_cli_check_input(m->w, m->path, m->path, m->in);
}

/* A path not read as a file: a compressed tar shard (decompressed into a
 * stream; a folder of that name is said to be one), a URL.  1 when path
 * is one of those (then checked), else 0. */
static int check_container(afmt_cli_worker *w, const char *path, int is_stdin)
{
    struct stat st;
    int compressed = !is_stdin && afmt_cli_is_compressed_tar_path(path);

    if (!compressed && afmt_cli_is_url(path)) {
        afmt_cli_check_remote(w, path);
        return 1;
    }
    if (!compressed)
        return 0;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        afmt_cli_report_message(w, path, "is a directory");
    else
        afmt_cli_check_compressed(w, path, NULL);
    return 1;
}

/* An opened input checked: a mapped file (or a windowed one, which is
 * mapped when the window falls short) under a guard against its being cut
 * short meanwhile, a tar shard on standard input, or any other. */
static void check_opened(afmt_cli_worker *w, const char *path, int is_stdin, afmt_cli_input *in)
{
    if (in->map || in->windowed_file) {
        mapped_check m = { w, path, in };
        w->mapped_path = path;
        w->mapped_size = in->size;
        uintptr_t at = 0;
        if (afmt_cli_sigbus_guard(run_mapped_check, &m, &at) != 0) {
            afmt_error io;
            char msg[AFMT_MESSAGE_MAX];
            afmt_cli_mapped file = { path, in->map, in->size, in->map_dev, in->map_ino };
            uint64_t offset = afmt_cli_sigbus_describe(at, &file, msg, sizeof msg);
            afmt_error_clear(&io);
            afmt_cli_fail(&io, AFMT_E_IO, NULL, offset, "%s; try again", msg);
            afmt_cli_report_error(w, path, &io);
        }
        w->mapped_path = NULL;
    } else if (is_stdin && !w->cfg->forced && !in->over_limit &&
               !afmt_format_detect(in->data, in->len, NULL) &&
               afmt_cli_looks_compressed(in->data, in->len)) {
        /* cat shard.tar.gz | afmt-validate - */
        afmt_cli_check_compressed(w, path, in);
    } else {
        afmt_cli_check_input(w, path, is_stdin ? NULL : path, in);
    }
}

void afmt_cli_check_path(afmt_cli_worker *w, const char *path, int walked)
{
    afmt_cli_input in;
    afmt_error err;
    int is_stdin = strcmp(path, "-") == 0;

    if (check_container(w, path, is_stdin) || afmt_cli_check_model_file(w, path, walked))
        return;
    afmt_error_clear(&err);
    /* through the window by offset, not mapped: bounded address space for
     * any file (a model's shard is mapped: its arrays are counted as they
     * are seen, once) */
    if ((w->model ? afmt_cli_input_open_lazy(&in, path, w->cfg->file_limit, &w->data, &err)
                  : afmt_cli_input_open_windowed(&in, path, w->cfg->file_limit, &w->data, &err)) != 0) {
        if (!walked && err.code == AFMT_E_IO && strcmp(err.message, "is a directory") == 0) {
            /* a model's folder is checked as the model */
            if (!afmt_cli_check_model_dir(w, path))
                afmt_cli_report_message(w, path, "is a directory (-r checks the files in it)");
        } else {
            afmt_cli_report_error(w, path, &err);
        }
        return;
    }
    w->skip_unknown = walked;
    w->disk_path = !is_stdin && !in.is_stream ? path : NULL;
    check_opened(w, path, is_stdin, &in);
    w->skip_unknown = 0;
    w->disk_path = NULL;
    afmt_cli_input_close(&in);
    /* Give back a stream buffer that grew very large. */
    afmt_cli_buf_reset(&w->data, (size_t)64 << 20);
}
