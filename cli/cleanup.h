/* afmt CLI: leaving nothing behind when a signal ends the process.
 *
 * afmt convert and afmt random write OUT.XXXXXX and rename it into place
 * (runtime/io/afmt_sink.c).  A SIGINT, SIGTERM or SIGHUP between the two
 * used to leave that temporary file (gigabytes) behind.  The handlers
 * installed here remove every temporary output registered, then give the
 * signal its default action again and raise it, so the process still dies
 * of the signal (exit status 128 + N for the shell) as it would have.
 * SIGKILL cannot be caught; nothing can be done for it.
 *
 * The same removal serves sigbus.h: a mapped input cut short under afmt
 * dump or convert ends the process with a message, and what it was
 * writing goes too.
 *
 * State is process-wide (a signal handler has no other way to find it):
 * a few fixed slots, each set by one thread and read by the handler with
 * lock-free atomics only, so everything the handler does is
 * async-signal-safe (unlink, signal, raise).  Register and forget from
 * any thread; a slot belongs to whoever registered it.
 */
#ifndef AFMT_CLI_CLEANUP_H
#define AFMT_CLI_CLEANUP_H

#include "afmt.h"

/* Temporary outputs that can be registered at once (OUT and its sidecar). */
#define AFMT_CLI_CLEANUP_SLOTS 4

/* Install the SIGINT, SIGTERM and SIGHUP handlers (once per process; a
 * signal that was ignored when the process started, as nohup ignores
 * SIGHUP, stays ignored).  Thread-safe. */
void afmt_cli_cleanup_install(void);

/* Remember path (copied: at most 4111 bytes, else it is not registered)
 * as a temporary output to remove if a signal ends the process.  Returns
 * the slot to give afmt_cli_cleanup_forget, or -1 when every slot is
 * taken or the path is too long (then the file is not removed). */
int afmt_cli_cleanup_add(const char *path);

/* The output of slot is renamed into place or removed already: forget it
 * (slot -1: nothing).  Call it after the rename, not before, so that a
 * signal during the commit still removes the file. */
void afmt_cli_cleanup_forget(int slot);

/* Remove every registered temporary output now (unlink only:
 * async-signal-safe).  For the handlers here and in sigbus.c. */
void afmt_cli_cleanup_remove_all(void);

/* Open a file sink on path with the terminating signals held back while
 * its temporary file is created and registered (so that no signal lands
 * between the two), and register it: *slot is then its slot (-1 for a
 * sink written through, which has no temporary file).  Returns what
 * afmt_sink_file_open returns. */
int afmt_cli_cleanup_sink_open(afmt_sink *sink, const char *path, int *slot, afmt_error *err);

#endif /* AFMT_CLI_CLEANUP_H */
