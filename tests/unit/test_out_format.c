/* cli/out_format.h: the one rule by which afmt random and afmt convert
 * name an output's format (issue 36, point 5): an OUT whose extension
 * names a format gets that format or a refusal saying why. */
#include <stdio.h>
#include <string.h>

#include "../../cli/out_format.h"
#include "check.h"

typedef struct out_case {
    const char *name;
    const char *out;      /* OUT as given; NULL: standard output */
    const char *asked;    /* --to, or NULL */
    const char *fallback; /* the command's default, or NULL */
    const char *want;     /* the format chosen, or NULL: refused */
    const char *why_has;  /* refused: a phrase of the reason */
} out_case;

static const out_case out_cases[] = {
    { "npz by extension (random's default not taken)", "two.npz", NULL, "futhark", "npz", NULL },
    { "extension case ignored", "TWO.NPZ", NULL, "futhark", "npz", NULL },
    { "a longer name's last extension", "model.tar.safetensors", NULL, NULL, "safetensors", NULL },
    { ".bin is torch's without --to", "x.bin", NULL, "futhark", "torch", NULL },
    { ".bin: --to chooses", "x.bin", "futhark", "futhark", "futhark", NULL },
    { ".BIN: --to chooses", "d/x.BIN", "tenbin", NULL, "tenbin", NULL },
    { "unknown extension refused", "two.xyz", NULL, "futhark", NULL, "extension '.xyz' of 'two.xyz'" },
    { "a format afmt does not write refused", "w.h5", NULL, "futhark", NULL, "'.h5'" },
    { ".txt refused, pointing at --text", "v.txt", NULL, "futhark", NULL, "--to futhark --text" },
    { "unknown extension with --to: --to", "t.out", "tenbin", NULL, "tenbin", NULL },
    { "--to against the extension refused", "x.safetensors", "gguf", NULL, NULL,
      "has the extension of safetensors (.safetensors), but the format asked for is gguf" },
    { "--to agreeing with the extension", "x.safetensors", "safetensors", NULL, "safetensors", NULL },
    { "--to npz against .npy refused", "x.npy", "npz", NULL, NULL, "ask for npy" },
    { "no extension: the default", "data", NULL, "futhark", "futhark", NULL },
    { "a dot in a folder is no extension", "run.1/data", NULL, "futhark", "futhark", NULL },
    { "a leading dot is no extension", "dir/.hidden", NULL, "futhark", "futhark", NULL },
    { "no extension and no default refused", "data", NULL, NULL, NULL, "it has no extension" },
    { "standard output: the default", "-", NULL, "futhark", "futhark", NULL },
    { "standard output: --to", NULL, "npy", NULL, "npy", NULL },
    { "standard output without either refused", "-", NULL, NULL, NULL,
      "standard output has no extension to tell the format by" },
};

static void test_output_format(void)
{
    size_t i;
    char why[AFMT_CLI_OUT_FORMAT_WHY], name[160];

    for (i = 0; i < sizeof out_cases / sizeof out_cases[0]; i++) {
        const out_case *c = &out_cases[i];
        const afmt_format *asked = c->asked ? afmt_format_by_name(c->asked) : NULL;
        const afmt_format *fallback = c->fallback ? afmt_format_by_name(c->fallback) : NULL;
        const afmt_format *got;

        snprintf(name, sizeof name, "output format: %s", c->name);
        if ((c->asked && !asked) || (c->fallback && !fallback)) {
            printf("FAIL %s: a format of the case is not in this build\n", name);
            check_failures++;
            continue;
        }
        got = afmt_cli_output_format(c->out, asked, fallback, why, sizeof why);
        if (c->want)
            CHECK(name, got && strcmp(got->name, c->want) == 0 && why[0] == '\0');
        else
            CHECK(name, !got && strstr(why, c->why_has) != NULL);
    }
}

typedef struct ext_case {
    const char *path, *want;
} ext_case;

static const ext_case ext_cases[] = {
    { "a.npz", ".npz" }, { "a.b.c", ".c" }, { "x.y/z", "" }, { ".bashrc", "" },
    { "d/.npz", "" }, { "trailing.", "." }, { "", "" },
};

static void test_path_extension(void)
{
    size_t i;
    char name[128];

    for (i = 0; i < sizeof ext_cases / sizeof ext_cases[0]; i++) {
        snprintf(name, sizeof name, "path extension: '%s' -> '%s'", ext_cases[i].path,
                 ext_cases[i].want);
        CHECK(name, strcmp(afmt_cli_path_extension(ext_cases[i].path), ext_cases[i].want) == 0);
    }
}

/* The reason fits its buffer whatever OUT's length: cut, never overrun. */
static void test_long_name(void)
{
    char out[3000], why[64];
    const afmt_format *got;

    memset(out, 'a', sizeof out - 5);
    memcpy(out + sizeof out - 5, ".xyz", 5);
    memset(why, 0x55, sizeof why);
    got = afmt_cli_output_format(out, NULL, NULL, why, sizeof why);
    CHECK("output format: a long name's reason is cut to its buffer",
          !got && strlen(why) == sizeof why - 1);
}

int main(void)
{
    test_output_format();
    test_path_extension();
    test_long_name();
    CHECK_DONE();
}
