/* The ggml peer of the GGUF rows of `make bench` (bench/gguf_bench.sh).
 *
 *   ggml_peer FILE [RUNS]
 *
 * Times ggml's gguf_init_from_file(FILE, no_alloc = true) + gguf_free:
 * what every llama.cpp build runs to read a model's header, metadata and
 * tensor infos (the tensor data is not loaded).  One untimed warm-up call,
 * then RUNS (default 9) timed ones, CLOCK_MONOTONIC.  Prints
 *   RESULT <median s> <min s> <max s>
 * (the shape bench/run.sh's peer_rounds reads).  Built against ggml-base
 * outside the repository by bench/build_ggml.sh.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gguf.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One read of FILE; 0 when ggml accepted it. */
static int read_once(const char *path)
{
    struct gguf_init_params params = { true, NULL };
    struct gguf_context *ctx = gguf_init_from_file(path, params);
    if (!ctx) return 1;
    gguf_free(ctx);
    return 0;
}

int main(int argc, char **argv)
{
    int runs = argc > 2 ? atoi(argv[2]) : 9, r;
    double *t;
    if (argc < 2 || runs < 1) {
        fprintf(stderr, "usage: ggml_peer FILE [RUNS]\n");
        return 2;
    }
    t = malloc((size_t)runs * sizeof *t);
    if (!t) return 2;
    if (read_once(argv[1])) {
        fprintf(stderr, "ggml_peer: ggml refuses %s\n", argv[1]);
        return 1;
    }
    for (r = 0; r < runs; r++) {
        double t0 = now();
        if (read_once(argv[1])) return 1;
        t[r] = now() - t0;
    }
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    printf("RESULT %.9f %.9f %.9f\n", runs % 2 ? t[runs / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2, t[0], t[runs - 1]);
    free(t);
    return 0;
}
