/* afmt Python extension: guarded validation (see job.h). */
#include "job.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fail.h"
#include "guard.h"

typedef struct job {
    afmt_py_run *run;
    afmt_py_input in;
} job;

static void run_job(void *ctx)
{
    job *j = ctx;

    afmt_py_run_validate(j->run, &j->in);
}

void afmt_py_cut_error(afmt_error *err, uint64_t at, const afmt_file *f, const char *format)
{
    struct stat st;

    /* the first byte no longer there: where the file ends now, if that is
     * before the faulting byte (memcpy touches a copy's last bytes first) */
    if (f->fd >= 0 && fstat(f->fd, &st) == 0 && st.st_size >= 0 && (uint64_t)st.st_size < at)
        at = (uint64_t)st.st_size;
    afmt_error_clear(err);
    afmt_cli_fail(err, AFMT_E_IO, NULL, at,
                  "the file was cut short while it was read: no byte at offset %" PRIu64
                  " any more (it was %" PRIu64 " bytes when opened)", at, f->len);
    afmt_cli_error_set_format(err, format);
}

void afmt_py_fault_error(afmt_error *err, uintptr_t fault, const afmt_file *f, const char *format)
{
    uintptr_t lo = (uintptr_t)f->data;

    afmt_py_cut_error(err, fault >= lo && fault - lo < f->len ? (uint64_t)(fault - lo) : f->len, f, format);
}

void afmt_py_validate_file(afmt_py_run *run, const afmt_file *f, const afmt_format *forced,
                           const afmt_options *opt)
{
    job j;
    uintptr_t fault = 0;

    memset(&j, 0, sizeof j);
    j.run = run;
    j.in.data = f->data;
    j.in.len = f->len;
    j.in.path = f->path;
    j.in.mapped = 1;
    j.in.mapped_size = f->len;
    j.in.forced = forced;
    j.in.opt = opt;
    if (afmt_py_guard_run(run_job, &j, &fault) == 0)
        return;
    /* abandoned half-way: what it kept is forgotten, the cut is the verdict */
    afmt_py_run_reset(run);
    run->valid = 0;
    afmt_py_fault_error(&run->error, fault, f, run->fmt ? run->fmt->name : NULL);
}

void afmt_py_validate_bytes(afmt_py_run *run, const void *data, uint64_t len, const char *path,
                            const afmt_format *forced, const afmt_options *opt)
{
    afmt_py_input in;

    memset(&in, 0, sizeof in);
    in.path = path;
    in.data = data;
    in.len = len;
    in.forced = forced;
    in.opt = opt;
    afmt_py_run_validate(run, &in);
}
