/* Archive member name patterns (runtime/archive/afmt_ar_rules.c): what a pattern
 * matches and what its captures take, {*x} with a literal ending
 * ("{*key}.ten": a WebDataset sample's files in any folder) among them,
 * and the patterns afmt_archive_desc_check refuses.  One row per case. */
#include <string.h>

#include "archive/afmt_ar_run.h"
#include "check.h"
#include "tenbin.h"

typedef struct match_case {
    const char *pattern, *name;
    int matches;
    const char *first; /* the first capture's value, when it matches */
} match_case;

static const match_case matches[] = {
    {"{*key}.ten", "000001.ten", 1, "000001"},
    {"{*key}.ten", "train/000001.ten", 1, "train/000001"},
    {"{*key}.ten", "a/b/c.d.ten", 1, "a/b/c.d"},
    {"{*key}.ten", ".ten", 0, NULL},           /* the capture takes one byte at least */
    {"{*key}.ten", "000001.tenx", 0, NULL},
    {"{*key}.ten", "000001.npy", 0, NULL},
    {"{*key}.ten", "ten", 0, NULL},
    {"x/{*key}.ten", "x/y/z.ten", 1, "y/z"},
    {"x/{*key}.ten", "y/z.ten", 0, NULL},
    {"{prefix}/{*rest}", "arch/data/0", 1, "arch"},
    {"{name}.npy", "w.npy", 1, "w"},
    {"{name}.npy", "d/w.npy", 0, NULL},        /* {x} takes no '/' */
    {"{key:decimal}", "012", 0, NULL},
};

typedef struct desc_case {
    const char *pattern;
    int ok;
} desc_case;

static const desc_case descs[] = {
    {"{*key}.ten", 1},
    {"{*key}", 1},
    {"{*key}/x.ten", 0},  /* a '/' after {*x}: not only an ending */
    {"{*key}.{ext}", 0},  /* a capture after {*x} */
    {"{*key}}", 0},
};

int main(void)
{
    size_t i;
    char name[160];

    for (i = 0; i < sizeof matches / sizeof matches[0]; i++) {
        const match_case *c = &matches[i];
        afmt_ar_span spans[AFMT_AR_CAPTURES_MAX + 1];
        int got = afmt_ar_match(c->pattern, (const uint8_t *)c->name, strlen(c->name), spans);
        int ok = got == c->matches && (!got || (spans[0].len == strlen(c->first) &&
                                                memcmp(c->name + spans[0].at, c->first, spans[0].len) == 0));
        snprintf(name, sizeof name, "\"%s\" %s \"%s\"%s%s", c->pattern, c->matches ? "matches" : "does not match",
                 c->name, c->first ? ", capturing " : "", c->first ? c->first : "");
        CHECK(name, ok);
    }
    for (i = 0; i < sizeof descs / sizeof descs[0]; i++) {
        afmt_ar_rule rule;
        afmt_archive_desc d;
        afmt_error err;
        int rc;
        memset(&rule, 0, sizeof rule);
        rule.pattern = descs[i].pattern;
        rule.action = AFMT_AR_FORMAT;
        rule.format = &afmt_tenbin_format;
        rule.sets = rule.endian_var = rule.record_rule = -1;
        memset(&d, 0, sizeof d);
        d.format = "test";
        d.name = "archive";
        d.kind = AFMT_AR_TAR;
        d.methods = 1;
        d.rules = &rule;
        d.nrules = 1;
        afmt_error_clear(&err);
        rc = afmt_archive_desc_check(&d, &err);
        snprintf(name, sizeof name, "a rule named \"%s\" is %s", descs[i].pattern, descs[i].ok ? "taken" : "refused");
        CHECK(name, descs[i].ok ? rc == 0
                                : rc != 0 && err.code == AFMT_E_USAGE && strcmp(err.field, "rules[0].pattern") == 0);
    }
    CHECK_DONE();
}
