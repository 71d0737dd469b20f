/* What an archive tells its visitor about the members other formats
 * parse (runtime/archive/afmt_archive.c): on_member before and after each one, in
 * archive order, with its name, format and place, so that a caller can
 * give each member its own verdict; the member's header fields named
 * below it at absolute offsets; a deflated member larger than
 * limits.max_held_bytes parsed through a window, its views without data,
 * with every claim still checked; an invalid member told with its error,
 * the validation going on past it when the visitor says so (each sample of
 * a shard its own verdict); and check_values 0 (a structure check)
 * reading no stored member's data for its CRC-32.  Each case is a row:
 * the archive, the options, and what the visitor must have been told
 * (an event log) or the error's code, field and offset. */
#include "ar_build.h"
#include "check.h"

static uint8_t npy_w[512], npy_b[512];
static size_t npy_w_len, npy_b_len;
static zb_file n_ok[2];

/* The visitor's log: "<w.npy npy @62+152" for a member told, "w" for a
 * view (with "~" when it has no data), ">" for a valid member's end,
 * "!magic" for an invalid one's (its error's code).  Fields are logged
 * apart (the first one's name and offset). */
typedef struct event_log {
    char text[512];
    size_t len;
    int stop_at;           /* on_member returns non-zero at this call (1-based), 0 never */
    int stop_invalid;      /* on_member returns non-zero at an invalid member's end */
    int calls;
    char field[AFMT_FIELD_MAX];
    uint64_t field_offset; /* of the first field named below a member */
    int fields;
} event_log;

static void log_put(event_log *l, const char *s)
{
    size_t n = strlen(s);
    if (l->len + n + 2 < sizeof l->text) {
        if (l->len)
            l->text[l->len++] = ' ';
        memcpy(l->text + l->len, s, n + 1);
        l->len += n;
    }
}

static int log_member(void *ctx, const afmt_member *m)
{
    event_log *l = ctx;
    char s[160];

    if (++l->calls == l->stop_at)
        return 1;
    if (m->done && m->error) {
        snprintf(s, sizeof s, "!%s", afmt_code_name(m->error->code));
        log_put(l, s);
        return l->stop_invalid;
    }
    if (m->done) {
        log_put(l, ">");
        return 0;
    }
    snprintf(s, sizeof s, "<%.*s %s @%" PRIu64 "+%" PRIu64 "%s", (int)m->name_len, (const char *)m->name,
             m->format ? m->format->name : "?", m->offset, m->size, m->compressed ? "z" : "");
    log_put(l, s);
    return 0;
}

static int log_view(void *ctx, const afmt_array *a)
{
    char s[AFMT_NAME_MAX + 2];
    snprintf(s, sizeof s, "%s%s", a->name, a->data ? "" : "~");
    log_put(ctx, s);
    return 0;
}

static void log_field(void *ctx, const afmt_field_info *f)
{
    event_log *l = ctx;
    if (l->fields++ == 0) {
        snprintf(l->field, sizeof l->field, "%s", f->field);
        l->field_offset = f->offset;
    }
}

typedef struct member_case {
    const char *name;
    zb_layout layout;
    zb_patch patch[2];    /* byte patches (the central and local copies of a field) */
    uint64_t max_held;    /* limits.max_held_bytes (0 here: the default) */
    int no_values;        /* check_values 0 */
    int no_crc;           /* an npz desc that checks no CRC-32 */
    int stop_invalid;     /* the visitor stops at an invalid member */
    int stop_at;
    afmt_code code;       /* AFMT_OK: valid */
    const char *log;      /* the whole log, "%d" standing for the data offsets of w and b (NULL: not
                             checked) */
    const char *field;    /* invalid: the error's field, at offset */
    zb_pos offset;
} member_case;

#define PATCH(w, m, d, width, v) {{w, m, d}, width, v}
#define NOPATCH {PATCH(W_NONE, 0, 0, 0, 0)}
#define VALID AFMT_OK
#define NOWHERE {W_NONE, 0, 0}

static const afmt_archive_desc npz_nocrc = {"npz", "archive", AFMT_AR_ZIP, 0x101u, 0, 0x0808, 0, 0, 0, 0, npz_extras,
                                            1, 0, 0, 1, 1, npz_rules, 1, AFMT_AR_REST_REFUSE, 0};

