/* Fuzz regressions: every input a fuzzer once failed on (corpus/regressions/)
 * goes through the checks of all three fuzz targets -- the same code, from
 * fuzz/checks.c -- and must now pass; and every seed of the corpus
 * (corpus/<format>/, for each format in the registry) must validate in its
 * own format, pass the same checks, and get as far as a round trip; and
 * every file of corpus/grown/<format>/ (what the fuzzers grew) and of
 * corpus/crafted/<format>/ (invalid or lenient-only inputs made by hand)
 * must pass the same checks, valid or not.
 *
 * A file in corpus/regressions/ is named <target>-<short-description> and
 * has an entry in REGRESSIONS below saying what the bug was; the test fails
 * on a file without an entry and on an entry without a file.
 *
 * The corpus is found at $AFMT_CORPUS, else ./corpus (tests/run.sh runs
 * from the repository root), else the first argument.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "afmt.h"
#include "check.h"
#include "../../fuzz/checks.h"
#include "../../fuzz/inputs.h"

typedef struct regression {
    const char *file; /* in corpus/regressions/ */
    const char *bug;  /* what went wrong, where */
} regression;

/* One entry per file in corpus/regressions/ (see its README.md). */
static const regression REGRESSIONS[] = {
    {"stream-nifti1-valid-file-ends-where-window-does",
     "a lenient-valid NIfTI-1 of exactly 512 bytes read as a stream through a window "
     "of 512: the window was full of kept bytes at the trailer check, so the byte "
     "that tells the end could not be read and the file was 'cut short'; "
     "afmt_expect_end_slow (runtime/core/afmt_step.c) now lets the bytes before the "
     "trailer go first (found by stream_nifti1 and validate in make fuzz-smoke)"},
    {"stream-npz-end-record-before-held-tail",
     "an npz with 445 bytes after its end of central directory record, read as a "
     "stream through a window of 512 (256 bytes held at the end): the buffer says "
     "'trailing', the stream found no end record in what it held and said 'magic'; "
     "too_long (runtime/archive/afmt_archive.c) now judges by the held bytes only when they "
     "reach back as far as an end record may lie, else gives the limit error "
     "(found by stream_npz in make fuzz-smoke)"},
    {"stream-torch-end-record-before-held-tail",
     "the same in torch: 1,642 bytes after the end record, the stream said 'magic' "
     "where the buffer said 'trailing' (found by stream_torch in make fuzz-smoke)"},
    {"stream-mat5-subsystem-offset-against-unknown-length",
     "a MAT-file header whose subsystem data offset lies past its 272 bytes: the "
     "buffer refused it at subsys by subsys < offset() + remaining(), a stream "
     "(which does not know its remaining bytes there) at a later class name; "
     "spec/mat5.json now checks 'inside the file' after the last element (found "
     "by stream_mat5 in make fuzz-smoke, CI)"},
    {"stream-mat5-lenient-padding-cut-by-input-end",
     "a top-level miMATRIX of 50 bytes with 49 left: the buffer refused the region "
     "as truncated, a stream (lenient) took the last padding as cut by its "
     "region's end and said valid; afmt_padding_fail (runtime/core/afmt_step.c) now "
     "first makes a stream show the bytes up to the region's end (found by "
     "stream_mat5, libFuzzer)"},
    {"validate-npz-no-member-sorted-through-null",
     "a zip whose central directory holds no entry (138 bytes, end records of 0 "
     "entries): afmt_ar_sort_names (runtime/archive/afmt_ar_names.c) called qsort with "
     "the NULL it had allocated for no name, which C does not allow even for 0 "
     "elements (UBSan nonnull-attribute; found by validate_npz under libFuzzer "
     "after 548,213 inputs); the zip writer's duplicate check did the same for "
     "an archive of no member.  Both sort only 2 or more names now (make asan "
     "replays it under UBSan)"},
    {"roundtrip-npz-deflated-member-view-dangles",
     "np.savez_compressed's npz (a deflated member): its views point into the bytes "
     "the archive inflated and freed before validate returned, so every view kept "
     "past on_array (afmt_views: the round trip, convert, afmt convert) read freed "
     "memory (ASan heap-use-after-free in roundtrip_npz; validate_npz: data not "
     "inside the input); now such views carry data_transient and afmt_views_add "
     "copies their bytes (found by roundtrip_npz and validate_npz on the new seeds)"},
    {"roundtrip-torch-lenient-deflated-record-view-dangles",
     "the same in lenient torch: a re-zipped checkpoint whose records are deflated; "
     "the pickle's views of an inflated record dangled once validate returned, and "
     "their offset (record offset + storage offset) could lie past the input"},
    {"validate-torch-interp-compares-rendered-field-addresses",
     "torch: the interpreter agreement (interp/interp_agree.c) wrote every pointer "
     "as an offset into the input, but a pickle's fields and key-values point at "
     "text the walker rendered (afmt_pickle_views.c), in each side's own memory: "
     "every checkpoint 'disagreed'; now such pointers are written as -2 with their "
     "bytes"},
    {"validate-torch-strided-view-checked-as-contiguous",
     "torch views.pt: the fuzz check 'a plain, native, contiguous view decodes to its "
     "own bytes' (fuzz/checks.c) took strided views (a transpose, a step-2 slice) for "
     "contiguous ones and reported a mismatch; now it skips views whose strides are "
     "not their order's contiguous ones"},
    {"validate-npz-interp-detect-ignores-first-member",
     "npz whose first member is '../a.npy': the generated afmt_npz_detect says no "
     "(the first_member pattern {name}.npy holds no '/'), the interpreter's "
     "afmt_interp_detect said yes: it compared the magic bytes only"},
    {"convert-gguf-name-not-utf8-to-npz-usage-error",
     "a gguf tensor whose name is not UTF-8, converted to npz: can_write failed with "
     "AFMT_E_USAGE from the zip writer (a member name it refuses); now the archive "
     "writer refuses the array's name with AFMT_E_TYPE (found by convert on "
     "corpus/grown/gguf)"},
    {"convert-daphne-label-with-slash-to-npz-unreadable",
     "a daphne label holding '/' converted to npz: written as member 'x/y.npy', which "
     "{name}.npy does not match, so npz's own validator refused the output; now a "
     "name that would not read back under the member's rule is refused (AFMT_E_TYPE)"},
    {"validate-gguf-directory-rank-above-max-rank",
     "gguf: a tensor of rank 4 was accepted under the caller's limits.max_rank 2: "
     "afmt_dir_add held a directory's dims to AFMT_RANK_CAP only (found by "
     "validate_gguf in make fuzz-smoke)"},
    {"stream-gguf-payload-past-end-offset-past-input",
     "lenient gguf from a stream: a tensor running past the end was blamed at "
     "offset 736 of a 716-byte input (the stream learnt its end only when the "
     "payload's take failed); now 'needs 34 bytes (data offset 448), only 0 "
     "left' at 716, as from a buffer (found by stream_gguf in make fuzz-smoke)"},
    {"stream-gguf-lenient-padding-fills-window",
     "lenient gguf of 512 bytes (a non-zero padding byte tolerated) from a "
     "stream with a 512-byte window: valid from a buffer, but the stream could "
     "not tell the end of the input, the directory's padding check having "
     "left the window full of bytes already read; now the directory lets the "
     "stream drop them (found by stream_gguf under AFL++)"},
    {"stream-gguf-empty-tensor-after-missing-padding",
     "lenient gguf: tensor x's padding missing at the end of the input "
     "(tolerated), then a 0-byte tensor e placed past it: truncated from a "
     "buffer, valid from a stream, whose end the directory had read before "
     "the padding taught it; now the end is read after the padding (found by "
     "stream_gguf under libFuzzer, 5 inputs of this class)"},
    {"stream-futhark-comment-to-end-fills-window",
     "lenient futhark: a binary bool value, then a -- comment running to the "
     "end of a 512-byte file: the repetition's blank/comment skip kept the "
     "previous value's bytes (keep_from), so through a 512-byte window it "
     "stopped where the window filled and afmt_src_at_end could not tell the "
     "end of the input: 'truncated: needs 1 byte for the next value' at the "
     "end of a valid file (found by stream_futhark, AFL++ and libFuzzer)"},
    {"stream-futhark-blanks-after-last-value-fill-window",
     "lenient futhark: blanks and comments after the last value that, with "
     "the last value's bytes, are more than a 512-byte window: the stream "
     "read another value at the end of the input ('expected a value ..., "
     "found end of input'); the file is valid"},
    {"stream-futhark-comment-cut-by-window-read-as-value",
     "invalid futhark: a comment longer than what the window had room for "
     "was cut at the window's edge and its rest parsed as a value, so the "
     "stream blamed a different field and offset than the buffer"},
    {"stream-tenbin-unused-header-dropped-by-window",
     "lenient tenbin whose header chunk (544 bytes) uses 40: through a 512-byte "
     "stream window afmt_src_skip_to (runtime/io/afmt_src.c) read through the "
     "unused bytes and dropped the whole window, and afmt_src_take kept the "
     "header padding by moving keep_from past the item's header; the validator "
     "then read dims again (prod(dims), the view's dims) from bytes the window "
     "no longer held: a read before the window buffer (UBSan pointer overflow, "
     "found by stream_tenbin)"},
    {"validate-futhark-zero-dim-beside-overflowing-dims",
     "futhark value with a 0 dim and other dims whose product overflows: "
     "valid (afmt_field_prod: a zero factor makes the product 0), but "
     "afmt_array_to_plain's check_view (runtime/array/afmt_array.c) multiplies dims "
     "in order and fails with AFMT_E_OVERFLOW, so the view cannot be decoded, "
     "dumped, rewritten or converted"},
    {"roundtrip-futhark-lenient-bool-byte-2-rewritten",
     "futhark bool byte 0x02 (lenient): the futhark writer copies it unchanged "
     "(afmt_sink_payload, PLAIN bool path, runtime/io/afmt_sink.c), so the writer "
     "produces a file its own strict validator rejects"},
    {"convert-rawarray-bool-byte-2-to-futhark",
     "rawarray eltype 5 elbyte 1 (bool) holding byte 0x02 is valid (strict); "
     "written as futhark the byte is copied unchanged (afmt_sink_payload, PLAIN "
     "bool path), and the output fails futhark's strict validation"},
    {"validate-futhark-text-value-split-at-stream-window",
     "a futhark text literal longer than the stream window: afmt_src_text "
     "(runtime/io/afmt_src.c) scans only the buffered part of the window as if it "
     "were the whole input, so the literal is cut at the window edge; here the "
     "buffer reports \"unknown suffix\" at offset 569, the stream (512-byte "
     "window) \"does not fit in i32\" at offset 0, instead of the same error or "
     "AFMT_E_LIMIT"},
    {"validate-futhark-long-literal-stream-accepts-bad-suffix",
     "the same bug, reduced by hand from the one above: \"1.\" + 600 zeros + "
     "\"zz\" is invalid (unknown suffix) but valid as a stream through a "
     "512-byte window (lenient), read as an f64 of 512 bytes; with the CLI's "
     "32 MiB window the same happens to literals over 16 MiB (a valid file "
     "piped to afmt-validate -f futhark - is rejected)"},
    {"validate-futhark-stream-drops-values-when-window-fills",
     "valid futhark text file of 524 bytes, 3 values; as a stream through a "
     "512-byte window only 2 arrays and a valid verdict: text values never "
     "release the window (no afmt_src_keep_from after afmt_src_text in "
     "generated/futhark.c), so it fills up, and the repeat loop's "
     "afmt_src_have(src, src->len, pos, 1) returning 0 for 'window full' is "
     "taken for the end of the input (generated/futhark.c, the 'repeat value "
     "until the end' loop).  With the CLI's 32 MiB window: '1i8 ' x 9Mi + "
     "'garbage!' piped to afmt-validate -f futhark - prints ok (+8388607 more)"},
    {"validate-futhark-stream-accepts-invalid-when-window-fills",
     "the same bug, an invalid file: the buffer fails at value[2] (offset 665, "
     "a NUL byte), the stream (512-byte window) says valid"},
    {"validate-futhark-stream-limit-at-half-window",
     "a 5541-byte futhark text file that is one malformed token: the buffer "
     "reports 'malformed number' at offset 0; as a stream through a window of "
     "9637 bytes (input + 4096) the stream answers AFMT_E_LIMIT 'a text value "
     "longer than the stream window (9637 bytes)': afmt_src_text fills the "
     "window only up to cap/2 past the value and, with the token running to the "
     "end of the input, never learns it is at the end (runtime/io/afmt_src.c); "
     "afmt_src.h promises a limit error only for a structure larger than the "
     "window"},
    {NULL, NULL},
};

