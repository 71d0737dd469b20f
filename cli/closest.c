/* afmt CLI: the closest format to an undetected input (see closest.h). */
#include "closest.h"
#include "identify.h"

#include <stdio.h>
#include <string.h>

#include "fail.h"
#include "visitor.h"

/* How many leading characters of the expected and found bytes agree in a
 * runtime message `expected "A", found "B"` (afmt_fail_bytes' wording);
 * 0 for any other message. */
static uint64_t magic_agreement(const char *msg)
{
    const char *a = strstr(msg, "expected \""), *b = strstr(msg, "\", found \"");
    uint64_t n = 0;

    if (!a || !b || b < a)
        return 0;
    a += strlen("expected \"");
    b += strlen("\", found \"");
    while (a[n] && a[n] != '"' && a[n] == b[n])
        n++;
    return n;
}

afmt_cli_closeness afmt_cli_closest(const uint8_t *buf, uint64_t len, int partial,
                                    const afmt_options *opt, const afmt_format **fmt,
                                    afmt_error *err)
{
    afmt_visitor vis;
    afmt_error e;
    uint64_t best_offset = 0, best_agree = 0;
    size_t i;
    int found = 0;

    afmt_cli_visitor_init(&vis, NULL);
    *fmt = NULL;
    for (i = 0; i < afmt_format_count; i++) {
        const afmt_format *f = afmt_formats[i];
        uint64_t agree;
        if (!f)
            continue;
        afmt_error_clear(&e);
        if (f->validate(buf, len, opt, &vis, &e) == 0) {
            if (!partial) {
                *fmt = f;
                return AFMT_CLI_ACCEPTED;
            }
            continue;
        }
        if (partial && e.code == AFMT_E_TRUNCATED)
            continue;
        agree = magic_agreement(e.message);
        if (e.offset == 0 && agree == 0)
            continue; /* nothing in common */
        if (!found || e.offset > best_offset ||
            (e.offset == best_offset && agree > best_agree)) {
            found = 1;
            best_offset = e.offset;
            best_agree = agree;
            *fmt = f;
            *err = e;
        }
    }
    return found ? AFMT_CLI_CLOSEST : AFMT_CLI_NOTHING_CLOSE;
}

const afmt_format *afmt_cli_undetected(const uint8_t *buf, uint64_t len, int partial,
                                       const afmt_options *opt, const char *option,
                                       afmt_error *err, int *closest)
{
    const afmt_format *fmt;
    afmt_error e;

    *closest = 0;
    afmt_error_clear(&e);
    if (afmt_cli_identify(buf, len) != AFMT_CLI_KIND_NONE) {
        afmt_error_clear(err);
        afmt_cli_fail(err, AFMT_E_DETECT, NULL, 0, "%s", afmt_cli_kind_text(afmt_cli_identify(buf, len)));
        return NULL;
    }
    switch (afmt_cli_closest(buf, len, partial, opt, &fmt, &e)) {
    case AFMT_CLI_ACCEPTED:
        afmt_error_clear(err);
        afmt_cli_fail(err, AFMT_E_DETECT, NULL, AFMT_NO_OFFSET,
                      "no format's magic or extension matches, but it reads as valid %s: "
                      "pass %s %s", fmt->name, option, fmt->name);
        return NULL;
    case AFMT_CLI_CLOSEST:
        *err = e;
        afmt_cli_error_set_format(err, fmt->name);
        *closest = 1;
        return fmt;
    default:
        afmt_error_clear(err);
        afmt_cli_fail(err, AFMT_E_DETECT, NULL, AFMT_NO_OFFSET, "%s",
                      "no known format matches (magic or extension)");
        return NULL;
    }
}

typedef struct text_count {
    uint64_t arrays, text;
} text_count;

static int count_text_array(void *ctx, const afmt_array *a)
{
    text_count *t = ctx;

    t->arrays++;
    t->text += a->encoding == AFMT_ENC_TEXT;
    return 0;
}

const afmt_format *afmt_cli_detect_text(const uint8_t *buf, uint64_t len, int partial,
                                        const afmt_options *opt)
{
    afmt_visitor vis;
    afmt_error e;
    size_t i;

    if (partial || len == 0)
        return NULL;
    for (i = 0; i < afmt_format_count; i++) {
        const afmt_format *f = afmt_formats[i];
        text_count t = { 0, 0 };

        if (!f)
            continue;
        afmt_cli_visitor_init(&vis, &t);
        vis.on_array = count_text_array;
        afmt_error_clear(&e);
        if (f->validate(buf, len, opt, &vis, &e) == 0 && t.arrays > 0 && t.text == t.arrays)
            return f;
    }
    return NULL;
}

void afmt_cli_empty_error(const afmt_options *opt, const char *option, afmt_error *err)
{
    const afmt_format *fmt = NULL;
    afmt_error e;
    static const uint8_t nothing[1];

    afmt_error_clear(err);
    if (afmt_cli_closest(nothing, 0, 0, opt, &fmt, &e) == AFMT_CLI_ACCEPTED && fmt)
        afmt_cli_fail(err, AFMT_E_DETECT, NULL, AFMT_NO_OFFSET,
                      "empty file (%s %s reads it as a %s file of no arrays)", option, fmt->name,
                      fmt->name);
    else
        afmt_cli_fail(err, AFMT_E_DETECT, NULL, AFMT_NO_OFFSET, "empty file");
}