static const member_case cases[] = {
    {"each member told before its views and after them, in order", {0}, NOPATCH, 0, 0, 0, 0, 0, VALID,
     "<w.npy npy @%d+152 w > <b.npy npy @%d+140 b >", NULL, NOWHERE},
    {"a deflated member told as compressed, at its compressed data", {.deflate = 1}, NOPATCH, 0, 0, 0, 0, 0, VALID,
     "<w.npy npy @%d+152z w > <b.npy npy @%d+140 b >", NULL, NOWHERE},
    {"a deflated member above max_held_bytes: parsed as a stream, its view without data", {.deflate = 1}, NOPATCH,
     100, 0, 0, 0, 0, VALID, "<w.npy npy @%d+152z w~ > <b.npy npy @%d+140 b >", NULL, NOWHERE},
    {"... at exactly max_held_bytes: held, its view with data", {.deflate = 1}, NOPATCH, 152, 0, 0, 0, 0, VALID,
     "<w.npy npy @%d+152z w > <b.npy npy @%d+140 b >", NULL, NOWHERE},
    {"a streamed member's bad CRC-32", {.deflate = 1}, {PATCH(W_CENTRAL, 0, 16, 4, 7), PATCH(W_LOCAL, 0, 14, 4, 7)},
     100, 0, 0, 0, 0, AFMT_E_CONSTRAINT, NULL, "archive[\"w.npy\"].central.crc32", {W_CENTRAL, 0, 16}},
    {"a streamed member inflating to fewer bytes than claimed", {.deflate = 1},
     {PATCH(W_CENTRAL, 0, 24, 4, 153), PATCH(W_LOCAL, 0, 39, 8, 153)}, 100, 0, 0, 0, 0, AFMT_E_SIZE, NULL,
     "archive[\"w.npy\"].central.uncompressed_size", {W_CENTRAL, 0, 24}},
    {"a streamed member's corrupt deflate data", {.deflate = 1}, {PATCH(W_DATA, 0, 0, 1, 7)}, 100, 0, 0, 0, 0,
     AFMT_E_VALUE, NULL, "archive[\"w.npy\"].data", {W_DATA, 0, 0}},
    {"a streamed member's own error, at its data", {.deflate = 1}, {PATCH(W_DATA, 0, 5, 1, 0)}, 100, 0, 1, 0, 0,
     AFMT_E_MAGIC, NULL, "archive[\"w.npy\"].magic_byte", {W_DATA, 0, 0}},
    {"a stored member's bad CRC-32, values checked", {0}, {PATCH(W_CENTRAL, 1, 16, 4, 7), PATCH(W_LOCAL, 1, 14, 4, 7)},
     0, 0, 0, 0, 0, AFMT_E_CONSTRAINT, NULL, "archive[\"b.npy\"].central.crc32", {W_CENTRAL, 1, 16}},
    {"... and with check_values 0: its data not read for it", {0},
     {PATCH(W_CENTRAL, 1, 16, 4, 7), PATCH(W_LOCAL, 1, 14, 4, 7)}, 0, 1, 0, 0, 0, VALID,
     "<w.npy npy @%d+152 w > <b.npy npy @%d+140 b >", NULL, NOWHERE},
    {"on_member stopping at a member's start: AFMT_E_CALLBACK naming it", {0}, NOPATCH, 0, 0, 0, 0, 3, AFMT_E_CALLBACK,
     NULL, "archive[\"b.npy\"]", {W_DATA, 1, 0}},
    {"on_member stopping at a member's end", {0}, NOPATCH, 0, 0, 0, 0, 2, AFMT_E_CALLBACK, NULL, "archive[\"w.npy\"]",
     {W_DATA, 0, 0}},
    {"an invalid member, the visitor going on: the next told, the first member's error the verdict", {0},
     {PATCH(W_DATA, 0, 0, 1, 0)}, 0, 0, 1, 0, 0, AFMT_E_MAGIC, "<w.npy npy @%d+152 !magic <b.npy npy @%d+140 b >",
     "archive[\"w.npy\"].magic_byte", {W_DATA, 0, 0}},
    {"an invalid member, the visitor stopping there: its error, the next not told", {0},
     {PATCH(W_DATA, 0, 0, 1, 0)}, 0, 0, 1, 1, 0, AFMT_E_MAGIC, "<w.npy npy @%d+152 !magic",
     "archive[\"w.npy\"].magic_byte", {W_DATA, 0, 0}},
    {"two invalid members: the first one's error is the verdict", {0},
     {PATCH(W_DATA, 0, 0, 1, 0), PATCH(W_DATA, 1, 0, 1, 0)}, 0, 0, 1, 0, 0, AFMT_E_MAGIC,
     "<w.npy npy @%d+152 !magic <b.npy npy @%d+140 !magic", "archive[\"w.npy\"].magic_byte", {W_DATA, 0, 0}},
};

