/* afmt runtime: buffers and streams as validator input. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "../array/afmt_array.h"
#include "../common/afmt_bytes.h"
#include "../core/afmt_fields.h"
#include "afmt_src.h"

void afmt_src_buffer(afmt_src *s, const void *buf, uint64_t len)
{
    memset(s, 0, sizeof *s);
    s->data = buf;
    s->data_len = len;
    s->len = len;
}

void afmt_src_stream(afmt_src *s, uint8_t *win, uint64_t cap,
                     int (*read)(void *ctx, uint8_t *buf, size_t n, size_t *got), void *ctx)
{
    memset(s, 0, sizeof *s);
    s->data = win;
    s->win = win;
    s->cap = cap;
    s->len = AFMT_LEN_UNKNOWN;
    s->read = read;
    s->ctx = ctx;
}

void afmt_src_seekable(afmt_src *s, uint8_t *win, uint64_t cap, uint64_t len,
                       int (*pread)(void *ctx, uint8_t *buf, size_t n, uint64_t offset, size_t *got), void *ctx)
{
    memset(s, 0, sizeof *s);
    s->data = win;
    s->win = win;
    s->cap = cap;
    s->len = len;
    s->pread = pread;
    s->ctx = ctx;
}

/* What a seekable source reads at a time of a payload it scans. */
#define SCAN_PIECE ((uint64_t)1 << 20)

/* Drop buffered bytes before keep_from (or before pos, whichever is lower)
 * by moving the rest to the start of the window. */
static void compact(afmt_src *s, uint64_t pos)
{
    uint64_t from = s->keep_from < pos ? s->keep_from : pos, drop;
    if (from <= s->data_off)
        return;
    drop = from - s->data_off;
    if (drop > s->data_len)
        drop = s->data_len;
    memmove(s->win, s->win + drop, (size_t)(s->data_len - drop));
    s->data_off += drop;
    s->data_len -= drop;
}

/* Read more bytes at the end of the buffered data (a seekable source: at
 * its offset, data_off + data_len); 0 at end of input. */
static int read_more(afmt_src *s, uint64_t want)
{
    size_t got = 0;
    const uint64_t room = s->cap - s->data_len, at = s->data_off + s->data_len;
    int rc;
    if (room == 0)
        return 0;
    if (s->pread) {
        if (at >= s->len)
            return 0;
        if (want > s->len - at)
            want = s->len - at;
    } else if (s->len != AFMT_LEN_UNKNOWN) {
        return 0;
    }
    if (want > room)
        want = room;
    rc = s->pread ? s->pread(s->ctx, s->win + s->data_len, (size_t)want, at, &got)
                  : s->read(s->ctx, s->win + s->data_len, (size_t)want, &got);
    /* a seekable source knows its length: nothing where bytes should be
     * is a file cut short meanwhile, an error as a failed read is */
    if (rc != 0 || (got == 0 && s->pread)) {
        s->io_error = 1;
        if (!s->pread)
            s->len = at; /* nothing more will come */
        return 0;
    }
    if (got == 0) {
        s->len = at;
        return 0;
    }
    s->data_len += got;
    return 1;
}

int afmt_src_fill(afmt_src *s, uint64_t pos, uint64_t n)
{
    uint64_t need_end;
    if (!afmt_src_windowed(s) || pos < s->data_off || afmt_checked_add_u64(pos, n, &need_end))
        return 0;
    /* bytes the stream already passed (dropped) are gone */
    if (need_end - s->data_off > s->cap)
        compact(s, pos);
    if (need_end - s->data_off > s->cap)
        return 0;
    while (s->data_off + s->data_len < need_end)
        if (!read_more(s, need_end - (s->data_off + s->data_len) > 65536 ? need_end - (s->data_off + s->data_len) : 65536))
            return 0;
    return 1;
}

/* "3 elements of 8 bytes (24 bytes)", "1 byte for magic": what is needed,
 * in true numbers whatever their size. */
