/* afmt-gen: where the checker's diagnostics go (check.c and the model's
 * own questions, value_grammar.c), without an emitter.
 *
 * "SPEC: /json/pointer: message" on stderr, as the loader's and the
 * emitters' are; one problem met again at once is printed once. */
#ifndef AFMT_GEN_DIAG_H
#define AFMT_GEN_DIAG_H

typedef struct diag {
    const char *path;   /* the spec's, in every line */
    int errors;
    int quiet;          /* counted, not printed: a question asked of a checked spec */
    char *last;         /* the last line printed */
} diag;

void diag_error(diag *d, const char *jpath, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void diag_free(diag *d);

#endif
