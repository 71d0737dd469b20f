/* afmt CLI: afmt convert's output (convert.h): OUT written through a
 * file sink, under a temporary name renamed into place only when all of
 * it was written (standard output, a device or a FIFO: written through),
 * then the target's sidecar the same way. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "cli.h"
#include "convert.h"
#include "fail.h"
#include "quote.h"

/* The target's sidecar (DAPHNE's OUT.meta), written the same all-or-
 * nothing way as the data. */
static int write_sidecar(const afmt_format *target, const afmt_array *views, size_t n, const char *out)
{
    char path[4200], *json;
    size_t len = 0;
    afmt_sink sink;
    afmt_error err;
    int rc = -1, slot = -1;
    json = malloc(AFMT_SIDECAR_MAX_BYTES);
    if (!json) {
        fprintf(stderr, "afmt convert: out of memory\n");
        return -1;
    }
    snprintf(path, sizeof path, "%s%s", out, afmt_sidecar_suffix(target));
    afmt_error_clear(&err);
    if (afmt_sidecar_json(target, views, n, json, AFMT_SIDECAR_MAX_BYTES, &len, &err) != 0) {
        fprintf(stderr, "afmt convert: %s: cannot write the sidecar: %s\n", path, err.message);
    } else if (afmt_cli_cleanup_sink_open(&sink, path, &slot, &err) != 0) {
        fprintf(stderr, "afmt convert: %s: error: %s\n", path, err.message);
    } else if (afmt_sink_put(&sink, json, len, &err) != 0 || afmt_sink_commit(&sink, &err) != 0) {
        afmt_sink_abort(&sink);
        fprintf(stderr, "afmt convert: %s: error: %s\n", path, err.message);
    } else {
        rc = 0;
    }
    afmt_cli_cleanup_forget(slot);
    free(json);
    return rc;
}

/* --text: each array as one Futhark text value on its own line. */
static int write_text(const afmt_array *views, size_t n, afmt_sink *sink, afmt_error *err)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (afmt_futhark_text_write(&views[i], sink, err) != 0 ||
            afmt_sink_put(sink, "\n", 1, err) != 0)
            return -1;
    return 0;
}

/* The input file opened a second time, for copies made by the kernel
 * (afmt_sink_set_source), when it is certainly the mapped one; -1 if not. */
