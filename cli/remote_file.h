/* afmt CLI: a remote file (http://, https://) as a buffer that fills in
 * as it is read, shared by afmt-validate (remote.c), afmt info, afmt dump
 * and afmt convert, so that every command takes a URL where it takes a
 * file.
 *
 * The file is mapped as reserved address space of its size (PROT_NONE,
 * MAP_NORESERVE: nothing allocated); ranges fetched are made readable.
 * afmt_cli_remote_file_run runs a validation over the mapping under the
 * fault guard (fault_guard.h) and, each time it touches a byte not
 * fetched yet, fetches a range there (64 KiB, doubling up to 16 MiB while
 * each read goes on where the last range ended, 16 KiB elsewhere)
 * and runs it again from the start (in a child process, so that what the
 * abandoned run allocated goes with it): a header costs a few ranges, an
 * archive's central directory and members' headers one small range each,
 * a payload nothing until something reads it.  afmt_cli_remote_file_fetch_all makes
 * the whole file readable, for the commands that read every value.
 *
 * Ownership: the caller owns the afmt_cli_remote_file and its url (which
 * must outlive it); afmt_cli_remote_file_close frees the mapping and the
 * connection.  One thread at a time: the guard and the connection are the
 * calling thread's.
 */
#ifndef AFMT_CLI_REMOTE_FILE_H
#define AFMT_CLI_REMOTE_FILE_H

#include <stddef.h>
#include <stdint.h>
#include "afmt.h"
#include "remote.h"

/* Ranges fetched for one afmt_cli_remote_file_run at most: a header
 * larger than this is beyond any limit a validator allows by default. */
#define AFMT_CLI_REMOTE_MAX_FETCHED ((uint64_t)256 << 20)

typedef struct afmt_cli_remote_file {
    afmt_cli_http http;    /* http.size: the file's size */
    const uint8_t *data;   /* the mapping: http.size bytes, readable where fetched */
    uint64_t first_len;    /* bytes readable from data[0] after open (detection) */
    uint8_t *map;          /* the mapping, writable through mprotect */
    size_t map_len;
    uint64_t next_range;   /* the size of the range a fault fetches next */
    uint64_t last_end;     /* where the last range a fault fetched ended */
    int whole;             /* every byte fetched (fetch_all) */
} afmt_cli_remote_file;

/* Connect to url and fetch its first 64 KiB (or all of a shorter file):
 * data[0..first_len) is then readable, the rest reserved.  0, or -1 with
 * err (AFMT_E_IO: libcurl missing, HTTP status, no range support, TLS;
 * AFMT_E_NOMEM; AFMT_E_LIMIT: too large to map); afmt_cli_remote_file_close
 * is needed either way. */
int afmt_cli_remote_file_open(afmt_cli_remote_file *f, const char *url, afmt_error *err);

/* Run fn(ctx), fetching what it reads.  With probe (may be NULL): first
 * probe(ctx) runs in child processes, each fetching (in this process)
 * what the last one faulted on, until one runs to its end; a run
 * abandoned at a fault leaves its allocations behind, and a child's go
 * with it.  probe must read what fn reads (the same validation, with no
 * visitor) and must not lock, print or wait on other threads: it runs in
 * a fork of a threaded process, its standard output and error sent to
 * /dev/null.  Then fn runs, and again from the start after each range
 * fetched (after a good probe, none), so it must begin by forgetting what
 * an abandoned run left (its results, the visitor's state).  0 when fn
 * ran to its end, -1 with err (fetching failed; AFMT_E_LIMIT past
 * AFMT_CLI_REMOTE_MAX_FETCHED bytes fetched). */
int afmt_cli_remote_file_run(afmt_cli_remote_file *f, void (*fn)(void *ctx),
                             void (*probe)(void *ctx), void *ctx, afmt_error *err);

/* Fetch every byte not fetched yet (consecutive ranges of 16 MiB): data
 * is then readable throughout, without the guard.  The caller checks the
 * size against its limit first: memory is the file's size.  0, or -1
 * with err. */
int afmt_cli_remote_file_fetch_all(afmt_cli_remote_file *f, afmt_error *err);

/* Unmap, disconnect; f may be half open (after a failed open). */
void afmt_cli_remote_file_close(afmt_cli_remote_file *f);

/* The URL's path for telling the format by extension: no query
 * ("?download=true"), no fragment, into buf (size bytes, cut to fit). */
const char *afmt_cli_url_path(const char *url, char *buf, size_t size);

#endif /* AFMT_CLI_REMOTE_FILE_H */
