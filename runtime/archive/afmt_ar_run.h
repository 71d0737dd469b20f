/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: one run of afmt_archive_validate, shared by the archive's
 * files (afmt_archive.c: the run and the rules' actions; afmt_ar_rules.c:
 * patterns and captures; afmt_ar_names.c: names, fields, the sorted name
 * list; afmt_ar_data.c: members' bytes, CRC-32s and inflating;
 * afmt_zip.c, afmt_zip_local.c: zip; afmt_tar.c, afmt_tar_pax.c: tar).
 * Not for generated code.
 *
 * A run owns everything it allocates (the member list, the sorted names,
 * tar's copies of names, inflated members, the inflater and a scratch
 * buffer); afmt_archive_validate frees it all before it returns, whatever
 * the outcome.  One run
 * belongs to one thread.
 */
#ifndef AFMT_AR_RUN_H
#define AFMT_AR_RUN_H

#include <stddef.h>
#include <stdint.h>
#include "afmt_archive.h"
#include "../compress/afmt_inflate.h"

#define AFMT_AR_NO_RULE (-1)
#define AFMT_AR_SCRATCH ((size_t)64 << 10)
/* DEFLATE's largest ratio: a 258-byte match of distance 1 in 2 bits. */
#define AFMT_AR_DEFLATE_RATIO 1032u

/* One member, as the container's headers describe it. */
typedef struct afmt_ar_member {
    const uint8_t *name;   /* zip: in the input; tar: the run's copy */
    uint32_t name_len;
    uint32_t index;        /* in archive order (zip: central order) */
    int rule;              /* the rule it matched, or AFMT_AR_NO_RULE */
    uint16_t method, flags;
    uint32_t crc;
    int zip64_local;       /* its local header has a zip64 extra field */
    int referenced;        /* a values member resolved it */
    int is_dir;            /* zip: a directory entry (name ends with '/', no data): no rule applies */
    uint64_t csize, usize; /* stored and real sizes (equal but for deflated members) */
    uint64_t entry_off;    /* zip: its central entry; tar: its header block */
    uint64_t name_off;     /* where its name's bytes are (for messages) */
    uint64_t local_off;    /* zip: its local header */
    uint64_t data_off;     /* its (compressed) data */
    uint8_t *inflated;     /* a deflated record's bytes, kept to the end of the run */
} afmt_ar_member;

/* A name in the sorted list (duplicates, lookups by name). */
typedef struct afmt_ar_name_ref {
    const uint8_t *name;
    uint32_t len;
    uint32_t member;
} afmt_ar_name_ref;

/* A capture name of the desc and, for one that several rules name, the
 * value the first member gave it. */
typedef struct afmt_ar_capture {
    const char *name; /* into a pattern, not NUL-terminated */
    size_t name_len;
    int fixed;        /* named in two or more rules: one value per archive */
    uint8_t *value;   /* a copy, owned by the run */
    size_t value_len;
    uint32_t first;   /* the member that set it */
} afmt_ar_capture;

/* Where one capture lies in a matched name. */
typedef struct afmt_ar_span {
    uint32_t at, len;
} afmt_ar_span;

typedef struct afmt_ar_chunk {
    struct afmt_ar_chunk *next;
    size_t used, cap;
    uint8_t bytes[];
} afmt_ar_chunk;

typedef struct afmt_ar_run {
    const afmt_archive_desc *d;
    afmt_src *src;
    uint64_t base, end;     /* the archive: [base, end), absolute */
    uint64_t members_end;   /* zip: where the central directory begins */
    const uint8_t *bytes;   /* the archive in memory (zip always), bytes[k] at base + k; or NULL */
    int streamed;           /* src is a stream: views carry no data */
    const afmt_options *opt;
    const afmt_visitor *vis;
    const afmt_path *path;
    afmt_error *err;
    uint32_t *narrays;
    afmt_ar_member *m;
    size_t n, cap;
    afmt_ar_name_ref *names; /* sorted by name, after afmt_ar_sort_names */
    int vars[AFMT_AR_VARS_MAX];
    afmt_ar_capture caps[AFMT_AR_CAPTURES_MAX];
    unsigned ncaps;
    uint64_t hits[AFMT_AR_RULES_MAX];
    uint64_t decoded;       /* bytes inflated so far */
    afmt_inflate *inflater;
    uint8_t *scratch;
    afmt_ar_chunk *chunks;  /* tar's copies of names */
    int member_failed;      /* a member was invalid and the visitor went on past it */
    afmt_error member_error; /* the first such member's error: the run's verdict */
} afmt_ar_run;