static void describe_need(char *buf, size_t cap, uint64_t count, uint64_t width, const char *what)
{
    uint64_t bytes;

    if (width == 0) {
        snprintf(buf, cap, "%" PRIu64 " byte%s for %s", count, count == 1 ? "" : "s", what);
    } else if (afmt_checked_mul_u64(count, width, &bytes) == 0) {
        snprintf(buf, cap, "%" PRIu64 " element%s of %" PRIu64 " byte%s (%" PRIu64 " byte%s)", count,
                 count == 1 ? "" : "s", width, width == 1 ? "" : "s", bytes, bytes == 1 ? "" : "s");
    } else {
        snprintf(buf, cap, "%" PRIu64 " elements of %" PRIu64 " bytes (more than 2^64 bytes)", count, width);
    }
}

int afmt_src_short_ex(afmt_src *s, afmt_error *err, const afmt_path *path, const char *field,
                      uint64_t index, uint64_t pos, uint64_t end, uint64_t count, uint64_t width,
                      const char *what, const afmt_region_ctx *region)
{
    uint64_t real_end, n, left;
    char need[160];

    /* the bytes needed, saturated only for the comparisons below */
    if (width != 0 && afmt_checked_mul_u64(count, width, &n))
        n = UINT64_MAX;
    else if (width != 0)
        n = count * width;
    else
        n = count;
    /* A stream that could not hold what was asked does not know yet
     * whether the input is long enough: read on to its end (in constant
     * memory; the validation fails either way) so that a short input is
     * called truncated, as it is from a file. */
    if (s->read && s->len == AFMT_LEN_UNKNOWN && !s->io_error)
        afmt_src_rest(s, s->data_off + s->data_len);
    /* the input may end before the region does: judge by what is known */
    real_end = end < s->len ? end : s->len;
    if (s->io_error)
        return afmt_fail(err, AFMT_E_IO, path, field, index, pos, "reading the input failed");
    if (real_end != AFMT_LEN_UNKNOWN && (pos > real_end || real_end - pos < n)) {
        left = pos <= real_end ? real_end - pos : 0;
        describe_need(need, sizeof need, count, width, what);
        /* the region ends before the field and the input does not end
         * before the region: the region is too short (header_len = 0), and
         * when the input ends there too (nothing after header_len = 0),
         * that is said beside it, not instead */
        if (region && end <= s->len && (pos > end || end - pos < n)) {
            const char *also = s->len - pos >= n && pos <= s->len ? "" : ", and the input ends there too";
            if (region->size_field)
                return afmt_fail(err, AFMT_E_TRUNCATED, path, field, index, pos,
                                 "needs %s, only %" PRIu64 " left in region %s: %s = %" PRIu64
                                 " is too short for its fields%s", need, left, region->name,
                                 region->size_field, region->size, also);
            return afmt_fail(err, AFMT_E_TRUNCATED, path, field, index, pos,
                             "needs %s, only %" PRIu64 " left in region %s: its %" PRIu64
                             " byte%s are too few for its fields%s", need, left, region->name,
                             region->size, region->size == 1 ? "" : "s", also);
        }
        return afmt_fail(err, AFMT_E_TRUNCATED, path, field, index, pos, "needs %s, only %" PRIu64 " left",
                         need, left);
    }
    /* what the window cannot hold: a caller that can map the input may
     * try again from memory */
    s->window_short = 1;
    if (pos < s->data_off)
        return afmt_fail(err, AFMT_E_LIMIT, path, field, index, pos, "%s lies before the %s window (offset %" PRIu64
                         ")%s", what, s->pread ? "read" : "stream", s->data_off,
                         s->pread ? "" : ": validate the file instead");
    return afmt_fail(err, AFMT_E_LIMIT, path, field, index, pos,
                     "%s needs %" PRIu64 " bytes in memory, more than the %s window of %" PRIu64 "%s", what, n,
                     s->pread ? "read" : "stream", s->cap, s->pread ? "" : ": validate the file instead");
}

