/* afmt CLI: libarchive, loaded only when a tar shard is met.
 *
 * Why dlopen and not linking: libarchive pulls in libxml2, ICU, libstdc++,
 * nettle and four compression libraries, and loading them costs about
 * 3 ms at every start of afmt-validate, although only tar inputs need
 * them (issue 10).  A built-in tar reader would avoid the dependency, but
 * would still need gzip, bzip2, xz and zstd for compressed shards and
 * would be a second tar parser to keep right (pax, GNU long names,
 * sparse files); libarchive already is that.  So the library is opened
 * the first time a shard is read, and its absence is an error for that
 * input only ("tar shards need libarchive.so.13").
 *
 * The few declarations below are the part of libarchive's stable ABI
 * (libarchive.so.13) that tar.c uses, so no libarchive headers are
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
#define AFMT_LA_IFREG 0100000

typedef ssize_t afmt_la_read_fn(struct archive *, void *client, const void **buffer);
typedef int afmt_la_open_fn(struct archive *, void *client);
typedef int afmt_la_close_fn(struct archive *, void *client);

typedef struct afmt_cli_libarchive {
    struct archive *(*read_new)(void);
    int (*read_support_filter_all)(struct archive *);
    int (*read_support_format_tar)(struct archive *);
    int (*read_support_format_gnutar)(struct archive *);
    int (*read_open_filename)(struct archive *, const char *, size_t);
    int (*read_open_memory)(struct archive *, const void *, size_t);
    int (*read_open)(struct archive *, void *, afmt_la_open_fn *,
                     afmt_la_read_fn *, afmt_la_close_fn *);
    int (*read_next_header)(struct archive *, struct archive_entry **);
    ssize_t (*read_data)(struct archive *, void *, size_t);
    int (*read_free)(struct archive *);
    const char *(*error_string)(struct archive *);
    unsigned (*entry_filetype)(struct archive_entry *);
    const char *(*entry_pathname)(struct archive_entry *);
    int (*entry_size_is_set)(struct archive_entry *);
    int64_t (*entry_size)(struct archive_entry *);
} afmt_cli_libarchive;

/* The loaded library (loaded once per process, thread-safe; never
 * unloaded), or NULL when it cannot be loaded: then *why says so. */
const afmt_cli_libarchive *afmt_cli_libarchive_get(const char **why);

#endif /* AFMT_CLI_LIBARCHIVE_H */
