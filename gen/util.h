/* afmt-gen: allocation and string-building helpers (abort on OOM: the
 * generator is a build tool, not a library). */
#ifndef AFMT_GEN_UTIL_H
#define AFMT_GEN_UTIL_H
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>

void *xcalloc(size_t n, size_t size);
char *xstrdup(const char *s);
/* The shortest text of finite v that reads back to it as a float of width
 * bytes (4: strtof, 8: strtod), as runtime/common/afmt_float.c writes it (malloc'd). */
char *float_text(double v, int width);
/* xprintf over a va_list (which it uses up, as vsnprintf does). */
char *xvprintf(const char *fmt, va_list ap);
char *xprintf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* snprintf into one of afmt-gen's fixed buffers (a symbol's C expression,
 * a helper's name, ...).  They are sized for names of at most
 * SPEC_NAME_MAX characters (spec.h, enforced by the loader); text that
 * would not fit is not cut (cut, it would be C naming something else, or
 * nothing): afmt-gen stops with an internal error instead. */
void fixed_printf(char *dst, size_t cap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* *dst replaced by a new string formatted from fmt (which may read the
 * old one: it is freed after), for a C text that has no fixed size. */
void str_printf(char **dst, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Growable text buffer used by the emitters. */
typedef struct sbuf {
    char *s;
    size_t len, cap;
} sbuf;

void sb_puts(sbuf *b, const char *s);
void sb_printf(sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void sb_vprintf(sbuf *b, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 0)))
#endif
    ;
void sb_free(sbuf *b);
/* When the width (1 to 8) bytes of the unsigned value v, as a field of
 * that byte order (big: big-endian) stores them, are all printable ASCII
 * other than '"', '\' and '%': a magic number ("GGUF" is 0x46554747
 * little-endian), which messages show as the text it is.  Then 1 with
 * those bytes in text (NUL-terminated), else 0.  The one rule afmt-gen's
 * validators and the interpreter share. */
int uint_magic_text(uint64_t v, int width, int big, char text[9]);
/* A C string literal for s (escaped, quoted). */
char *c_quote(const char *s, size_t n);
/* A C string literal of s usable as a printf format ('%' doubled); s may be
 * NULL (empty literal).  Caller frees. */
char *c_format_literal(const char *s);
/* The same without its surrounding quotes, for splicing into a larger
 * format literal.  Caller frees. */
char *c_format_body(const char *s);
/* Text from a spec or the command line made safe inside a C block
 * comment: a star-slash would end it, a slash-star nest it (-Wcomment),
 * two question marks start a trigraph (-Wtrigraphs: C11 translates
 * them); the second character of each (of a slash-star, the first)
 * becomes '|'.  c_comment_fix works in place; c_comment returns a new
 * string (caller frees). */
void c_comment_fix(char *s);
char *c_comment(const char *s);
/* The base of a lookup's C locals (<base>_type, <base>_entry): its name,
 * or lk_<name> when <name>_type could be a local the emitters derive from
 * another spec name (a lookup "o" and a field "type": o_type, the field's
 * offset).  A new string, caller frees. */
char *c_lookup_base(const char *name);
/* Does name start with (or equal) one of those prefixes and '_'? */
int c_local_prefixed(const char *name);
/* A hash index from strings (the caller's, alive while indexed) to
 * non-negative ints: the generator looks a name up among thousands in
 * constant time, so a spec's size costs it linear time. */
typedef struct strindex {
    const char **keys;  /* NULL: empty; STRINDEX_GONE: removed */
    int *vals;
    size_t cap, used;   /* slots (a power of two, or 0), slots not empty */
} strindex;
int strindex_get(const strindex *x, const char *key);   /* -1: not there */
void strindex_put(strindex *x, const char *key, int val); /* a key there keeps its string */
void strindex_del(strindex *x, const char *key);
void strindex_free(strindex *x);

#endif