int afmt_src_short(afmt_src *s, afmt_error *err, const afmt_path *path, const char *field,
                   uint64_t index, uint64_t pos, uint64_t end, uint64_t n, const char *what)
{
    return afmt_src_short_ex(s, err, path, field, index, pos, end, n, 0, what, NULL);
}

int afmt_src_take(afmt_src *s, uint64_t end, uint64_t pos, uint64_t n, afmt_scan_fn scan, void *ctx,
                  uint64_t *bad)
{
    uint64_t done = 0;
    *bad = n;
    if (pos > end || end - pos < n)
        return 0;
    if (!afmt_src_windowed(s) || (n <= s->cap / 2 && afmt_src_fill(s, pos, n))) {
        if (!afmt_src_windowed(s) && (pos < s->data_off || s->data_len - (pos - s->data_off) < n))
            return 0;
        if (scan && n > 0) {
            *bad = scan(ctx, AFMT_B(s, pos), n, 0);
            if (*bad < n)
                s->bad_byte = *AFMT_B(s, pos + *bad);
        }
        /* A payload kept in the window does not move keep_from: the item
         * it belongs to may still read its header fields (tenbin reads
         * dims again after the header padding), and only the start of the
         * next item (or a payload too large to keep) releases them. */
        return 1;
    }
    if (s->pread && !scan) {
        /* nothing reads it: a seekable source moves past it unread */
        if (pos > s->len || s->len - pos < n)
            return 0;
        afmt_src_keep_from(s, pos + n);
        if (pos + n >= s->data_off + s->data_len) {
            s->data_off = pos + n;
            s->data_len = 0;
        } else {
            compact(s, pos + n);
        }
        return 1;
    }
    /* a stream, and more than half the window: read it through in chunks,
     * keeping nothing of it (or of what came before) */
    afmt_src_keep_from(s, pos);
    while (done < n) {
        uint64_t at = pos + done, end_buf = s->data_off + s->data_len, chunk;
        if (at < s->data_off)
            return 0; /* already dropped: cannot happen after keep_from */
        if (at >= end_buf) {
            /* nothing buffered at `at` (bytes before it, if any, are not
             * needed): empty the window and read on (a seekable source
             * from `at` itself, not through the gap) */
            s->data_off = s->pread ? at : end_buf;
            s->data_len = 0;
            /* a seekable source reads a cache-sized piece at a time: it
             * is scanned while still in the CPU's cache (a pipe gives
             * what it has) */
            if (!read_more(s, s->pread && s->cap > SCAN_PIECE ? SCAN_PIECE : s->cap))
                return 0;
            continue;
        }
        chunk = end_buf - at < n - done ? end_buf - at : n - done;
        if (scan && *bad == n) {
            uint64_t b = scan(ctx, AFMT_B(s, at), chunk, done);
            if (b < chunk) {
                *bad = done + b;
                s->bad_byte = *AFMT_B(s, at + b);
            }
        }
        done += chunk;
    }
    afmt_src_keep_from(s, pos + n);
    compact(s, pos + n);
    return 1;
}

void afmt_src_skip_blank(afmt_src *s, uint64_t end, uint64_t *pos, int comments, int release,
                         uint64_t *ncomments)
{
    uint64_t p = *pos;
    int in_comment = 0;

    for (;;) {
        unsigned c;
        /* keep_from follows p: a stream's window then always has room for
         * the next byte, however long the run of blanks */
        if (release)
            afmt_src_keep_from(s, p);
        if (!afmt_src_have(s, end, p, 1))
            break;
        c = *AFMT_B(s, p);
        if (in_comment) {
            in_comment = c != '\n';
            p++;
        } else if (afmt_is_space(c)) {
            p++;
        } else if (comments && c == '-' && afmt_src_have(s, end, p, 2) && *AFMT_B(s, p + 1) == '-') {
            if (ncomments)
                (*ncomments)++;
            in_comment = 1;
            p += 2;
        } else {
            break;
        }
    }
    *pos = p;
}

