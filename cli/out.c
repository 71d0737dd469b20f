/* afmt CLI: standard output in argument order from several workers
 * (see out.h). */
#include "out.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Pending output is written once it passes this size. */
#define OUT_FLUSH_BYTES ((size_t)64 << 10)
/* Buffers that grew beyond this for one input are given back afterwards. */
#define KEEP_BYTES ((size_t)4 << 20)

/* Write n bytes of finished output to stdout; with a list, each
 * AFMT_CLI_LIST_MARK becomes a comma, but the first one ever.  Only the
 * input whose turn it is writes, so *list_started needs no lock.
 * 0, or -1 when stdout failed. */
static int write_text(const char *p, size_t n, int *list_started)
{
    while (list_started && n > 0) {
        const char *mark = memchr(p, AFMT_CLI_LIST_MARK, n);
        size_t k = mark ? (size_t)(mark - p) : n;
        if (fwrite(p, 1, k, stdout) != k)
            return -1;
        if (!mark)
            return 0;
        if (*list_started && putchar(',') == EOF)
            return -1;
        *list_started = 1;
        p += k + 1;
        n -= k + 1;
    }
    return n == 0 || fwrite(p, 1, n, stdout) == n ? 0 : -1;
}

void afmt_cli_out_init(afmt_cli_out *o, afmt_cli_seq *seq)
{
    afmt_cli_buf_init(&o->buf);
    o->seq = seq;
    o->my_seq = 0;
    o->has_turn = seq == NULL;
    o->write_failed = 0;
    o->progress = NULL;
    o->list_started = NULL;
}

void afmt_cli_out_free(afmt_cli_out *o)
{
    afmt_cli_buf_free(&o->buf);
}

void afmt_cli_out_begin(afmt_cli_out *o, uint64_t seq_no)
{
    o->my_seq = seq_no;
    o->has_turn = o->seq == NULL;
    afmt_cli_buf_reset(&o->buf, KEEP_BYTES);
}

static void wait_turn(afmt_cli_out *o)
{
    if (o->has_turn)
        return;
    pthread_mutex_lock(&o->seq->mu);
    while (o->seq->next != o->my_seq)
        pthread_cond_wait(&o->seq->cv, &o->seq->mu);
    pthread_mutex_unlock(&o->seq->mu);
    o->has_turn = 1;
}

void afmt_cli_out_flush(afmt_cli_out *o)
{
    if (o->buf.len == 0)
        return;
    wait_turn(o);
    if (o->buf.oom) {
        /* Never write a silently shortened report. */
        fprintf(stderr, "afmt: out of memory while formatting output\n");
        o->write_failed = 1;
    }
    if (write_text(o->buf.p, o->buf.len, o->list_started) != 0)
        o->write_failed = 1;
    afmt_cli_buf_reset(&o->buf, KEEP_BYTES);
}

void afmt_cli_out_maybe_flush(afmt_cli_out *o)
{
    if (o->buf.len >= OUT_FLUSH_BYTES)
        afmt_cli_out_flush(o);
}

void afmt_cli_out_stderr(afmt_cli_out *o, const char *fmt, ...)
{
    va_list ap;

    afmt_cli_out_flush(o);
    wait_turn(o);
    fflush(stdout);
    afmt_cli_progress_hold(o->progress);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    afmt_cli_progress_release(o->progress);
}

/* With seq->mu held and the turn ours: write what was parked for the
 * inputs after ours, in order, and move the turn on. */
static void advance_turn(afmt_cli_seq *q)
{
    int found = 1;
    q->next++;
    while (found) {
        int i;
        found = 0;
        for (i = 0; i < AFMT_CLI_PARKED; i++) {
            afmt_cli_parked *pk = &q->parked[i];
            if (pk->used && pk->seq == q->next) {
                if (write_text(pk->text, pk->len, q->list_started) != 0)
                    q->write_failed = 1;
                free(pk->text);
                pk->text = NULL;
                pk->used = 0;
                q->next++;
                found = 1;
            }
        }
    }
    pthread_cond_broadcast(&q->cv);
}

void afmt_cli_out_end(afmt_cli_out *o)
{
    afmt_cli_seq *q = o->seq;
    if (!q) {
        afmt_cli_out_flush(o);
        return;
    }
    if (o->has_turn) {
        afmt_cli_out_flush(o);
        pthread_mutex_lock(&q->mu);
        advance_turn(q);
        pthread_mutex_unlock(&q->mu);
        o->has_turn = 0;
        return;
    }
    pthread_mutex_lock(&q->mu);
    if (q->next != o->my_seq && !o->buf.oom) {
        /* not our turn yet: park the text (if there is room) and go on */
        int i;
        for (i = 0; i < AFMT_CLI_PARKED; i++)
            if (!q->parked[i].used) break;
        if (i < AFMT_CLI_PARKED) {
            char *copy = o->buf.len ? malloc(o->buf.len) : NULL;
            if (!o->buf.len || copy) {
                if (copy) memcpy(copy, o->buf.p, o->buf.len);
                q->parked[i].seq = o->my_seq;
                q->parked[i].text = copy;
                q->parked[i].len = o->buf.len;
                q->parked[i].used = 1;
                pthread_mutex_unlock(&q->mu);
                afmt_cli_buf_reset(&o->buf, KEEP_BYTES);
                return;
            }
        }
    }
    while (q->next != o->my_seq)
        pthread_cond_wait(&q->cv, &q->mu);
    if (o->buf.oom) {
        fprintf(stderr, "afmt: out of memory while formatting output\n");
        o->write_failed = 1;
    }
    if (write_text(o->buf.p, o->buf.len, o->list_started) != 0)
        o->write_failed = 1;
    advance_turn(q);
    pthread_mutex_unlock(&q->mu);
    afmt_cli_buf_reset(&o->buf, KEEP_BYTES);
    o->has_turn = 0;
}
