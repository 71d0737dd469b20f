/* afmt CLI: --spec FILE (see spec.h). */
#include "spec.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* LeakSanitizer's, when it is linked in (weak: NULL otherwise). */
void __lsan_ignore_object(const void *p) __attribute__((weak));

afmt_interp *afmt_cli_spec_arg(const char *prog, const char *path)
{
    afmt_interp_refusal why;
    afmt_interp *in = afmt_interp_load_why(path, &why);
    /* kept until the process exits, by design (spec.h) */
    if (in && __lsan_ignore_object)
        __lsan_ignore_object(in);
    if (why == AFMT_INTERP_BAD_SPEC)
        fprintf(stderr, "%s: --spec %s: not a usable spec (see the lines above; "
                        "'afmt-gen --check %s' says the same)\n", prog, path, path);
    else if (why == AFMT_INTERP_UNSUPPORTED)
        fprintf(stderr, "%s: --spec %s: afmt-gen accepts this spec, but the interpreter does not run "
                        "the item named above yet: generate its C instead (make EXTRA_SPECS=DIR)\n", prog, path);
    else if (why == AFMT_INTERP_NOMEM)
        fprintf(stderr, "%s: --spec %s: out of memory loading the spec\n", prog, path);
    return in;
}

static int is_interp(const afmt_interp *in, const afmt_format *fmt)
{
    return in && fmt == afmt_interp_format(in);
}

int afmt_cli_validate(const afmt_interp *in, const afmt_format *fmt, const uint8_t *buf,
                      uint64_t len, const afmt_options *opt, const afmt_visitor *vis,
                      afmt_error *err)
{
    if (is_interp(in, fmt))
        return afmt_interp_validate(in, buf, len, opt, vis, err);
    return fmt->validate(buf, len, opt, vis, err);
}

int afmt_cli_validate_src(const afmt_interp *in, const afmt_format *fmt, afmt_src *src,
                          const afmt_options *opt, const afmt_visitor *vis, afmt_error *err)
{
    if (is_interp(in, fmt))
        return afmt_interp_validate_src(in, src, opt, vis, err);
    return fmt->validate_src(src, opt, vis, err);
}

/* name ends in one of fmt's extensions, ignoring ASCII case (as the
 * registry's afmt_format_by_extension) */
static int has_extension(const afmt_format *fmt, const char *name)
{
    size_t n = strlen(name), i;
    for (i = 0; fmt->extensions && fmt->extensions[i]; i++) {
        size_t e = strlen(fmt->extensions[i]);
        if (e <= n && strcasecmp(name + n - e, fmt->extensions[i]) == 0)
            return 1;
    }
    return 0;
}

int afmt_cli_looks_like(const afmt_interp *in, const afmt_format *fmt, const uint8_t *buf,
                        uint64_t len, const char *name)
{
    if (is_interp(in, fmt)) {
        if (afmt_interp_detect(in, buf, len))
            return 1;
        return name && has_extension(fmt, name);
    }
    if (fmt->detect && fmt->detect(buf, len) == 1)
        return 1;
    return name && afmt_format_by_extension(name, NULL) == fmt;
}
