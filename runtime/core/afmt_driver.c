/* afmt runtime: drivers of generated validators and writers. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "afmt_driver.h"
#include "../compress/afmt_inflated.h"

/* afmt_run_validator's work, with a body of either kind (one is NULL). */
static int run_validator(afmt_validate_body_fn body, afmt_validate_body_arg_fn body_arg,
                         const void *arg, const char *format, afmt_src *src,
                         const afmt_options *opt, const afmt_visitor *vis, afmt_error *err)
{
    afmt_options defaults;
    afmt_error scratch;
    afmt_path path = {0}; /* the field path of failures */
    afmt_validation ctx;
    int rc;
    if (!err) err = &scratch;
    if (!opt) {
        afmt_options_default(&defaults);
        opt = &defaults;
    }
    afmt_error_clear(err);
    /* named before the body runs, so lenient warnings carry it too */
    afmt_error_set_format(err, format);
    ctx.src = src;
    ctx.opt = opt;
    ctx.vis = vis;
    ctx.err = err;
    ctx.path = &path;
    ctx.region = NULL;
    ctx.pos = 0;
    ctx.narrays = 0;
    ctx.depth = 0;
    ctx.scratch = NULL;
    ctx.big = 0; /* set by a "byte_order" item before anything reads it */
    ctx.kept = 0;
    ctx.inflated = NULL;
    if (src->len != AFMT_LEN_UNKNOWN && src->len > opt->limits.max_total_bytes)
        rc = afmt_fail(err, AFMT_E_LIMIT, &path, NULL, AFMT_NO_INDEX, 0, "input of %" PRIu64
                       " bytes exceeds the limit of %" PRIu64 " (limits.max_total_bytes)", src->len,
                       opt->limits.max_total_bytes);
    else
        rc = body ? body(&ctx) : body_arg(&ctx, arg);
    /* a failure inside inflated data, told in terms of the input (before
     * the scratch memory that holds the regions is freed) */
    if (rc != 0 && ctx.inflated) afmt_inflated_reblame(ctx.inflated, err);
    afmt_scratch_free_all(&ctx);
    if (rc == 0 && src->io_error)
        rc = afmt_fail(err, AFMT_E_IO, NULL, NULL, AFMT_NO_INDEX, src->data_off + src->data_len,
                       "reading the input failed");
    if (rc != 0) afmt_error_set_format(err, format);
    return rc;
}

int afmt_run_validator(afmt_validate_body_fn body, const char *format, afmt_src *src,
                       const afmt_options *opt, const afmt_visitor *vis, afmt_error *err)
{
    return run_validator(body, NULL, NULL, format, src, opt, vis, err);
}

int afmt_run_validator_arg(afmt_validate_body_arg_fn body, const void *arg, const char *format,
                           afmt_src *src, const afmt_options *opt, const afmt_visitor *vis,
                           afmt_error *err)
{
    return run_validator(NULL, body, arg, format, src, opt, vis, err);
}

int afmt_run_validator_buffer(afmt_validate_body_fn body, const char *format, const uint8_t *buf,
                              uint64_t len, const afmt_options *opt, const afmt_visitor *vis,
                              afmt_error *err)
{
    afmt_src src;
    if (!buf && len > 0) {
        if (err) {
            afmt_fail(err, AFMT_E_USAGE, NULL, NULL, AFMT_NO_INDEX, 0, "no input buffer");
            afmt_error_set_format(err, format);
        }
        return -1;
    }
    afmt_src_buffer(&src, buf, len);
    return afmt_run_validator(body, format, &src, opt, vis, err);
}

int afmt_run_writer(afmt_write_body_fn body, const char *format, const afmt_array *arrays, size_t n,
                    const afmt_write_options *wopt, afmt_sink *sink, afmt_error *err)
{
    afmt_error scratch;
    uint8_t *owned = NULL;
    int rc;
    if (!err) err = &scratch;
    afmt_error_clear(err);
    rc = body(arrays, n, wopt, sink, err, &owned);
    free(owned);
    if (rc != 0) {
        afmt_error_set_format(err, format);
        return -1;
    }
    return 0;
}

/* A sink that only counts (afmt_sink_put adds to written). */
static int count_only(afmt_sink *s, const void *p, uint64_t n)
{
    (void)s;
    (void)p;
    (void)n;
    return 0;
}

int afmt_run_writer_size(afmt_write_body_fn body, const char *format, const afmt_array *arrays,
                         size_t n, const afmt_write_options *wopt, uint64_t *size, afmt_error *err)
{
    afmt_sink counter;
    memset(&counter, 0, sizeof counter);
    counter.write = count_only;
    counter.counting = 1;
    if (afmt_run_writer(body, format, arrays, n, wopt, &counter, err) != 0)
        return -1;
    *size = counter.written;
    return 0;
}