int afmt_src_skip_to(afmt_src *s, uint64_t off)
{
    if (!afmt_src_windowed(s))
        return off <= s->len;
    if (off <= s->data_off + s->data_len)
        return 1;
    /* near: read up to it, keeping what the current item may still read
     * (everything from keep_from on: a skipped region ends before the
     * item's later fields and checks, which read the fields before it) */
    if (off - (s->keep_from > s->data_off ? s->keep_from : s->data_off) <= s->cap &&
        afmt_src_fill(s, off - 1, 1))
        return 1;
    if (s->pread) {
        /* far: seek there, unless bytes of the current item are buffered
         * (they may be read again, as for a stream) */
        if (off > s->len || s->keep_from < s->data_off + s->data_len)
            return 0;
        s->data_off = off;
        s->data_len = 0;
        afmt_src_keep_from(s, off);
        return 1;
    }
    if (s->len != AFMT_LEN_UNKNOWN)
        return off <= s->len;
    /* far, with bytes of the current item buffered: reading through would
     * drop them, and they may be read again.  Fail without reading on;
     * afmt_src_short then tells a truncated input from one whose item is
     * larger than the window (AFMT_E_LIMIT). */
    if (s->keep_from < s->data_off + s->data_len)
        return 0;
    /* far: read through, dropping everything before off */
    while (s->data_off + s->data_len < off) {
        uint64_t gap = off - (s->data_off + s->data_len);
        s->data_off += s->data_len;
        s->data_len = 0;
        if (!read_more(s, gap < s->cap ? gap : s->cap))
            return 0;
    }
    afmt_src_keep_from(s, off);
    return 1;
}

uint64_t afmt_src_rest(afmt_src *s, uint64_t pos)
{
    if (!s->read)
        return pos < s->len ? s->len - pos : 0;
    /* keep it if it fits, else count it through */
    while (s->len == AFMT_LEN_UNKNOWN && s->data_off + s->data_len - (pos < s->data_off ? s->data_off : pos) < s->cap / 2)
        if (!afmt_src_fill(s, pos < s->data_off ? s->data_off : pos, s->data_off + s->data_len - pos + 1))
            break;
    while (s->len == AFMT_LEN_UNKNOWN) {
        afmt_src_keep_from(s, s->data_off + s->data_len);
        s->data_off += s->data_len;
        s->data_len = 0;
        if (!read_more(s, s->cap))
            break;
    }
    return pos < s->len ? s->len - pos : 0;
}

const uint8_t *afmt_src_ptr(const afmt_src *s, uint64_t pos, uint64_t n)
{
    if (pos < s->data_off || pos - s->data_off > s->data_len || s->data_len - (pos - s->data_off) < n)
        return NULL;
    if (afmt_src_windowed(s))
        return NULL; /* a stream's window moves on: never hand out its bytes */
    return AFMT_B(s, pos);
}

int afmt_src_equal_at(afmt_src *s, uint64_t off, const uint8_t *p, uint64_t n)
{
    uint8_t chunk[4096];
    uint64_t done = 0;
    if (off >= s->data_off && off - s->data_off <= s->data_len && s->data_len - (off - s->data_off) >= n)
        return n == 0 || memcmp(AFMT_B(s, off), p, (size_t)n) == 0;
    if (!s->pread || off > s->len || s->len - off < n)
        return -1;
    while (done < n) {
        size_t want = n - done < sizeof chunk ? (size_t)(n - done) : sizeof chunk, got = 0;
        if (s->pread(s->ctx, chunk, want, off + done, &got) != 0 || got == 0) {
            s->io_error = 1;
            return -1;
        }
        if (memcmp(chunk, p + done, got) != 0)
            return 0;
        done += got;
    }
    return 1;
}

uint64_t afmt_src_scan_bool(void *ctx, const uint8_t *p, uint64_t n, uint64_t at)
{
    (void)ctx;
    (void)at;
    return afmt_scan_not_bool(p, n);
}

uint64_t afmt_src_scan_zero(void *ctx, const uint8_t *p, uint64_t n, uint64_t at)
{
    (void)ctx;
    (void)at;
    return afmt_scan_nonzero(p, n);
}

