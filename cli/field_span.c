/* afmt CLI: the byte span of the field an error names (see field_span.h). */
#include "field_span.h"

#include <string.h>

void afmt_cli_span_begin(afmt_cli_span_rec *r)
{
    r->next = r->used = 0;
}

static void on_field(void *ctx, const afmt_field_info *f)
{
    afmt_cli_span_rec *r = ctx;
    afmt_cli_span *s = &r->recent[r->next];
    size_t n = strlen(f->field);

    if (n >= sizeof s->field)
        n = sizeof s->field - 1;
    memcpy(s->field, f->field, n);
    s->field[n] = '\0';
    s->offset = f->offset;
    s->width = f->width;
    s->count = f->kind == AFMT_FIELD_BYTES ? 1 : f->count;
    r->next = (r->next + 1) % AFMT_CLI_SPAN_KEEP;
    if (r->used < AFMT_CLI_SPAN_KEEP)
        r->used++;
}

void afmt_cli_span_visitor(afmt_cli_span_rec *r, afmt_field_visitor *fv)
{
    fv->ctx = r;
    fv->on_field = on_field;
}

/* "name[k]" where name is s->field: k, else UINT64_MAX. */
static uint64_t element_of(const afmt_cli_span *s, const char *field)
{
    size_t n = strlen(s->field);
    uint64_t k = 0;
    const char *p;

    if (strncmp(field, s->field, n) != 0 || field[n] != '[' || field[n + 1] == ']')
        return UINT64_MAX;
    for (p = field + n + 1; *p >= '0' && *p <= '9'; p++) {
        if (k > (UINT64_MAX - 9) / 10)
            return UINT64_MAX;
        k = k * 10 + (uint64_t)(*p - '0');
    }
    return (p[0] == ']' && p[1] == '\0') ? k : UINT64_MAX;
}

/* Is the field read, s, the one an error names?  The same path, or the
 * path of an archive member's field, which reaches the field visitor
 * named below its member (archive["w.npy"].major) while the member's
 * error names it as the member's own format does (major). */
static int same_field(const afmt_cli_span *s, const char *field)
{
    size_t n = strlen(s->field), m = strlen(field);

    if (strcmp(s->field, field) == 0)
        return 1;
    return m + 2 < n && strcmp(s->field + n - m, field) == 0 && s->field[n - m - 1] == '.' &&
           s->field[n - m - 2] == ']';
}

uint64_t afmt_cli_span_length(const afmt_cli_span_rec *r, const afmt_error *err)
{
    unsigned i;

    /* newest first: a field read twice (a loop) is the latest reading */
    for (i = 1; i <= r->used; i++) {
        const afmt_cli_span *s =
            &r->recent[(r->next + AFMT_CLI_SPAN_KEEP - i) % AFMT_CLI_SPAN_KEEP];
        uint64_t k;

        if (same_field(s, err->field)) {
            if (err->offset == s->offset)
                return s->width * s->count; /* count * width fits: it was read */
            continue;
        }
        k = element_of(s, err->field);
        if (k < s->count && s->count > 1 && err->offset == s->offset + k * s->width)
            return s->width;
    }
    return 0;
}