static const char *corpus_dir(int argc, char **argv)
{
    const char *env = getenv("AFMT_CORPUS");
    struct stat st;

    if (env && env[0])
        return env;
    if (stat("corpus", &st) == 0 && S_ISDIR(st.st_mode))
        return "corpus";
    if (argc > 1)
        return argv[1];
    return "corpus";
}

/* A README beside the inputs is no input. */
static int is_readme(const char *name)
{
    return strncmp(name, "README", 6) == 0;
}

/* corpus/ holds a folder per format, and these three. */
static int is_not_format_folder(const char *name)
{
    return strcmp(name, "regressions") == 0 || strcmp(name, "grown") == 0 ||
           strcmp(name, "crafted") == 0;
}

/* Sorted names of the regular files in dir (no dot files, no README*). */
static size_t list_files(const char *dir, char ***names)
{
    return fz_list_dir(dir, FZ_REGULAR_FILES, is_readme, names);
}

static const regression *find_regression(const char *file)
{
    const regression *r;
    for (r = REGRESSIONS; r->file; r++)
        if (strcmp(r->file, file) == 0)
            return r;
    return NULL;
}

static int known_target(const char *file)
{
    return strncmp(file, "validate-", 9) == 0 || strncmp(file, "roundtrip-", 10) == 0 ||
           strncmp(file, "convert-", 8) == 0 || strncmp(file, "stream-", 7) == 0;
}

