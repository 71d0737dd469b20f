/* afmt CLI: a worker's buffers, made once and reused (see report.h). */
#include "report.h"

#include <stdlib.h>
#include <string.h>

void afmt_cli_worker_init(afmt_cli_worker *w, const afmt_cli_config *cfg,
                          afmt_cli_seq *seq)
{
    memset(w, 0, sizeof *w);
    w->cfg = cfg;
    afmt_cli_out_init(&w->out, seq);
    w->out.progress = cfg->progress;
    afmt_cli_buf_init(&w->arrays);
    afmt_cli_buf_init(&w->warns);
    afmt_cli_buf_init(&w->data);
    afmt_cli_buf_init(&w->name);
    afmt_cli_buf_init(&w->msg);
    afmt_cli_buf_init(&w->member_line);
    afmt_cli_buf_init(&w->archive_warns);
    w->out.list_started = cfg->list_started;
    afmt_cli_member_where_unknown(w);
}

void afmt_cli_worker_free(afmt_cli_worker *w)
{
    afmt_cli_out_free(&w->out);
    afmt_cli_buf_free(&w->arrays);
    afmt_cli_buf_free(&w->warns);
    afmt_cli_buf_free(&w->data);
    afmt_cli_buf_free(&w->name);
    afmt_cli_buf_free(&w->msg);
    afmt_cli_buf_free(&w->member_line);
    afmt_cli_buf_free(&w->archive_warns);
    free(w->window);
    w->window = NULL;
    afmt_sidecar_free(w->meta);
    w->meta = NULL;
}
