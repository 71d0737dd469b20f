/* The checked built-in functions of spec expressions (afmt_gen_expr.h). */
#include "afmt_gen_expr.h"

#include <inttypes.h>
#include "afmt_fields.h"

/* The verdict of afmt_field_prod/sum told in c's terms. */
static int reduced(const afmt_vctx *c, int rc, const char *name, uint64_t off, unsigned width, uint64_t bad,
                   const char *field, uint64_t index, uint64_t offset, const char *text)
{
    if (rc == AFMT_OK) return 0;
    if (rc == AFMT_E_NEGATIVE) /* bad < n: the element lies in the field taken, no overflow */
        return afmt_fail_c(c, AFMT_E_NEGATIVE, name, bad, off + (uint64_t)width * bad,
                           "%s[%" PRIu64 "] is negative", name, bad);
    return afmt_overflow_c(c, field, index, offset, text);
}

int afmt_field_prod_c(const afmt_vctx *c, const char *name, uint64_t off, uint64_t n, unsigned width,
                      int is_signed, int big, const char *field, uint64_t index, uint64_t offset,
                      const char *text, uint64_t *out)
{
    uint64_t bad = 0;
    const int rc = afmt_field_prod(AFMT_B(c->src, off), n, width, is_signed, big, out, &bad);
    return reduced(c, rc, name, off, width, bad, field, index, offset, text);
}

int afmt_field_sum_c(const afmt_vctx *c, const char *name, uint64_t off, uint64_t n, unsigned width,
                     int is_signed, int big, const char *field, uint64_t index, uint64_t offset,
                     const char *text, uint64_t *out)
{
    uint64_t bad = 0;
    const int rc = afmt_field_sum(AFMT_B(c->src, off), n, width, is_signed, big, out, &bad);
    return reduced(c, rc, name, off, width, bad, field, index, offset, text);
}