/* Read dir/file and run the checks of every fuzz target on it, checking
 * "WHAT is readable" and "WHAT passes validate, roundtrip and convert"
 * (known_as, when not NULL, is printed beside a bug).  Returns the bytes
 * (*len of them; the caller frees them) with *c as the checks left it, or
 * NULL when the file cannot be read. */
static uint8_t *check_file(const char *dir, const char *file, const char *what,
                           const char *known_as, fz_ctx *c, uint64_t *len)
{
    char path[8192], name[1024];
    uint8_t *buf;

    snprintf(path, sizeof path, "%s/%s", dir, file);
    buf = fz_read_file(path, len);
    snprintf(name, sizeof name, "%s is readable", what);
    CHECK(name, buf != NULL);
    if (!buf)
        return NULL;
    fz_ctx_init(c, "all", 0);
    c->input = file;
    c->quiet = 1;
    fz_check_all(c, buf, *len);
    snprintf(name, sizeof name, "%s passes validate, roundtrip and convert", what);
    CHECK(name, c->bugs == 0);
    if (c->bugs > 0)
        printf("  %u bug(s); first: %s%s%s\n", c->bugs, c->first,
               known_as ? "\n  known as: " : "", known_as ? known_as : "");
    return buf;
}

/* Whether f's writer refuses everything because its spec is read-only. */
static int is_read_only(const afmt_format *f)
{
    afmt_array a;
    afmt_error err;
    afmt_array_init(&a, AFMT_F32);
    a.rank = 1;
    a.dims[0] = 1;
    a.nbytes = 4;
    afmt_error_clear(&err);
    return f->can_write(&a, &err) != 0 && err.code == AFMT_E_UNSUPPORTED && strstr(err.message, " is read-only: ");
}

