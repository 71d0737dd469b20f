/* The checked built-in functions of spec expressions (afmt_gen_expr.h). */
#include "afmt_gen_expr.h"

#include <inttypes.h>
#include "afmt_fields.h"

/* The verdict of afmt_field_prod/sum told in c's terms. */
static int reduced(const afmt_validation *c, int rc, const char *name, uint64_t off, unsigned width, uint64_t bad,
                   const char *field, uint64_t index, uint64_t offset, const char *text)
{
    if (rc == AFMT_OK) return 0;
    if (rc == AFMT_E_NEGATIVE) /* bad < n: the element lies in the field taken, no overflow */
        return afmt_fail_c(c, AFMT_E_NEGATIVE, name, bad, off + (uint64_t)width * bad,
                           "%s[%" PRIu64 "] is negative", name, bad);
    return afmt_overflow_c(c, field, index, offset, text);
}

int afmt_field_prod_c(const afmt_validation *c, const char *name, uint64_t off, uint64_t n, unsigned width,
                      int is_signed, int big, const char *field, uint64_t index, uint64_t offset,
                      const char *text, uint64_t *out)
{
    uint64_t bad = 0;
    const int rc = afmt_field_prod(AFMT_B(c->src, off), n, width, is_signed, big, out, &bad);
    return reduced(c, rc, name, off, width, bad, field, index, offset, text);
}

int afmt_field_sum_c(const afmt_validation *c, const char *name, uint64_t off, uint64_t n, unsigned width,
                     int is_signed, int big, const char *field, uint64_t index, uint64_t offset,
                     const char *text, uint64_t *out)
{
    uint64_t bad = 0;
    const int rc = afmt_field_sum(AFMT_B(c->src, off), n, width, is_signed, big, out, &bad);
    return reduced(c, rc, name, off, width, bad, field, index, offset, text);
}

int afmt_field_end_c(const afmt_validation *c, const afmt_field_desc *f, uint64_t off, uint64_t n,
                     int last, uint64_t want, const char *want_text)
{
    const char *which = last ? "last" : "first";
    uint64_t i, raw, at;
    int64_t value;
    if (n == 0)
        return afmt_fail_c(c, AFMT_E_CONSTRAINT, f->name, AFMT_NO_INDEX, off,
                           "has no elements, but its %s must be %s", which, want_text);
    i = last ? n - 1 : 0;
    at = off + (uint64_t)f->width * i; /* inside the field taken: no overflow */
    raw = afmt_field_get(AFMT_B(c->src, off), i, f->width, afmt_order_of(c, f->big_endian));
    if (f->kind != AFMT_FIELD_INT) {
        if (raw == want) return 0;
        return afmt_fail_c(c, AFMT_E_CONSTRAINT, f->name, i, at,
                           "expected %" PRIu64 " = %s, found %" PRIu64, want, want_text, raw);
    }
    value = afmt_as_i64(raw, f->width * 8);
    if (afmt_cmp_i64_u64(value, want) == 0) return 0;
    return afmt_fail_c(c, AFMT_E_CONSTRAINT, f->name, i, at,
                       "expected %" PRIu64 " = %s, found %" PRId64, want, want_text, value);
}
