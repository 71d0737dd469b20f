/* ggml's own verdict on GGUF files, for tests/golden/gguf_verdicts.sh.
 *
 *   gguf_check FILE...
 *
 * For each FILE: gguf_init_from_file with no_alloc = true and no ggml
 * context (the header, the metadata and the tensor infos are read and
 * checked; no tensor data is loaded), then the check llama.cpp's model
 * loader makes before it maps the data (every tensor's bytes within the
 * file: data offset + tensor offset + size <= file size).  Prints one line
 * per file:
 *   OK FILE            ggml reads it and every tensor lies in the file
 *   FAIL FILE          gguf_init_from_file refused it
 *   FAIL-DATA FILE     ggml read it, but a tensor runs past the end
 * Exit status 0 when every file is OK, 1 otherwise.  ggml's own error
 * lines go to stderr.  Linked against ggml-base built outside the
 * repository by bench/build_ggml.sh; never part of afmt's build.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gguf.h"

/* The file's size in bytes, or -1. */
static long long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    long long n = -1;
    if (!f) return -1;
    if (fseek(f, 0, SEEK_END) == 0) n = ftell(f);
    fclose(f);
    return n;
}

/* 1 when every tensor's bytes lie inside a file of `size` bytes. */
static int data_in_file(const struct gguf_context *ctx, long long size)
{
    uint64_t base = gguf_get_data_offset(ctx), end;
    int64_t i, n = gguf_get_n_tensors(ctx);
    for (i = 0; i < n; i++) {
        uint64_t off = gguf_get_tensor_offset(ctx, i), len = gguf_get_tensor_size(ctx, i);
        if (off > UINT64_MAX - base || len > UINT64_MAX - base - off) return 0;
        end = base + off + len;
        if (size < 0 || end > (uint64_t)size) return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    int i, failed = 0;
    for (i = 1; i < argc; i++) {
        struct gguf_init_params params = { true, NULL };
        struct gguf_context *ctx = gguf_init_from_file(argv[i], params);
        const char *verdict = "FAIL";
        if (ctx) {
            verdict = data_in_file(ctx, file_size(argv[i])) ? "OK" : "FAIL-DATA";
            gguf_free(ctx);
        }
        printf("%s %s\n", verdict, argv[i]);
        fflush(stdout);
        failed |= verdict[0] != 'O';
    }
    return failed;
}
