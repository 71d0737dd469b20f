/* afmt-gen: the "archive" item (spec/LANGUAGE.md, "Archives"): a zip or
 * tar whose members are named sub-inputs, each matched by a name pattern
 * and parsed by another format, compared with an exact text, kept as a
 * record that values elsewhere point into, run through a value grammar
 * (a pickle), or refused by name.  The item compiles to a constant
 * afmt_archive_desc (and an afmt_pickle_desc per pickle) that
 * runtime/archive/afmt_archive.c carries out; this module loads and checks the
 * model and renders it.  The interpreter builds the same descriptors from
 * the same model (interp/interp_archive.c). */
#ifndef AFMT_GEN_ARCHIVE_H
#define AFMT_GEN_ARCHIVE_H

#include <stdint.h>

struct emitter;
struct item;
struct spec;

/* What a member rule does (runtime/archive/afmt_archive.h's afmt_ar_action). */
enum { AR_FORMAT = 1, AR_TEXT = 2, AR_RECORD = 3, AR_VALUES = 4, AR_REFUSE = 5, AR_IGNORE = 6 };

/* A pickle's global and what calling it (REDUCE) makes
 * (runtime/pickle/afmt_pickle.h's afmt_pk_role). */
enum { PK_DICT = 1, PK_ARRAY = 2, PK_WRAP = 3, PK_CLASS = 4, PK_REFUSE = 5 };
/* What one argument of a REDUCE must be (afmt_pk_arg). */
enum { PKA_UINT = 1, PKA_BOOL, PKA_UINT_TUPLE, PKA_STORAGE, PKA_EMPTY_DICT, PKA_ARRAY, PKA_PLAIN };
/* The parts of a persistent id (afmt_pk_pid_part). */
enum { PKP_TEXT = 1, PKP_CLASS, PKP_KEY, PKP_LOCATION, PKP_COUNT };
/* Kinds of values (root, dict keys): bits of afmt_pickle_desc's sets. */
enum { PKK_DICT = 1, PKK_LIST = 2, PKK_TUPLE = 4, PKK_ARRAY = 8, PKK_STR = 16, PKK_INT = 32 };

typedef struct pk_global {
    char *module, *name;
    int role;
    int args[8]; int nargs;
    int arg_storage, arg_offset, arg_shape, arg_stride; /* PK_ARRAY: indexes into args */
    char *dtype;                                        /* PK_CLASS */
    char *refuse;                                       /* PK_REFUSE */
    int writable;                                       /* PK_CLASS: the first of its dtype (the writer names it) */
    char *jpath;
} pk_global;

typedef struct pk_pid_part {
    int part;
    char *text;                  /* PKP_TEXT */
    char **patterns; int npatterns; /* PKP_LOCATION */
} pk_pid_part;

typedef struct pk_grammar {
    unsigned proto_min, proto_max;
    unsigned char ops[256];      /* 1: allowed */
    int canonical;
    pk_global *globals; int nglobals;
    pk_pid_part pid[8]; int npid;
    int keys_in_order;           /* storage keys "0", "1", ... in order of first use */
    int memo_in_order;           /* memo puts 0, 1, 2, ... right after each value made, nothing else */
    int build_on_dict;
    unsigned dict_keys;          /* PKK_STR | PKK_INT */
    unsigned root_kinds;         /* PKK_* */
    char cname[256];             /* C name of the emitted descriptor */
} pk_grammar;

typedef struct ar_rule {
    char *pattern;
    int action;                  /* AR_* */
    int required;
    char *format;                /* AR_FORMAT: the format's name */
    char *array_name;            /* AR_FORMAT: the views' name from captures, or NULL */
    char **texts; int ntexts, nstrict; /* AR_TEXT: strict texts first, then lenient ones */
    int sets;                    /* AR_TEXT: the archive variable it sets, -1 none */
    int endian_var;              /* AR_RECORD: the variable giving the byte order, -1 none */
    pk_grammar *pickle;          /* AR_VALUES */
    char *records;               /* AR_VALUES: the pattern of its records */
    int record_rule;             /* AR_VALUES: index of that AR_RECORD rule */
    char *reason;                /* AR_REFUSE */
    int lenient_only;            /* AR_IGNORE: only in lenient mode, with a warning */
    char *jpath;
} ar_rule;

typedef struct archive {
    int tar;                     /* 0 zip, 1 tar */
    unsigned methods, methods_lenient; /* bit 0 stored, bit 8 deflated */
    unsigned flags_allowed;
    uint64_t align; int align_lenient;
    int crc, crc_lenient;
    unsigned extra[8]; int nextra; int extra_lenient;
    int zip64_end;               /* 1: required */
    int back_to_back;
    ar_rule *rules; int nrules;
    int rest;                    /* 0 refuse, 1 ignore, 2 warn (lenient only) */
    char *vars[8]; int nvars;    /* names set by text rules */
    /* the writer: what each capture shared across members is written as
     * ("write_captures": {"prefix": "archive"}), data descriptors, the
     * zip64 end record even when no size needs it (torch writes both) */
    char *wcap_names[8], *wcap_values[8]; int nwcaps;
    int write_descriptor, write_zip64_end, write_zip64_local;
    char cname[256];
} archive;

/* Load the item at JSON object o (jansson json_t *); reports problems as
 * "PATH: /json/path: message" and adds them to *errors. */
archive *archive_load(const char *path, void *o, const char *jp, int *errors);

/* The rules of a that its writer's files must follow and could not (the
 * writer writes stored members, aligns with extra field 0x4246, writes
 * zip64 extra fields and data descriptors when asked): reported as for
 * archive_load.  Called for a spec that is written (no "read_only"). */
void archive_check_writer(const archive *a, const char *path, const char *jp, int *errors);

/* 1 when a member pattern is well formed: literal bytes and captures
 * {name}, {name:decimal}, {name:digits} (one per '/'-separated component)
 * and a last {*name} (the rest, '/' included).  (runtime/archive/afmt_archive.c reads the same grammar.) */
int archive_pattern_ok(const char *pattern, char *why, unsigned why_size);

/* Validator: emit (once) the descriptors and the call for this item. */
void archive_emit_validate(struct emitter *m, struct item *it);
/* Writer of a spec whose body is one archive item. */
int archive_in_spec(const struct spec *s);
void archive_emit_writer(struct emitter *m);

/* The pickle opcodes by pickle.py's names ("PROTO", "BINPUT"), for the
 * loader and for messages: the byte, or -1. */
int pickle_op_byte(const char *name);

#endif