/* ---- afmt_archive.c */
/* Fail naming the archive ("<name>"), or member m ("<name>[\"m\"]"), plus
 * sub (".central.method"; NULL: none).  Returns -1. */
int afmt_ar_fail(afmt_ar_run *r, afmt_code code, const afmt_ar_member *m, const char *sub, uint64_t offset,
                 const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
/* The same when lenient_ok and the mode is lenient: a warning, and 0. */
int afmt_ar_refuse(afmt_ar_run *r, int lenient_ok, afmt_code code, const afmt_ar_member *m, const char *sub,
                   uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;
/* Append a member (zeroed but for index and rule); NULL when out of memory
 * (err filled). */
afmt_ar_member *afmt_ar_add_member(afmt_ar_run *r, uint64_t offset);
/* A rule's action on a member whose bytes a rule parses (FORMAT, TEXT;
 * the others do nothing here): 0 or -1. */
int afmt_ar_act(afmt_ar_run *r, afmt_ar_member *m, const uint8_t *bytes, uint64_t len);
/* The same for a zip member, its bytes fetched (inflated into memory, or
 * through a window when a FORMAT rule's member is larger than
 * limits.max_held_bytes) and freed after.  0 or -1. */
int afmt_ar_act_member(afmt_ar_run *r, afmt_ar_member *m);
/* After the last member: presence, values members, references.  at: the
 * offset presence errors name. */
int afmt_ar_finish(afmt_ar_run *r, uint64_t at);
/* Does member m's rule parse its bytes (FORMAT, TEXT, VALUES, RECORD)? */
int afmt_ar_parsed(const afmt_ar_run *r, const afmt_ar_member *m);

/* ---- afmt_ar_names.c */
/* The field "<name>[\"member\"].sub" (escaped, cut) into out. */
void afmt_ar_field(const afmt_ar_run *r, const afmt_ar_member *m, const char *sub, char *out, size_t cap);
/* Escape name[0..len) for a message into out (cut to about max bytes). */
void afmt_ar_quote(const uint8_t *name, size_t len, size_t max, char *out, size_t cap);
/* Check a member name (relative, '/'-separated, no empty, "." or ".."
 * component, no '\\' or NUL); fails naming the member's field sub at the
 * offending byte (m->name_off + k).  utf8: the name must be UTF-8 (zip's
 * bit 11, tar); else bytes above 0x7f are refused in strict mode (readers
 * decode them differently) and warned of in lenient. */
int afmt_ar_check_name(afmt_ar_run *r, const afmt_ar_member *m, int utf8, const char *sub);
/* What afmt_ar_check_name refuses in name[0..len) (bytes above 0x7f
 * included when not utf8), and at which byte; NULL when nothing.  For the
 * zip writer too. */
const char *afmt_ar_name_problem(const uint8_t *name, size_t len, int utf8, size_t *at);
/* Sort the members' names and refuse the first duplicate. */
int afmt_ar_sort_names(afmt_ar_run *r);
/* The member called name (after afmt_ar_sort_names), or NULL. */
afmt_ar_member *afmt_ar_find(const afmt_ar_run *r, const uint8_t *name, size_t len);
/* A copy of bytes[0..n) in the run's memory (tar's names); NULL and err
 * when out of memory. */
uint8_t *afmt_ar_keep(afmt_ar_run *r, const uint8_t *bytes, size_t n, uint64_t offset);

/* ---- afmt_ar_rules.c */
/* Collect the desc's capture names into r->caps (after desc_check). */
void afmt_ar_collect_captures(afmt_ar_run *r);
/* Match m to the first rule whose pattern matches, keep its fixed
 * captures consistent, refuse REFUSE rules and (by desc->rest) members of
 * no rule; count the rule's hits.  0 or -1. */
int afmt_ar_assign(afmt_ar_run *r, afmt_ar_member *m);
/* Does name match pattern?  1 with spans[] (up to AFMT_AR_CAPTURES_MAX, in
 * pattern order), else 0. */
int afmt_ar_match(const char *pattern, const uint8_t *name, size_t len, afmt_ar_span *spans);
/* tmpl with each {capture} replaced by its value in member m (matched by
 * rule pattern) into out[0..cap), NUL-terminated; *full: the whole length
 * (may exceed cap - 1: out is then cut).  key/key_len: the value of the
 * template's last capture instead of m's (a record's name), or NULL. */
void afmt_ar_expand(const char *tmpl, const char *pattern, const afmt_ar_member *m, const char *key, size_t key_len,
                    char *out, size_t cap, size_t *full);

/* ---- afmt_ar_data.c */
/* The bytes of member m for its rule: stored: in the input; deflated:
 * inflated into *owned (the caller frees it) with size and CRC-32
 * checked.  0 or -1. */
int afmt_ar_member_bytes(afmt_ar_run *r, afmt_ar_member *m, const uint8_t **bytes, uint8_t **owned);
/* A deflated member read as a stream (a member larger than
 * limits.max_held_bytes): afmt_ar_stream_open checks its claim and starts
 * the inflater; afmt_ar_stream_read, an afmt_src_stream read function,
 * gives its bytes (none after the end, a corrupt stream or the claimed
 * size); afmt_ar_stream_close inflates what the reader left and gives the
 * verdict on the member's bytes (corrupt, size, end, CRC-32).  Each 0 or
 * -1 (r->err). */
typedef struct afmt_ar_stream {
    afmt_ar_run *r;
    const afmt_ar_member *m;
    int status;          /* the inflater's last afmt_inflate_status */
    uint64_t total;      /* bytes inflated */
    uint32_t crc;
    afmt_error error;    /* the inflater's, when status is AFMT_INFLATE_ERROR */
} afmt_ar_stream;
int afmt_ar_stream_open(afmt_ar_run *r, const afmt_ar_member *m, afmt_ar_stream *s);
int afmt_ar_stream_read(void *ctx, uint8_t *buf, size_t n, size_t *got);
int afmt_ar_stream_close(afmt_ar_stream *s);
/* A stored zip member's CRC-32 (when the desc checks them and
 * opt->check_values is set).  0 or -1. */
int afmt_ar_check_stored(afmt_ar_run *r, const afmt_ar_member *m);
/* A deflated member no rule parses (or a record nobody resolved):
 * inflated through the scratch buffer for its size and CRC-32.  0 or -1. */
int afmt_ar_check_deflated(afmt_ar_run *r, afmt_ar_member *m);

/* ---- afmt_zip.c, afmt_zip_local.c */
/* The end records and the central directory into r->m. */
int afmt_zip_read(afmt_ar_run *r);
/* Each member's compression method against the desc's (after the rules
 * are assigned, so that a refusal by name comes first). */
int afmt_zip_check_methods(afmt_ar_run *r);
/* Each member's local header, extra fields, descriptor, alignment, and
 * the layout between members. */
int afmt_zip_check_local(afmt_ar_run *r);
/* Check the extra fields in extra[0..n) (at absolute offset off; sub
 * names them in errors): each well formed, of an id the desc allows (else
 * refused, or a warning with extra_lenient), at most one zip64 field,
 * whose data and size go to *z64 (data NULL: none).  0 or -1. */
typedef struct afmt_zip64_field {
    const uint8_t *data;
    size_t size;
    uint64_t off;
} afmt_zip64_field;
int afmt_zip_extras(afmt_ar_run *r, const afmt_ar_member *m, const char *sub, const uint8_t *extra, size_t n,
                    uint64_t off, afmt_zip64_field *z64);
/* The end of central directory record of the archive [r->base, r->end),
 * of which held[0..) are the bytes from offset held_from (relative to
 * r->base) to the end: at the very end (back_to_back), else the last one
 * whose comment ends the archive; *end_off its absolute offset.  0, or -1
 * saying what is there instead (code AFMT_E_MAGIC, or AFMT_E_TRUNCATED
 * when local_first: the archive starts with a local header).  Searches
 * only what is held (a stream's last window). */
int afmt_zip_find_end(afmt_ar_run *r, const uint8_t *held, uint64_t held_from, int local_first, uint64_t *end_off);

/* ---- afmt_tar.c, afmt_tar_pax.c */
/* Every block from *pos, members acted on as they pass; *pos: the end. */
int afmt_tar_read(afmt_ar_run *r, uint64_t *pos);

/* What an extended header ('x' pax, 'L' GNU long name) says of the next
 * header's member. */
typedef struct afmt_tar_pending {
    const uint8_t *path; /* the run's copy */
    size_t path_len;
    uint64_t path_off;   /* where its bytes are in the input */
    int has_path, has_size;
    uint64_t size;
    char kind;           /* the typeflag of the extended header, 0: none */
} afmt_tar_pending;

/* The records of a pax header's data[0..n) at absolute offset off
 * ("%d %s=%s\n" each, tiling it): "path" and "size" (decimal) go to *p
 * unless global ('g'), others are read past.  sub: the field errors name
 * ("block[3].pax").  0 or -1. */
int afmt_tar_pax(afmt_ar_run *r, const uint8_t *data, uint64_t n, uint64_t off, int global, afmt_tar_pending *p,
                 const char *sub);

#endif /* AFMT_AR_RUN_H */
