/* INTERNAL HEADER: for generated code and the runtime only, not an API (it
 * changes with AFMT_RUNTIME_ABI); programs include <afmt/afmt.h> and <afmt/<format>.h>. */
/* afmt runtime: archives (zip, tar) whose members are named sub-inputs.
 *
 * afmt-gen compiles a spec's "archive" item into an afmt_archive_desc
 * (constant data; the reference interpreter builds the same): the
 * container's layout rules and a list of member rules, each a name pattern
 * and what a member of that name is: a file of another format, one of a
 * few exact texts, raw records that values elsewhere point into, a value
 * grammar (a pickle), a refusal, or allowed and not parsed.  npz, PyTorch
 * checkpoints and WebDataset shards are such specs.  The functions here
 * carry out a description; they know no format.
 *
 * Order of the checks (zip): the end records, the central directory and
 * every entry's own fields and name, duplicate names; each member matched
 * to its rule (captures consistent, refusals); each local header, extra
 * field, descriptor, the layout between members, CRC-32s; then the rules'
 * actions in central order (texts, formats), the value grammars last
 * (after every text that sets a variable), and at the end the rules'
 * presence and the records nobody referenced.  Tar: one forward pass over
 * the headers, each member acted on as it passes, value grammars and the
 * final checks at the end.  The first problem found is the verdict.
 *
 * Errors name "<name>" (the desc's name) for the container's own records
 * (archive.end.cd_offset, archive.central[3] for an entry whose name is
 * not read yet, archive.block[7].checksum) and "<name>[\"member\"]" plus the member's own field for a
 * member (archive["w.npy"].local.method, archive["w.npy"].header.shape),
 * below the caller's path; offsets are absolute; messages carry the true
 * numbers.  Names in fields are escaped (\" \\ \xNN) and cut to about 100
 * bytes.
 *
 * Memory (freed before returning): one entry per member (about 100 bytes;
 * a zip's central entry is at least 47 bytes of input, a tar member 512),
 * a sorted list of names, for a deflated member whose bytes a rule needs a
 * buffer of its claimed size (checked first against the bytes there, at
 * most 1032 per compressed byte, and against limits.max_decoded_bytes for
 * the whole run) -- or, for a member a format parses that claims more
 * than limits.max_held_bytes, a window of AFMT_MEMBER_WINDOW bytes it is
 * parsed through as a stream (its views then carry no data) -- the
 * inflater's 46 KiB, 64 KiB to check members that are not parsed, and for
 * tar the names.
 *
 * The visitor: a member a format parses is told to on_member before its
 * parse and (NULL) after it; the views, warnings and fields in between
 * are the member's, the fields named below it ("archive[\"w.npy\"]
 * .header.shape") at absolute offsets.  check_values 0 reads no member's
 * data that no rule parses, nor a stored member's for its CRC-32.
 *
 * With opt->check_values 0 (the structure only) the CRC-32 of stored
 * members is not computed; deflated members are still inflated (their
 * sizes and streams are structure) and their CRC-32 checked on the way.
 *
 * Sources: a zip needs random access; from a stream (afmt_src with read)
 * the whole archive must fit the stream's window, else AFMT_E_LIMIT saying
 * so.  A tar streams: each member a rule parses must fit the window, the
 * rest is read through; a desc with a values rule needs the whole archive
 * in the window too.  Views from a stream source carry data == NULL
 * (afmt.h); views of a deflated member's arrays point into the run's
 * buffer and are valid only during on_array, and their offset is that of
 * the member's compressed data (the inflated bytes have none in the
 * input).
 *
 * Thread-safety: reentrant; descriptors are constant data.
 */
#ifndef AFMT_ARCHIVE_H
#define AFMT_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>
#include "../afmt.h"
#include "afmt_ar_values.h"
#include "../common/afmt_error.h"
#include "../io/afmt_src.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum afmt_ar_kind { AFMT_AR_ZIP = 1, AFMT_AR_TAR = 2 } afmt_ar_kind;

typedef enum afmt_ar_action {
    AFMT_AR_FORMAT = 1, /* parsed by rule.format: its validate on the member's bytes; its
                           views go to the visitor named by rule.array_name */
    AFMT_AR_TEXT,       /* exactly one of rule.texts (strict: texts[0..nstrict), lenient:
                           any, with a warning for one past nstrict) */
    AFMT_AR_RECORD,     /* raw bytes a values member points into (a storage) */
    AFMT_AR_VALUES,     /* a value grammar: rule.values(rule.values_desc, ...) */
    AFMT_AR_REFUSE,     /* the archive is refused, naming the member and rule.reason */
    AFMT_AR_IGNORE      /* allowed, not parsed (lenient only when rule.lenient_only) */
} afmt_ar_action;

/* How many members a rule must match. */
typedef enum afmt_ar_presence {
    AFMT_AR_OPTIONAL = 0,    /* any number */
    AFMT_AR_REQUIRED = 1,    /* at least one */
    AFMT_AR_AT_MOST_ONE = 2, /* zero or one */
    AFMT_AR_EXACTLY_ONE = 3  /* one */
} afmt_ar_presence;

/* A member no rule matches. */
typedef enum afmt_ar_rest {
    AFMT_AR_REST_REFUSE = 0,  /* refused in both modes */
    AFMT_AR_REST_IGNORE = 1,  /* allowed, not parsed */
    AFMT_AR_REST_LENIENT = 2  /* refused in strict mode, ignored with a warning in lenient */
} afmt_ar_rest;