static int count_one(void *ctx, const afmt_array *a)
{
    if (a->block <= 1) ++*(unsigned *)ctx; /* blocks are copied, never decoded */
    return 0;
}

/* The arrays of a valid file that can be decoded (strict, defaults). */
static unsigned count_arrays(const afmt_format *f, const uint8_t *buf, uint64_t len)
{
    unsigned n = 0;
    afmt_visitor vis;
    memset(&vis, 0, sizeof vis);
    vis.ctx = &n;
    vis.on_array = count_one;
    return f->validate(buf, len, NULL, &vis, NULL) == 0 ? n : 0;
}

static void check_regressions(const char *corpus)
{
    char dir[4096], path[8192], name[512], what[512];
    char **files;
    size_t n, i;
    const regression *r;

    snprintf(dir, sizeof dir, "%s/regressions", corpus);
    n = list_files(dir, &files);
    snprintf(name, sizeof name, "%.200s holds regression files (%zu)", dir, n);
    CHECK(name, n > 0);
    for (i = 0; i < n; i++) {
        uint64_t len;
        uint8_t *buf;
        fz_ctx c;

        r = find_regression(files[i]);
        snprintf(name, sizeof name, "regression %s is named <target>-<description>", files[i]);
        CHECK(name, known_target(files[i]));
        snprintf(name, sizeof name, "regression %s has an entry in REGRESSIONS", files[i]);
        CHECK(name, r != NULL);
        snprintf(what, sizeof what, "regression %s", files[i]);
        buf = check_file(dir, files[i], what, r ? r->bug : "(no entry)", &c, &len);
        free(buf);
    }
    for (r = REGRESSIONS; r->file; r++) {
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, r->file);
        snprintf(name, sizeof name, "REGRESSIONS entry %s has its file", r->file);
        CHECK(name, stat(path, &st) == 0 && S_ISREG(st.st_mode));
    }
    fz_free_names(files, n);
}

/* Every seed of corpus/<format>/ validates strictly as <format>, passes all
 * the checks, and is rewritten at least once by the round trip. */
