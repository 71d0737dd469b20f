/* afmt CLI: one member of an archive as the input (see member_pick.h). */
#include "member_pick.h"

#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "fail.h"

int afmt_cli_pick_split(const char *path, size_t *archive_len)
{
    struct stat st;
    char prefix[4096];
    size_t i, n = strlen(path);

    if (stat(path, &st) == 0)
        return 0; /* a file of that name wins */
    for (i = n; i-- > 0;) {
        if (path[i] != ':' || i == 0 || i + 1 == n || i >= sizeof prefix)
            continue;
        memcpy(prefix, path, i);
        prefix[i] = '\0';
        if (stat(prefix, &st) == 0 && S_ISREG(st.st_mode)) {
            *archive_len = i;
            return 1;
        }
    }
    return 0;
}

/* Is the member called name[0..len) the one asked for: that name, or
 * that name and an extension of its format ("weights" for weights.npy,
 * as np.load's keys drop it)? */
static int is_wanted(const char *want, const afmt_member *m)
{
    size_t n = strlen(want);
    const char *const *ext;

    if (m->name_len == n && memcmp(m->name, want, n) == 0)
        return 1;
    if (m->name_len <= n || memcmp(m->name, want, n) != 0 || !m->format || !m->format->extensions)
        return 0;
    for (ext = m->format->extensions; *ext; ext++)
        if (m->name_len - n == strlen(*ext) && memcmp(m->name + n, *ext, m->name_len - n) == 0)
            return 1;
    return 0;
}

static int pick_member(void *ctx, const afmt_member *m)
{
    afmt_cli_pick *p = ctx;

    if (m->done) {
        if (!p->in)
            return 0; /* another member, valid or not: not the question */
        p->in = 0;
        p->done = !m->error;
        return 1; /* nor is the rest of the archive */
    }
    p->members++;
    p->in = !p->found && is_wanted(p->want, m);
    if (p->in) {
        p->found = 1;
        p->format = m->format;
        p->size = m->size;
    }
    return 0;
}

static int pick_array(void *ctx, const afmt_array *a)
{
    afmt_cli_pick *p = ctx;
    return p->in && p->inner && p->inner->on_array ? p->inner->on_array(p->inner->ctx, a) : 0;
}

static void pick_warning(void *ctx, const afmt_error *w)
{
    afmt_cli_pick *p = ctx;
    if (p->in && p->inner && p->inner->on_warning)
        p->inner->on_warning(p->inner->ctx, w);
}

static void pick_trailer(void *ctx, const uint8_t *data, uint64_t len, uint64_t offset)
{
    afmt_cli_pick *p = ctx;
    if (p->in && p->inner && p->inner->on_trailer)
        p->inner->on_trailer(p->inner->ctx, data, len, offset);
}

static void pick_metadata(void *ctx, const uint8_t *json, uint64_t len, uint64_t offset)
{
    afmt_cli_pick *p = ctx;
    if (p->in && p->inner && p->inner->on_metadata)
        p->inner->on_metadata(p->inner->ctx, json, len, offset);
}

static int pick_kv(void *ctx, const afmt_kv *kv, uint64_t offset)
{
    afmt_cli_pick *p = ctx;
    return p->in ? p->inner->on_kv(p->inner->ctx, kv, offset) : 0;
}

static void pick_field(void *ctx, const afmt_field_info *f)
{
    afmt_cli_pick *p = ctx;
    if (p->in)
        p->inner_fields->on_field(p->inner_fields->ctx, f);
}

void afmt_cli_pick_init(afmt_cli_pick *p, const char *want, const afmt_visitor *vis, const afmt_options *opt,
                        afmt_options *opt_out)
{
    memset(p, 0, sizeof *p);
    p->want = want;
    p->inner = vis;
    p->vis.ctx = p;
    p->vis.on_array = pick_array;
    p->vis.on_warning = pick_warning;
    p->vis.on_trailer = pick_trailer;
    p->vis.on_metadata = pick_metadata;
    p->vis.on_kv = vis && vis->on_kv ? pick_kv : NULL; /* none: not built */
    p->vis.on_member = pick_member;
    *opt_out = *opt;
    if (opt->fields && opt->fields->on_field) {
        p->inner_fields = opt->fields;
        p->fields.ctx = p;
        p->fields.on_field = pick_field;
        opt_out->fields = &p->fields;
    }
}

int afmt_cli_pick_result(const afmt_cli_pick *p, int rc, afmt_error *err)
{
    if (p->done && (rc == 0 || (err && err->code == AFMT_E_CALLBACK))) {
        afmt_error_clear(err);
        return 0;
    }
    if (rc != 0)
        return -1; /* the archive, or the member, is invalid */
    afmt_error_clear(err);
    return afmt_cli_fail(err, AFMT_E_IO, NULL, AFMT_NO_OFFSET,
                         "no member '%s' in the archive (%" PRIu64 " member%s of a known format)", p->want,
                         p->members, p->members == 1 ? "" : "s");
}
