/* afmt CLI: a URL as the input of afmt info, dump and convert (see
 * load_url.h). */
#include "load_url.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "remote_file.h"
#include "spec.h"

int afmt_cli_load_url(afmt_cli_loaded *l, const char *url, int bounded, uint64_t *detect_len,
                      afmt_error *err)
{
    afmt_cli_remote_file *f = calloc(1, sizeof *f);

    *detect_len = 0;
    if (!f)
        return afmt_cli_fail(err, AFMT_E_NOMEM, NULL, AFMT_NO_OFFSET, "out of memory");
    l->remote = f;
    l->in.fd = -1;
    if (afmt_cli_remote_file_open(f, url, err) != 0)
        return -1;
    l->in.data = f->data;
    l->in.len = l->in.size = f->http.size;
    l->in.limit = bounded ? UINT64_MAX : AFMT_CLI_STREAM_DEFAULT_LIMIT;
    *detect_len = f->first_len;
    if (f->http.size > l->in.limit) {
        l->in.over_limit = 1;
        l->in.len = f->first_len; /* what is there to tell the format by */
        return 0;
    }
    if (bounded)
        return 0;
    if (afmt_cli_remote_file_fetch_all(f, err) != 0)
        return -1;
    *detect_len = f->http.size;
    return 0;
}

void afmt_cli_load_url_limit_error(const afmt_cli_loaded *l, afmt_error *err)
{
    afmt_cli_fail(err, AFMT_E_LIMIT, NULL, AFMT_NO_OFFSET,
                  "a remote file of %" PRIu64 " bytes is more than the %" PRIu64 " bytes this "
                  "command fetches whole (afmt info and afmt-validate fetch only what they "
                  "check)", l->in.size, l->in.limit);
}

typedef struct url_run {
    afmt_cli_loaded *l;
    const afmt_options *opt;
    const afmt_visitor *vis;
    afmt_error *err;
    int rc;
} url_run;

/* One run from the start: the caller forgets the last one's report. */
static void run_once(void *ctx)
{
    url_run *u = ctx;

    if (u->l->restart)
        u->l->restart(u->l->restart_ctx);
    afmt_error_clear(u->err);
    u->rc = afmt_cli_validate(u->l->interp, u->l->fmt, u->l->in.data, u->l->in.len, u->opt,
                              u->vis, u->err);
}

/* The same validation with no visitor, in a probe child (remote_file.h). */
static void probe_once(void *ctx)
{
    url_run *u = ctx;
    afmt_options o;
    afmt_error e;

    if (u->opt)
        o = *u->opt;
    else
        afmt_options_default(&o);
    o.fields = NULL;
    (void)afmt_cli_validate(u->l->interp, u->l->fmt, u->l->in.data, u->l->in.len, &o, NULL, &e);
}

int afmt_cli_load_url_run(afmt_cli_loaded *l, const afmt_options *opt, const afmt_visitor *vis,
                          afmt_error *err)
{
    url_run u = { l, opt, vis, err, -1 };
    afmt_error fetch_err;

    if (l->remote->whole) {
        run_once(&u);
        return u.rc;
    }
    afmt_error_clear(&fetch_err);
    if (afmt_cli_remote_file_run(l->remote, run_once, probe_once, &u, &fetch_err) != 0) {
        *err = fetch_err;
        return -2; /* no verdict: about bytes that could not be had */
    }
    return u.rc;
}

void afmt_cli_load_url_close(afmt_cli_loaded *l)
{
    if (!l->remote)
        return;
    afmt_cli_remote_file_close(l->remote);
    free(l->remote);
    l->remote = NULL;
}