/* Bounds of a desc (afmt_archive_desc_check refuses more). */
#define AFMT_AR_RULES_MAX 64u
#define AFMT_AR_VARS_MAX 16u
#define AFMT_AR_CAPTURES_MAX 8u /* distinct capture names in one desc */
#define AFMT_AR_NAME_MAX 65535u  /* the longest member name (zip's own bound) */

typedef struct afmt_ar_rule {
    /* Literal bytes and captures: "{prefix}/data/{key}", "{name}.npy".  A
     * capture {x} matches 1 or more bytes without '/', and a component of
     * the pattern (between '/') holds at most one, so a name matches in one
     * way; a capture {*x} (last in the pattern, or followed only by a
     * literal ending without '/': "{*key}.ten") matches 1 or more bytes,
     * '/' included (a folder's whole tree).  A capture whose name appears in
     * two or more rules (prefix) must take one value in every member of the
     * archive (torch: one folder holds every record). */
    const char *pattern;
    afmt_ar_action action;
    afmt_ar_presence presence;
    /* FORMAT: the format, and its views' name from captures ("{name}"; ""
     * or NULL keeps the names the format gives them) */
    const struct afmt_format *format;
    const char *array_name;
    /* TEXT: the texts allowed, the first nstrict of them in strict mode;
     * sets: an archive variable (index < nvars) set to the index of the
     * text found (torch's byteorder: "little" 0, "big" 1), -1 none */
    const char *const *texts;
    size_t ntexts, nstrict;
    int sets;
    /* RECORD: the variable giving the records' byte order (0 little, 1
     * big; unset: little), -1 none; must_reference: every record must be
     * resolved by some values member (else an error naming it) */
    int endian_var;
    int must_reference;
    /* VALUES: the grammar and its description; record_rule: the index of
     * the RECORD rule whose pattern, with the values' storage key as its
     * last capture and its other captures as this member matched them,
     * names the record a key resolves to */
    afmt_ar_values_fn values;
    const void *values_desc;
    int record_rule;
    /* REFUSE: why ("a TorchScript archive holds code") */
    const char *reason;
    /* IGNORE, and a TEXT's texts past nstrict: in lenient mode only, with
     * a warning (for IGNORE; TEXT warns past nstrict whatever this says) */
    int lenient_only;
} afmt_ar_rule;

typedef struct afmt_archive_desc {
    const char *format; /* for messages: "torch" */
    const char *name;   /* the root of error fields: "archive" */
    afmt_ar_kind kind;
    /* zip layout; each a rule of FORMATS.md, *_lenient: also accepted in
     * lenient mode, with a warning */
    unsigned methods, methods_lenient; /* bit m: compression method m (0 stored, 8 deflated: the
                                          only two afmt reads) */
    uint16_t flags_allowed;            /* general-purpose bits allowed (torch 0x0808); encryption
                                          (bits 0, 6, 13) is refused whatever this says */
    uint64_t align;                    /* member data at a multiple of this from the archive's
                                          start (torch 64), 0 or 1: any */
    int align_lenient;
    int crc, crc_lenient;              /* CRC-32 checked; a wrong one a warning in lenient mode */
    const uint16_t *extra_ids;         /* extra-field ids allowed (0x0001 zip64, 0x4246 "FB") */
    size_t nextra;
    int extra_lenient;
    int zip64_end;                     /* 1: the zip64 end record and locator are required */
    int back_to_back;                  /* a local header at the archive's first byte, members in
                                          central order with nothing between them, the central
                                          directory right after, the end records ending the archive,
                                          no comments */
    int one_disk;                      /* disk numbers 0 and one disk (else not looked at) */
    const afmt_ar_rule *rules;         /* the first rule whose pattern matches applies */
    size_t nrules;
    afmt_ar_rest rest;
    unsigned nvars;                    /* archive variables (TEXT sets, RECORD endian_var) */
} afmt_archive_desc;

/* Is d a description afmt_archive_validate can carry out?  Patterns well
 * formed (captures closed, named, one per component, {*x} last or before
 * a literal ending), rule
 * fields of their action set (a format, texts with nstrict <= ntexts, a
 * values function and a record_rule naming a RECORD rule whose pattern
 * ends in a capture), variables below nvars, at most AFMT_AR_RULES_MAX
 * rules, AFMT_AR_VARS_MAX variables, AFMT_AR_CAPTURES_MAX capture names,
 * methods only 0 and 8.  0, or -1 with AFMT_E_USAGE naming the rule
 * ("rules[2].pattern").  For afmt-gen's and the interpreter's loaders; the
 * validator checks it too.  Allocates nothing. */
AFMT_GEN_API int afmt_archive_desc_check(const afmt_archive_desc *d, afmt_error *err);

/* Validate the archive in [*pos, end) of src (zip: its offsets count from
 * *pos, and its end records end at end; tar: blocks from *pos up to the
 * end of the input or region) by d; pass the members' views to
 * vis->on_array (index counting on from *narrays, which is advanced) in
 * archive order, views of value grammars after the others.  *pos becomes
 * the archive's end.  Warnings (lenient tolerances, a member's own)
 * go to vis->on_warning; a member's on_metadata, on_kv and on_trailer
 * are passed on, their offsets absolute.  opt is the caller's (not NULL,
 * as generated code passes it), used for the members' validators too.
 * 0, or -1 with err (see above).  Allocation: see above, all freed
 * before returning, views' buffers included. */
AFMT_GEN_API int afmt_archive_validate(const afmt_archive_desc *d, afmt_src *src, uint64_t end, uint64_t *pos,
                                       uint32_t *narrays, const afmt_options *opt, const afmt_visitor *vis,
                                       const afmt_path *path, afmt_error *err);

#ifdef __cplusplus
}
#endif
#endif /* AFMT_ARCHIVE_H */
