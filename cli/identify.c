/* afmt CLI: what a non-array input is (see identify.h). */
#include "identify.h"

#include <string.h>

/* buf starts with lit, ignoring ASCII case where fold says so. */
static int starts(const uint8_t *buf, uint64_t len, const char *lit, int fold)
{
    size_t n = strlen(lit), i;
    if (len < n) return 0;
    for (i = 0; i < n; i++) {
        unsigned char a = buf[i], b = (unsigned char)lit[i];
        if (fold && a >= 'A' && a <= 'Z') a = (unsigned char)(a - 'A' + 'a');
        if (a != b) return 0;
    }
    return 1;
}

/* Leading blanks and a UTF-8 byte order mark, as a saved page may have. */
static uint64_t skip_blank(const uint8_t *buf, uint64_t len)
{
    uint64_t i = 0;
    if (len >= 3 && buf[0] == 0xEF && buf[1] == 0xBB && buf[2] == 0xBF) i = 3;
    while (i < len && i < 256 && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n')) i++;
    return i;
}

afmt_cli_kind afmt_cli_identify(const uint8_t *buf, uint64_t len)
{
    uint64_t at = skip_blank(buf, len);
    const uint8_t *p = buf + at;
    uint64_t n = len - at;

    if (starts(buf, len, "version https://git-lfs.github.com/spec/", 0)) return AFMT_CLI_KIND_LFS_POINTER;
    if (starts(p, n, "<!doctype html", 1) || starts(p, n, "<html", 1)) return AFMT_CLI_KIND_HTML;
    if (starts(p, n, "<?xml", 0)) return AFMT_CLI_KIND_XML;
    /* PROTO 2..5: what pickle.dump writes first since protocol 2 */
    if (len >= 2 && buf[0] == 0x80 && buf[1] >= 2 && buf[1] <= 5) return AFMT_CLI_KIND_PICKLE;
    if (len >= 2 && buf[0] == 0x1f && buf[1] == 0x8b) return AFMT_CLI_KIND_GZIP;
    if (starts(buf, len, "PK\003\004", 0) || starts(buf, len, "PK\005\006", 0)) return AFMT_CLI_KIND_ZIP;
    return AFMT_CLI_KIND_NONE;
}

const char *afmt_cli_kind_text(afmt_cli_kind kind)
{
    switch (kind) {
    case AFMT_CLI_KIND_LFS_POINTER:
        return "a Git LFS pointer file, not the data it points to (it was never downloaded: run git lfs pull)";
    case AFMT_CLI_KIND_HTML:
        return "an HTML page, not an array file (a download that failed or needed a login?)";
    case AFMT_CLI_KIND_XML:
        return "an XML document, not an array file (an object store's error reply?)";
    case AFMT_CLI_KIND_PICKLE:
        return "a Python pickle: loading it runs whatever it names; afmt never runs one (save the arrays as "
               ".npy, .safetensors or a torch.save checkpoint instead)";
    case AFMT_CLI_KIND_GZIP:
        return "a gzip stream: decompress it first (gunzip), then check what it holds";
    case AFMT_CLI_KIND_ZIP:
        return "a zip archive of no known format (neither .npz members nor a torch.save checkpoint)";
    default:
        return "";
    }
}

int afmt_cli_kind_reported_in_walk(afmt_cli_kind kind)
{
    return kind == AFMT_CLI_KIND_PICKLE || kind == AFMT_CLI_KIND_LFS_POINTER;
}
