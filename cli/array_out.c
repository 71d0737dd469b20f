/* afmt CLI: one array as the reports show it (see array_out.h). */
#include "array_out.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "formats.h"
#include "json_out.h"

/* " (i16 stored, zero 32768)" after the values' type, for a view whose
 * values are not its stored elements: both types are shown. */
static void put_transform(afmt_cli_buf *b, const afmt_array *a)
{
    char how[160];

    if (!afmt_array_has_transform(a))
        return;
    afmt_array_describe_transform(a, how, sizeof how);
    afmt_cli_buf_printf(b, " (%s)", how);
}

void afmt_cli_put_array_label(afmt_cli_buf *b, uint64_t index, const afmt_array *a)
{
    int n;

    afmt_cli_buf_printf(b, "[%" PRIu64 "] ", index);
    if (a->name[0]) {
        size_t kept = strnlen(a->name, sizeof a->name);
        afmt_cli_buf_put_escaped(b, a->name, kept);
        if (a->name_len > kept) /* never shown as if it were the whole name */
            afmt_cli_buf_printf(b, "...(a name of %" PRIu64 " bytes, the first %zu shown)", a->name_len, kept);
        afmt_cli_buf_putc(b, ' ');
    }
    /* The shape is written in place: its length is known beforehand. */
    n = afmt_array_describe(a, NULL, 0);
    if (afmt_cli_buf_reserve(b, (size_t)n) == 0) {
        afmt_array_describe(a, b->p + b->len, (size_t)n + 1);
        b->len += (size_t)n;
    }
    put_transform(b, a);
    afmt_cli_buf_putc(b, ' ');
    if (a->strided) {
        /* a view over a shared payload: its strides say where each element is */
        uint32_t i, rank = a->rank <= AFMT_RANK_CAP ? a->rank : AFMT_RANK_CAP;
        afmt_cli_buf_puts(b, "strides [");
        for (i = 0; i < rank; i++)
            afmt_cli_buf_printf(b, "%s%" PRIu64, i ? "," : "", a->strides[i]);
        afmt_cli_buf_putc(b, ']');
        return;
    }
    afmt_cli_buf_puts(b, afmt_cli_order_name(a->order));
}

void afmt_cli_put_array_json(afmt_cli_buf *b, uint64_t index, const afmt_array *a)
{
    uint32_t i, rank = a->rank <= AFMT_RANK_CAP ? a->rank : AFMT_RANK_CAP;

    afmt_cli_buf_puts(b, "{\"index\":");
    afmt_cli_buf_u64(b, index);
    afmt_cli_buf_puts(b, ",\"name\":");
    afmt_cli_json_str(b, a->name, strnlen(a->name, sizeof a->name));
    if (a->name_len > strnlen(a->name, sizeof a->name)) {
        /* name holds only the first bytes of the file's name */
        afmt_cli_buf_puts(b, ",\"name_bytes\":");
        afmt_cli_buf_u64(b, a->name_len);
    }
    afmt_cli_buf_puts(b, ",\"dtype\":");
    afmt_cli_json_cstr(b, afmt_dtype_name(afmt_array_value_dtype(a)));
    if (afmt_array_has_transform(a)) {
        /* the values' type above; what the file stores, and how */
        afmt_cli_buf_puts(b, ",\"stored_dtype\":");
        afmt_cli_json_cstr(b, afmt_dtype_name(a->dtype));
        if (a->scaled)
            afmt_cli_buf_printf(b, ",\"scale\":%.17g,\"zero\":%.17g", a->scale, a->zero);
    }
    if (a->dtype == AFMT_OPAQUE && a->opaque_name[0]) {
        /* the format's name of the type: "F8_E4M3" */
        afmt_cli_buf_puts(b, ",\"opaque_name\":");
        afmt_cli_json_cstr(b, afmt_array_type_name(a));
    }
    afmt_cli_buf_puts(b, ",\"shape\":[");
    for (i = 0; i < rank; i++) {
        if (i)
            afmt_cli_buf_putc(b, ',');
        afmt_cli_buf_u64(b, a->dims[i]);
    }
    afmt_cli_buf_puts(b, "],\"order\":");
    afmt_cli_json_cstr(b, afmt_cli_order_name(a->order));
    if (a->strided) {
        /* element strides of a view over a shared payload (PyTorch's) */
        afmt_cli_buf_puts(b, ",\"strides\":[");
        for (i = 0; i < rank; i++) {
            if (i)
                afmt_cli_buf_putc(b, ',');
            afmt_cli_buf_u64(b, a->strides[i]);
        }
        afmt_cli_buf_putc(b, ']');
    }
    afmt_cli_buf_puts(b, ",\"offset\":");
    afmt_cli_buf_u64(b, a->offset);
    afmt_cli_buf_puts(b, ",\"nbytes\":");
    afmt_cli_buf_u64(b, a->nbytes);
    afmt_cli_buf_putc(b, '}');
}

void afmt_cli_array_text_label(char *out, size_t size, uint64_t index, const afmt_array *a)
{
    afmt_cli_buf b;
    int n;

    if (size == 0)
        return;
    afmt_cli_buf_init(&b);
    afmt_cli_buf_printf(&b, "[%" PRIu64 "] ", index);
    if (a->name[0]) {
        afmt_cli_buf_put_escaped(&b, a->name, strnlen(a->name, sizeof a->name));
        afmt_cli_buf_putc(&b, ' ');
    }
    n = afmt_array_describe(a, NULL, 0);
    if (n > 0 && afmt_cli_buf_reserve(&b, (size_t)n) == 0) {
        afmt_array_describe(a, b.p + b.len, (size_t)n + 1);
        b.len += (size_t)n;
    }
    put_transform(&b, a);
    if (b.oom || !b.p) {
        snprintf(out, size, "[%" PRIu64 "]", index);
    } else {
        size_t k = b.len < size - 1 ? b.len : size - 1;
        memcpy(out, b.p, k);
        out[k] = '\0';
    }
    afmt_cli_buf_free(&b);
}