uint64_t afmt_src_scan_pad_bits(void *ctx, const uint8_t *p, uint64_t n, uint64_t at)
{
    uint64_t bits = *(const uint64_t *)ctx, total = afmt_ceil_div_u64(bits, 8);
    /* only the chunk holding the last byte matters */
    if (bits % 8 == 0 || at + n != total)
        return n;
    return (p[n - 1] >> (bits % 8)) != 0 ? n - 1 : n;
}

/* Does the token at p[at] end within p[0..n): is a byte that no literal
 * or name can hold (a delimiter, or anything else outside letters, digits
 * and _ . + -) there?  Then the token was seen whole. */
static int delimited(const uint8_t *p, uint64_t at, uint64_t n)
{
    for (; at < n; at++) {
        uint8_t c = p[at];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.' ||
              c == '+' || c == '-'))
            return 1;
    }
    return 0;
}

/* A text value the window cannot hold whole. */
static int text_too_long(afmt_src *s, const afmt_path *path, uint64_t pos, afmt_error *err)
{
    s->window_short = 1;
    return afmt_fail(err, AFMT_E_LIMIT, path, "value", AFMT_NO_INDEX, pos,
                     "a text value longer than the %s window (%" PRIu64 " bytes)%s", s->pread ? "read" : "stream",
                     s->cap, s->pread ? "" : ": validate the file instead");
}

int afmt_src_text(afmt_src *s, uint64_t end, uint64_t pos, afmt_text_scan_fn scan, uint64_t max_rank,
                  uint64_t *vend, afmt_array *view, const afmt_path *path, afmt_error *err)
{
    uint64_t avail = 0, e = 0, want = 4096;
    const int windowed = afmt_src_windowed(s);
    if (windowed)
        afmt_src_keep_from(s, pos); /* bytes before the value are not needed */
    for (;;) {
        int whole, rc; /* whole: the buffer reaches the end of the input (or region) */
        uint64_t before = avail;
        if (windowed && (s->len == AFMT_LEN_UNKNOWN || s->pread)) {
            /* read a little more than last time (doubling: linear overall) */
            uint64_t have_now = pos >= s->data_off && pos <= s->data_off + s->data_len ? s->data_off + s->data_len - pos : 0;
            if (have_now < want)
                (void)afmt_src_fill(s, pos, want);
        }
        if (pos < s->data_off || pos > s->data_off + s->data_len)
            return afmt_src_short(s, err, path, "value", AFMT_NO_INDEX, pos, end, 1, "a text value");
        avail = s->data_off + s->data_len - pos;
        if (end != AFMT_LEN_UNKNOWN && avail > end - pos)
            avail = end - pos;
        whole = !windowed || (end != AFMT_LEN_UNKNOWN && avail == end - pos) ||
                (s->len != AFMT_LEN_UNKNOWN && pos + avail >= s->len);
        rc = scan(AFMT_B(s, pos), avail, 0, max_rank, &e, view, err);
        if (rc != 0) {
            /* a stream's window may cut the value: a verdict is final only
             * when the input ended there, or the failing token was seen whole */
            int sure = whole || (err->code != AFMT_E_TRUNCATED && delimited(AFMT_B(s, pos), err->offset, avail));
            if (sure)
                /* the path already names the value: keep only an element part */
                return afmt_error_reblame(err, path,
                                          err->field[0] && strcmp(err->field, "value") != 0 ? err->field : NULL,
                                          AFMT_NO_INDEX, pos + err->offset);
        } else if (whole || e < avail) {
            break; /* it ended before the buffered bytes did: it is whole */
        }
        /* not sure yet: read more, unless the window cannot grow */
        if (avail >= s->cap || (avail == before && want > s->cap))
            return text_too_long(s, path, pos, err);
        want = want > s->cap / 2 ? s->cap : want * 2;
        if (avail == before && s->len != AFMT_LEN_UNKNOWN)
            return text_too_long(s, path, pos, err);
    }
    *vend = pos + e;
    view->offset += pos;
    view->data = windowed ? NULL : AFMT_B(s, view->offset);
    return 0;
}
