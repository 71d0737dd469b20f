/* cli/quote.h, cli/json_out.h (afmt_cli_json_path), cli/sigbus.h and
 * cli/cleanup.h: names that cannot forge a line in text output, paths that
 * stay recoverable in JSON, the offset a cut-short mapping names, and the
 * temporary outputs a signal removes (issue 35). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../cli/cleanup.h"
#include "../../cli/json_out.h"
#include "../../cli/quote.h"
#include "../../cli/sigbus.h"
#include "check.h"

typedef struct quote_case {
    const char *name, *in, *want;
} quote_case;

static const quote_case quote_cases[] = {
    { "plain name unchanged", "model.safetensors", "model.safetensors" },
    { "UTF-8 unchanged", "mod\xc3\xa8le.npy", "mod\xc3\xa8le.npy" },
    { "leading dash unchanged", "-x.npy", "-x.npy" },
    { "newline quoted", "evil\nmodel.safetensors: ok", "\"evil\\nmodel.safetensors: ok\"" },
    { "tab and CR quoted", "a\tb\r", "\"a\\tb\\r\"" },
    { "escape byte in octal", "\x1b[2Jx", "\"\\033[2Jx\"" },
    { "DEL in octal", "a\x7f", "\"a\\177\"" },
    { "invalid UTF-8 in octal", "bad\xffname", "\"bad\\377name\"" },
    { "a leading quote is quoted", "\"x\": ok", "\"\\\"x\\\": ok\"" },
    { "backslash quoted", "a\\n", "\"a\\\\n\"" },
    { "C1 control (U+0085) quoted", "a\xc2\x85" "b", "\"a\\302\\205b\"" },
    { "line separator U+2028 quoted", "a\xe2\x80\xa8" "b", "\"a\\342\\200\\250b\"" },
    { "bidi override U+202E quoted", "a\xe2\x80\xae" "b", "\"a\\342\\200\\256b\"" },
    { "U+2022 bullet unchanged", "a\xe2\x80\xa2" "b", "a\xe2\x80\xa2" "b" },
};

static void test_quote(void)
{
    size_t i;
    char buf[AFMT_CLI_QUOTED_MAX], name[128];

    for (i = 0; i < sizeof quote_cases / sizeof quote_cases[0]; i++) {
        const quote_case *c = &quote_cases[i];
        const char *got = afmt_cli_quote_name(c->in, buf, sizeof buf);
        snprintf(name, sizeof name, "quote: %s", c->name);
        CHECK(name, strcmp(got, c->want) == 0);
        CHECK(name, strchr(got, '\n') == NULL);
    }
    /* a buffer too small: cut at an escape, still one quoted line */
    {
        const char *got = afmt_cli_quote_name("\n\n\n\n\n\n\n\n", buf, 12);
        CHECK("quote: cut to its buffer, ending in ...\"",
              strcmp(got, "\"\\n\\n\\n...\"") == 0 && strlen(got) < 12);
    }
}

typedef struct path_case {
    const char *name, *in, *want;
} path_case;

static const path_case path_cases[] = {
    { "UTF-8 path: no path_bytes", "x/mod\xc3\xa8le.npy", "\"path\":\"x/mod\xc3\xa8le.npy\"" },
    { "newline escaped, no path_bytes", "a\nb", "\"path\":\"a\\nb\"" },
    { "non-UTF-8 path: base64 of its bytes", "bad\xff.npy",
      "\"path\":\"bad\\ufffd.npy\",\"path_bytes\":\"YmFk/y5ucHk=\"" },
    { "base64 padding of one byte", "\xfe", "\"path\":\"\\ufffd\",\"path_bytes\":\"/g==\"" },
    { "base64 padding of two bytes", "a\xfe", "\"path\":\"a\\ufffd\",\"path_bytes\":\"Yf4=\"" },
};

static void test_json_path(void)
{
    size_t i;
    char name[128];

    for (i = 0; i < sizeof path_cases / sizeof path_cases[0]; i++) {
        afmt_cli_buf b;
        afmt_cli_buf_init(&b);
        afmt_cli_json_path(&b, path_cases[i].in);
        afmt_cli_buf_putc(&b, '\0');
        snprintf(name, sizeof name, "json path: %s", path_cases[i].name);
        CHECK(name, strcmp(b.p, path_cases[i].want) == 0);
        afmt_cli_buf_free(&b);
    }
}

static void test_sigbus_describe(void)
{
    static const unsigned char map[100];
    char msg[AFMT_MESSAGE_MAX], path[] = "/tmp/afmt-sigbus-XXXXXX";
    afmt_cli_mapped file = { NULL, map, sizeof map, 0, 0 };
    struct stat st;
    uint64_t at = afmt_cli_sigbus_describe((uintptr_t)(map + 64), &file, msg, sizeof msg);
    int fd;

    CHECK("sigbus: the offset is the faulting byte's place in the file", at == 64);
    CHECK("sigbus: the message names the offset and the size when opened",
          strcmp(msg, "the file was cut short while it was read: no byte at offset 64 any more "
                      "(it was 100 bytes when opened)") == 0);
    at = afmt_cli_sigbus_describe((uintptr_t)map + 200, &file, msg, sizeof msg);
    CHECK("sigbus: an address outside the mapping names its end", at == 100);

    /* the file, now 40 bytes long: its end is the first byte missing,
     * wherever the reader happened to fault */
    fd = mkstemp(path);
    CHECK("sigbus: a temporary file", fd >= 0 && ftruncate(fd, 40) == 0 && fstat(fd, &st) == 0);
    file.path = path;
    file.dev = (uint64_t)st.st_dev;
    file.ino = (uint64_t)st.st_ino;
    at = afmt_cli_sigbus_describe((uintptr_t)(map + 64), &file, msg, sizeof msg);
    CHECK("sigbus: a file cut short names its new end, not the faulting byte", at == 40);
    at = afmt_cli_sigbus_describe((uintptr_t)(map + 20), &file, msg, sizeof msg);
    CHECK("sigbus: a fault before the new end names the faulting byte", at == 20);
    file.ino ^= 1;
    at = afmt_cli_sigbus_describe((uintptr_t)(map + 64), &file, msg, sizeof msg);
    CHECK("sigbus: another file at the path says nothing of the mapped one", at == 64);
    if (fd >= 0) close(fd);
    unlink(path);
}

static void test_cleanup(void)
{
    char path[] = "/tmp/afmt_test_cleanup.XXXXXX", kept[] = "/tmp/afmt_test_kept.XXXXXX";
    int fd = mkstemp(path), fd2 = mkstemp(kept), slot, forgotten;
    struct stat st;

    CHECK("cleanup: temporary files made", fd >= 0 && fd2 >= 0);
    close(fd);
    close(fd2);
    slot = afmt_cli_cleanup_add(path);
    forgotten = afmt_cli_cleanup_add(kept);
    CHECK("cleanup: registered", slot >= 0 && forgotten >= 0 && slot != forgotten);
    afmt_cli_cleanup_forget(forgotten);
    afmt_cli_cleanup_remove_all();
    CHECK("cleanup: a registered file is removed", stat(path, &st) != 0);
    CHECK("cleanup: a forgotten one (committed) is kept", stat(kept, &st) == 0);
    afmt_cli_cleanup_forget(slot);
    unlink(kept);
}

int main(void)
{
    test_quote();
    test_json_path();
    test_sigbus_describe();
    test_cleanup();
    CHECK_DONE();
}