static int run_case(const member_case *c, zb *z)
{
    afmt_options opt;
    afmt_visitor vis;
    afmt_src src;
    afmt_error err;
    event_log l;
    char want[512];
    uint64_t pos = 0;
    uint32_t narrays = 0;
    size_t i;
    int rc;

    zb_build(z, n_ok, 2, &c->layout);
    for (i = 0; i < 2 && c->patch[i].at.where != W_NONE; i++)
        zb_apply(z, &c->patch[i]);
    afmt_options_default(&opt);
    if (c->max_held)
        opt.limits.max_held_bytes = c->max_held;
    opt.check_values = !c->no_values;
    memset(&l, 0, sizeof l);
    l.stop_at = c->stop_at;
    l.stop_invalid = c->stop_invalid;
    memset(&vis, 0, sizeof vis);
    vis.ctx = &l;
    vis.on_array = log_view;
    vis.on_member = log_member;
    afmt_src_buffer(&src, z->buf, z->len);
    afmt_error_clear(&err);
    rc = afmt_archive_validate(c->no_crc ? &npz_nocrc : &npz_desc, &src, z->len, &pos, &narrays, &opt, &vis, NULL,
                               &err);
    if (c->code == AFMT_OK) {
        snprintf(want, sizeof want, c->log, (int)z->data[0], (int)z->data[1]);
        if (rc == 0 && strcmp(l.text, want) == 0)
            return 1;
        printf("# %s: rc %d (%s at %" PRIu64 ": %s), told \"%s\", want \"%s\"\n", c->name, rc, err.field, err.offset,
               err.message, l.text, want);
        return 0;
    }
    if (c->log)
        snprintf(want, sizeof want, c->log, (int)z->data[0], (int)z->data[1]);
    if (rc != 0 && err.code == c->code && strcmp(err.field, c->field) == 0 && err.offset == zb_at(z, c->offset) &&
        (!c->log || strcmp(l.text, want) == 0))
        return 1;
    printf("# %s: rc %d, %s %s at %" PRIu64 " (want %s %s at %" PRIu64 "): %s; told \"%s\"\n", c->name, rc,
           afmt_code_name(err.code), err.field, err.offset, afmt_code_name(c->code), c->field, zb_at(z, c->offset),
           err.message, l.text);
    return 0;
}

/* A member's header fields: below the member, at absolute offsets (a
 * deflated member's, its data's: the inflated bytes have none). */
static void fields(zb *z)
{
    static const zb_layout layouts[2] = {{0}, {.deflate = 1}};
    afmt_field_visitor fv;
    afmt_options opt;
    afmt_src src;
    afmt_error err;
    event_log l;
    int i;

    for (i = 0; i < 2; i++) {
        uint64_t pos = 0;
        uint32_t narrays = 0;
        int rc, ok;
        zb_build(z, n_ok, 2, &layouts[i]);
        afmt_options_default(&opt);
        memset(&l, 0, sizeof l);
        fv.ctx = &l;
        fv.on_field = log_field;
        opt.fields = &fv;
        afmt_src_buffer(&src, z->buf, z->len);
        rc = afmt_archive_validate(&npz_desc, &src, z->len, &pos, &narrays, &opt, NULL, NULL, &err);
        ok = rc == 0 && strcmp(l.field, "archive[\"w.npy\"].magic_byte") == 0 && l.field_offset == z->data[0] &&
             l.fields > 2;
        if (!ok)
            printf("# rc %d, %d fields, first %s at %" PRIu64 " (data at %zu)\n", rc, l.fields, l.field,
                   l.field_offset, z->data[0]);
        CHECK(i ? "a deflated member's fields: below it, at its data's offset"
                : "a stored member's fields: below it (archive[\"w.npy\"].magic_byte), at absolute offsets",
              ok);
    }
}

int main(void)
{
    static zb z;
    size_t i;

    make_npys(npy_w, &npy_w_len, npy_b, &npy_b_len);
    n_ok[0] = (zb_file){"w.npy", npy_w, npy_w_len};
    n_ok[1] = (zb_file){"b.npy", npy_b, npy_b_len};
    CHECK("afmt's npy writer makes the 152- and 140-byte members the cases count on",
          npy_w_len == 152 && npy_b_len == 140);
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(cases[i].name, run_case(&cases[i], &z));
    fields(&z);
    CHECK_DONE();
}