static int open_mapped_input(const afmt_cli_loaded *l)
{
    struct stat st;
    int fd;

    if (!l->in.map || strcmp(l->file, "-") == 0)
        return -1;
    fd = open(l->file, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    /* the mapping holds the inode: no other file has its number now */
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_dev != l->in.map_dev ||
        (uint64_t)st.st_ino != l->in.map_ino || (uint64_t)st.st_size != l->in.map_len) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The sink for OUT (standard output, or a file sink on OUT), with the
 * speed-ups it can take: the streamed array's producer, and the input
 * file for copies by the kernel (*src_fd, to close after writing).  0, or
 * an exit status said. */
static int open_output(afmt_cli_convert_plan *p, afmt_sink *sink, int *src_fd, int *slot)
{
    afmt_error err;

    afmt_error_clear(&err);
    if (p->args->to_stdout) {
        afmt_sink_stdio(sink, stdout);
    } else if (afmt_cli_cleanup_sink_open(sink, p->args->out, slot, &err) != 0) {
        fprintf(stderr, "afmt convert: %s: error: %s\n", p->args->out, err.message);
        return AFMT_EXIT_ERROR;
    }
    if (p->is_streamed)
        afmt_sink_set_producer(sink, &p->st.producer);
    *src_fd = open_mapped_input(&p->input->l);
    if (*src_fd >= 0)
        afmt_sink_set_source(sink, p->input->l.in.map, p->input->l.in.map_len, *src_fd);
    return 0;
}

/* The arrays into the sink: Futhark text, an npz archive, or the
 * target's writer (IN's trailer kept when the format stays, the metadata
 * when the target has some).  0, or -1 with *err. */
static int put_arrays(const afmt_cli_convert_plan *p, afmt_sink *sink, afmt_error *err)
{
    const afmt_cli_convert_args *a = p->args;
    const afmt_cli_convert_input *in = p->input;
    afmt_write_options wopt;

    memset(&wopt, 0, sizeof wopt);
    wopt.compress = p->compress;
    if (a->target == in->l.fmt && in->views.trailer_len) {
        wopt.trailer = in->views.trailer;
        wopt.trailer_len = in->views.trailer_len;
    }
    wopt.metadata = in->metadata;
    wopt.metadata_len = in->metadata_len;
    afmt_error_clear(err);
    if (a->text)
        return write_text(p->views, p->n, sink, err);
    {
        afmt_cli_buf json;
        int rc;
        memset(&json, 0, sizeof json);
        if (afmt_cli_convert_kv_options((afmt_cli_convert_input *)in, a->target, &wopt, &json) != 0) {
            afmt_cli_buf_free(&json);
            return afmt_cli_fail(err, AFMT_E_NOMEM, NULL, AFMT_NO_OFFSET, "the metadata could not be carried");
        }
        rc = a->target->write(p->views, p->n, &wopt, sink, err);
        afmt_cli_buf_free(&json);
        if (rc != 0)
            return -1;
    }
    if (p->is_streamed && p->st.producer.produced != p->st.producer.size)
        /* a writer that read the view's data itself wrote the wrong bytes */
        return afmt_cli_fail(err, AFMT_E_USAGE, NULL, 0,
                             "internal error: %s's writer did not take the payload from the sink",
                             a->target->name);
    return 0;
}

/* Written: standard output flushed, or OUT committed (renamed into
 * place), then its sidecar.  0, or an exit status said. */
static int finish_output(const afmt_cli_convert_plan *p, afmt_sink *sink)
{
    const afmt_cli_convert_args *a = p->args;
    afmt_error err;
    int written_through = !a->to_stdout && sink->through;

    if (a->to_stdout) {
        if (fflush(stdout) == 0 && !ferror(stdout))
            return 0;
        fprintf(stderr, "afmt convert: error writing standard output\n");
        return AFMT_EXIT_ERROR;
    }
    afmt_error_clear(&err);
    if (afmt_sink_commit(sink, &err) != 0) {
        fprintf(stderr, "afmt convert: %s: error: %s\n", a->out, err.message);
        return AFMT_EXIT_ERROR;
    }
    if (written_through && afmt_sidecar_suffix(a->target)) {
        /* OUT.meta beside a device or FIFO would be a stray file in its
         * directory (/dev): say so rather than make it */
        fprintf(stderr, "afmt convert: %s is not a regular file: no %s sidecar written\n", a->out,
                afmt_sidecar_suffix(a->target));
        return 0;
    }
    if (afmt_sidecar_suffix(a->target) && write_sidecar(a->target, p->views, p->n, a->out) != 0)
        return AFMT_EXIT_ERROR;
    return 0;
}

/* The mapped input was cut short while it was written from (a write()
 * from the mapping then fails with EFAULT, "Bad address"; a copy by the
 * kernel comes up short): say so, naming the input and the first byte
 * gone.  1 when said, 0 when the input is as it was. */
static int input_cut_short(const afmt_cli_loaded *l)
{
    char quoted[AFMT_CLI_QUOTED_MAX];
    struct stat st;

    if (!l->in.map || stat(l->file, &st) != 0 || (uint64_t)st.st_dev != l->in.map_dev ||
        (uint64_t)st.st_ino != l->in.map_ino || (uint64_t)st.st_size >= l->in.map_len)
        return 0;
    fprintf(stderr, "afmt convert: %s: error: the file was cut short while it was read: no byte "
                    "at offset %" PRIu64 " any more (it was %" PRIu64 " bytes when opened)\n",
            afmt_cli_quote_name(l->path, quoted, sizeof quoted), (uint64_t)st.st_size,
            (uint64_t)l->in.map_len);
    return 1;
}

/* Write the arrays into an open sink and finish it, or abort it (a file
 * sink: the temporary file goes) after a failure, said. */
static int write_and_finish(const afmt_cli_convert_plan *p, afmt_sink *sink)
{
    char e[AFMT_FIELD_MAX + AFMT_MESSAGE_MAX + 64];
    afmt_error err;

    if (put_arrays(p, sink, &err) == 0)
        return finish_output(p, sink);
    if (!p->args->to_stdout)
        afmt_sink_abort(sink);
    if (input_cut_short(&p->input->l))
        return AFMT_EXIT_ERROR;
    afmt_error_describe(&err, e, sizeof e);
    fprintf(stderr, "afmt convert: %s: cannot write %s: %s\n", p->args->out, p->args->target->name,
            err.field[0] ? e : err.message);
    return err.code == AFMT_E_IO || err.code == AFMT_E_NOMEM ? AFMT_EXIT_ERROR : AFMT_EXIT_INVALID;
}

int afmt_cli_convert_write(afmt_cli_convert_plan *p)
{
    afmt_sink *sink = calloc(1, sizeof *sink);
    int src_fd = -1, slot = -1, rc;

    if (!sink) {
        fprintf(stderr, "afmt convert: out of memory\n");
        return AFMT_EXIT_ERROR;
    }
    rc = open_output(p, sink, &src_fd, &slot);
    if (rc == 0)
        rc = write_and_finish(p, sink);
    afmt_cli_cleanup_forget(slot); /* committed (renamed) or aborted by now */
    if (src_fd >= 0)
        close(src_fd);
    free(sink);
    return rc;
}