static void check_seeds(const char *corpus)
{
    char **dirs, **files;
    char dir[4096], name[512], what[512];
    size_t nd, nf, i, j;
    struct stat st;
    unsigned long seeds = 0;

    CHECK("corpus folder exists", stat(corpus, &st) == 0 && S_ISDIR(st.st_mode));
    nd = fz_list_dir(corpus, FZ_FOLDERS, is_not_format_folder, &dirs);
    for (i = 0; i < nd; i++) {
        const afmt_format *f = afmt_format_by_name(dirs[i]);
        if (!f) {
            printf("note: %s/%s: no format \"%s\" in the registry yet, seeds not checked\n",
                   corpus, dirs[i], dirs[i]);
            continue;
        }
        snprintf(dir, sizeof dir, "%s/%s", corpus, dirs[i]);
        nf = list_files(dir, &files);
        snprintf(name, sizeof name, "corpus/%s has seeds", dirs[i]);
        CHECK(name, nf > 0);
        for (j = 0; j < nf; j++) {
            afmt_options opt;
            afmt_error err;
            uint64_t len;
            uint8_t *buf;
            fz_ctx c;
            char text[1024];
            int rc;

            snprintf(what, sizeof what, "seed %s/%s", dirs[i], files[j]);
            buf = check_file(dir, files[j], what, NULL, &c, &len);
            if (!buf)
                continue;
            seeds++;
            fz_options(&opt, AFMT_STRICT);
            rc = f->validate(buf, len, &opt, NULL, &err);
            snprintf(name, sizeof name, "seed %s/%s is a valid %s file (strict)", dirs[i],
                     files[j], f->name);
            CHECK(name, rc == 0);
            if (rc != 0)
                printf("  %s: %s\n", afmt_code_name(err.code),
                       fz_describe(&err, text, sizeof text));
            if (is_read_only(f)) {
                /* a read-only format ("read_only" in its spec) writes nothing to round-trip */
                snprintf(name, sizeof name, "seed %s/%s is decoded (%s is read-only)", dirs[i], files[j], f->name);
                CHECK(name, c.validated > 0 && (c.decoded > 0 || count_arrays(f, buf, len) == 0));
            } else {
                /* a file of no array, or of blocks only (copied, never
                 * decoded), round-trips without a decoded view */
                snprintf(name, sizeof name, "seed %s/%s is decoded and round-trips", dirs[i],
                         files[j]);
                CHECK(name, (c.decoded > 0 || count_arrays(f, buf, len) == 0) && c.roundtrips > 0);
            }
            free(buf);
        }
        fz_free_names(files, nf);
    }
    fz_free_names(dirs, nd);
    CHECK("the corpus has seeds of at least one registered format", seeds > 0);
}

/* corpus/<kind>/<format>/ for kind "grown" (make fuzz-merge: what the
 * fuzzers grew, minimised) and "crafted" (invalid or lenient-only inputs
 * made by hand): valid or not, every file passes the checks of all
 * targets.  A folder there that names no registered format would be
 * skipped in silence, so it fails. */
static void check_inputs_by_format(const char *corpus, const char *kind)
{
    char dir[4096], what[512], name[512];
    size_t nf, nd, i;
    char **files, **dirs;
    const afmt_format *f;
    size_t k;

    snprintf(dir, sizeof dir, "%s/%s", corpus, kind);
    nd = fz_list_dir(dir, FZ_FOLDERS, NULL, &dirs);
    for (i = 0; i < nd; i++) {
        snprintf(name, sizeof name, "corpus/%s/%s names a registered format", kind, dirs[i]);
        CHECK(name, afmt_format_by_name(dirs[i]) != NULL);
    }
    fz_free_names(dirs, nd);
    for (k = 0; k < afmt_format_count; k++) {
        if (!(f = afmt_formats[k]))
            continue;
        snprintf(dir, sizeof dir, "%s/%s/%s", corpus, kind, f->name);
        nf = list_files(dir, &files);
        for (i = 0; i < nf; i++) {
            uint64_t len;
            fz_ctx c;

            snprintf(what, sizeof what, "%s seed %s/%s", kind, f->name, files[i]);
            free(check_file(dir, files[i], what, NULL, &c, &len));
        }
        fz_free_names(files, nf);
    }
}

int main(int argc, char **argv)
{
    const char *corpus = corpus_dir(argc, argv);

    check_regressions(corpus);
    check_seeds(corpus);
    check_inputs_by_format(corpus, "grown");
    check_inputs_by_format(corpus, "crafted");
    CHECK_DONE();
}
