/* afmt-gen: inflated regions (spec/LANGUAGE.md, "Inflated regions"): a
 * region whose size bytes are a zlib stream, its body read from what the
 * stream inflates to.  The loader's keys and the validator's open/close
 * (runtime/compress/afmt_inflated.c does the work); the writer refuses them. */
#include <string.h>

#include "emit.h"
#include "load.h"

/* "inflate", "inflated_size", "max_size" of region it (REGION_KEYS has
 * them). */
void load_inflated(loader *L, spec *s, json_t *o, const char *jp, item *it)
{
    region_item *r = &it->region;
    json_t *inf = json_object_get(o, "inflate"), *sz = json_object_get(o, "inflated_size"),
           *mx = json_object_get(o, "max_size");
    if (!inf) {
        if (sz || mx) LERR(L, jp, "\"inflated_size\" and \"max_size\" belong to a region with \"inflate\"");
        return;
    }
    if (!json_is_string(inf) || strcmp(json_string_value(inf), "zlib") != 0) {
        LERR(L, jp, "\"inflate\" names the compression of the region's bytes: \"zlib\" (RFC 1950)");
        return;
    }
    r->inflate = 1;
    if (json_object_get(o, "exact") || json_object_get(o, "lenient"))
        LERR(L, jp, "an inflated region is always exact (its stream ends at its end, its content fills what it inflates to): no \"exact\" or \"lenient\"");
    if (!sz) {
        LERR(L, jp, "an inflated region needs \"inflated_size\": an expression, or {\"at\", \"type\", \"plus\"} (an integer of the inflated bytes): the size is held to the limits before anything is inflated");
    } else if (json_is_object(sz)) {
        static const char *const keys[] = {"at", "type", "plus", NULL};
        char *pj = jp_key(jp, "inflated_size");
        json_t *at = json_object_get(sz, "at"), *pl = json_object_get(sz, "plus");
        char *type = get_str(L, sz, "type", pj, 1);
        field_item f;
        memset(&f, 0, sizeof f);
        check_keys(L, sz, pj, keys);
        if (!at || !json_is_integer(at) || json_integer_value(at) < 0 || json_integer_value(at) > 8)
            LERR(L, pj, "\"at\" is the offset of the size in the inflated bytes, an integer 0..8");
        else
            r->size_at = (unsigned)json_integer_value(at);
        if (type && parse_int_type(type, &f, s->big_endian) && !f.is_signed) {
            r->size_width = (unsigned)f.width;
            r->size_big = f.big_endian;
            r->size_order_explicit = f.order_explicit;
        } else if (type)
            LERR(L, pj, "\"type\" is an unsigned integer type (u8 .. u64, optionally le/be), not '%s'", type);
        if (pl && (!json_is_integer(pl) || json_integer_value(pl) < 0))
            LERR(L, pj, "\"plus\" is a non-negative integer (the bytes the size does not count)");
        else if (pl)
            r->size_plus = (uint64_t)json_integer_value(pl);
        free(type);
        free(pj);
    } else {
        r->out_size = get_expr(L, o, "inflated_size", jp, &r->out_size_text);
    }
    if (mx) {
        if (!json_is_integer(mx) || json_integer_value(mx) <= 0)
            LERR(L, jp, "\"max_size\" is a positive integer: the most bytes the region may inflate to");
        else
            r->max_size = (uint64_t)json_integer_value(mx);
    }
}

/* Open the inflated region it (the validator): rc is the C name of its
 * afmt_inflated pointer, sz the C expression of its compressed size. */
void emit_inflated_open(emitter *m, item *it, const char *sz)
{
    const region_item *r = &it->region;
    blame bl = blame_at(it->name, "AFMT_NO_INDEX", "c->pos");
    line(m, "afmt_inflated *iz_%s;", it->name);
    if (r->out_size) {
        char *n = emit_u64(m, &bl, r->out_size, r->out_size_text);
        line(m, "if (afmt_inflated_open(c, &iz_%s, \"%s\", %s, UINT64_C(%llu), 0, AFMT_INFLATED_KNOWN, 0, %s)) return -1;",
             it->name, it->name, sz, (unsigned long long)r->max_size, n);
        free(n);
    } else {
        line(m, "if (afmt_inflated_open(c, &iz_%s, \"%s\", %s, UINT64_C(%llu), %u, %u, %s, UINT64_C(%llu))) return -1;",
             it->name, it->name, sz, (unsigned long long)r->max_size, r->size_at, r->size_width,
             r->size_big == ORDER_RUN ? "AFMT_ORDER_RUN" : r->size_big ? "1" : "0", (unsigned long long)r->size_plus);
    }
}

void emit_inflated_close(emitter *m, item *it)
{
    line(m, "if (afmt_inflated_close(c, iz_%s)) return -1;", it->name);
}
