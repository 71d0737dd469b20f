/* afmt CLI: command-line option parser (see args.h). */
#include "args.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "suggest.h"

int afmt_cli_usage_error(const char *prog, const char *fmt, ...)
{
    va_list ap;

    if (fmt) {
        fprintf(stderr, "%s: ", prog);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
    }
    fprintf(stderr, "Try '%s --help' for more information.\n", prog);
    return AFMT_EXIT_ERROR;
}

void afmt_cli_args_init(afmt_cli_args *a, int argc, char **argv, int first,
                        const afmt_cli_optdef *defs, const char *prog)
{
    a->argc = argc;
    a->argv = argv;
    a->defs = defs;
    a->prog = prog;
    a->i = first;
    a->sub = 0;
    a->only_operands = 0;
}

static const afmt_cli_optdef *find_long(const afmt_cli_optdef *d,
                                        const char *name, size_t n)
{
    for (; d->id; d++)
        if (d->long_name && strlen(d->long_name) == n &&
            memcmp(d->long_name, name, n) == 0)
            return d;
    return NULL;
}

/* "unknown option '--NAME'", with the closest long option the command
 * has when one is close enough (see suggest.h). */
static void unknown_long(const afmt_cli_args *a, const char *name, size_t n)
{
    const char *cands[64];
    const char *best;
    size_t count = 0;
    const afmt_cli_optdef *d;

    for (d = a->defs; d->id && count < sizeof cands / sizeof cands[0]; d++)
        if (d->long_name)
            cands[count++] = d->long_name;
    best = afmt_cli_suggest(name, n, cands, count);
    if (best)
        afmt_cli_usage_error(a->prog, "unknown option '--%.*s' (did you mean '--%s'?)",
                             (int)n, name, best);
    else
        afmt_cli_usage_error(a->prog, "unknown option '--%.*s'", (int)n, name);
}

static const afmt_cli_optdef *find_short(const afmt_cli_optdef *d, int c)
{
    for (; d->id; d++)
        if (d->short_name == c)
            return d;
    return NULL;
}

/* The next option inside a bundle such as -qvj4 (a->sub: its place). */
static int next_short(afmt_cli_args *a, const char **value)
{
    const char *arg = a->argv[a->i];
    const afmt_cli_optdef *d = find_short(a->defs, (unsigned char)arg[a->sub]);

    if (!d) {
        afmt_cli_usage_error(a->prog, "unknown option '-%c'", arg[a->sub]);
        return AFMT_CLI_ARGS_ERROR;
    }
    if (d->has_arg) {
        if (arg[a->sub + 1]) {
            *value = arg + a->sub + 1;
            a->i++;
        } else if (a->i + 1 < a->argc) {
            *value = a->argv[a->i + 1];
            a->i += 2;
        } else {
            afmt_cli_usage_error(a->prog, "option '-%c' needs a value", arg[a->sub]);
            return AFMT_CLI_ARGS_ERROR;
        }
        a->sub = 0;
        return d->id;
    }
    a->sub++;
    if (!arg[a->sub]) {
        a->sub = 0;
        a->i++;
    }
    return d->id;
}

/* "--name", "--name=value" or "--name value" (arg: a->argv[a->i]). */
static int next_long(afmt_cli_args *a, const char *arg, const char **value)
{
    const char *name = arg + 2, *eq = strchr(name, '=');
    size_t n = eq ? (size_t)(eq - name) : strlen(name);
    const afmt_cli_optdef *d = find_long(a->defs, name, n);

    if (!d) {
        unknown_long(a, name, n);
        return AFMT_CLI_ARGS_ERROR;
    }
    a->i++;
    if (d->has_arg) {
        if (eq) {
            *value = eq + 1;
        } else if (a->i < a->argc) {
            *value = a->argv[a->i++];
        } else {
            afmt_cli_usage_error(a->prog, "option '--%s' needs a value", d->long_name);
            return AFMT_CLI_ARGS_ERROR;
        }
    } else if (eq) {
        afmt_cli_usage_error(a->prog, "option '--%s' takes no value", d->long_name);
        return AFMT_CLI_ARGS_ERROR;
    }
    return d->id;
}

int afmt_cli_args_next(afmt_cli_args *a, const char **value)
{
    const char *arg;

    *value = NULL;
    if (a->sub > 0)
        return next_short(a, value);
    if (a->i >= a->argc)
        return AFMT_CLI_ARGS_END;
    arg = a->argv[a->i];
    if (a->only_operands || arg[0] != '-' || arg[1] == '\0') {
        *value = arg;
        a->i++;
        return AFMT_CLI_ARGS_OPERAND;
    }
    if (arg[1] == '-' && arg[2] == '\0') {
        a->only_operands = 1;
        a->i++;
        return afmt_cli_args_next(a, value);
    }
    if (arg[1] == '-')
        return next_long(a, arg, value);
    a->sub = 1;
    return afmt_cli_args_next(a, value);
}

int afmt_cli_parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    uint64_t v = 0;

    if (!s || !*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    if (v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int afmt_cli_parse_size(const char *s, uint64_t *out)
{
    uint64_t v = 0, mul = 1;
    const char *p = s;

    if (!s || *s < '0' || *s > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    switch (*p) {
    case '\0': break;
    case 'k': case 'K': mul = (uint64_t)1 << 10; p++; break;
    case 'm': case 'M': mul = (uint64_t)1 << 20; p++; break;
    case 'g': case 'G': mul = (uint64_t)1 << 30; p++; break;
    case 't': case 'T': mul = (uint64_t)1 << 40; p++; break;
    default: return -1;
    }
    if (mul > 1 && (strcmp(p, "iB") == 0 || strcmp(p, "B") == 0))
        p += strlen(p);
    if (*p)
        return -1;
    if (v > UINT64_MAX / mul)
        return -1;
    *out = v * mul;
    return 0;
}

int afmt_cli_close_stdout(const char *prog, int status)
{
    int failed = fflush(stdout) != 0, e = errno;
    char reason[128] = "";

    if (!failed && !ferror(stdout))
        return status;
    /* the XSI strerror_r (no _GNU_SOURCE here) */
    if (failed && strerror_r(e, reason + 2, sizeof reason - 2) == 0)
        memcpy(reason, ": ", 2);
    if (status != AFMT_EXIT_ERROR)
        fprintf(stderr, "%s: error writing standard output%s\n", prog, reason);
    return AFMT_EXIT_ERROR;
}
