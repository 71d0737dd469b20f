/* afmt CLI: libarchive, loaded only when a compressed tar shard is met,
 * and used only to decompress it (gzip, bzip2, xz, zstd, lz4: its "raw"
 * format behind its filters).  The tar itself is read by afmt's own
 * reader, in the library (spec/webdataset.json over runtime/archive/afmt_tar.c),
 * as any other input is: a plain .tar needs no libarchive at all.
 *
 * Why dlopen and not linking: libarchive pulls in libxml2, ICU, libstdc++,
 * nettle and four compression libraries, and loading them costs about
 * 3 ms at every start of afmt-validate, although only compressed shards
 * need them (issue 10).  So the library is opened the first time one is
 * read, and its absence is an error for that input only ("compressed tar
 * shards need libarchive.so.13").
 *
 * The few declarations below are the part of libarchive's stable ABI
 * (libarchive.so.13) that shard.c uses, so no libarchive headers are
 * needed to build afmt.
 */
#ifndef AFMT_CLI_LIBARCHIVE_H
#define AFMT_CLI_LIBARCHIVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct archive;
struct archive_entry;

#define AFMT_LA_EOF 1
#define AFMT_LA_OK 0
#define AFMT_LA_WARN (-20)
#define AFMT_LA_FATAL (-30)

typedef ssize_t afmt_la_read_fn(struct archive *, void *client, const void **buffer);
typedef int afmt_la_open_fn(struct archive *, void *client);
typedef int afmt_la_close_fn(struct archive *, void *client);

typedef struct afmt_cli_libarchive {
    struct archive *(*read_new)(void);
    int (*read_support_filter_all)(struct archive *);
    int (*read_support_format_raw)(struct archive *);
    int (*read_open_filename)(struct archive *, const char *, size_t);
    int (*read_open)(struct archive *, void *, afmt_la_open_fn *,
                     afmt_la_read_fn *, afmt_la_close_fn *);
    int (*read_next_header)(struct archive *, struct archive_entry **);
    ssize_t (*read_data)(struct archive *, void *, size_t);
    int (*read_free)(struct archive *);
    const char *(*error_string)(struct archive *);
} afmt_cli_libarchive;

/* The loaded library (loaded once per process, thread-safe; never
 * unloaded), or NULL when it cannot be loaded: then *why says so. */
const afmt_cli_libarchive *afmt_cli_libarchive_get(const char **why);

#endif /* AFMT_CLI_LIBARCHIVE_H */
