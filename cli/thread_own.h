/* afmt CLI: kernel state a worker thread takes for its own.
 *
 * Threads of one process share kernel objects that a process of one
 * thread has to itself, and with many small inputs the kernel pays for
 * that sharing on every file: the counters and locks of a shared object
 * move between the CPUs.  A worker thread that only opens, reads and
 * closes its own inputs can take private copies instead, with the same
 * contents, so nothing it does means anything different.
 *
 * Both calls are Linux-only and best-effort: where the system cannot,
 * they return -1 and the thread goes on with the shared object, which is
 * correct, only slower.  Thread-safety: each acts on the calling thread
 * only.
 */
#ifndef AFMT_CLI_THREAD_OWN_H
#define AFMT_CLI_THREAD_OWN_H

/* The descriptor table (Linux: unshare(CLONE_FILES)).  With a shared
 * table every open and close takes the table's lock, and fstat, pread
 * and close take and drop a reference on the file that a process of one
 * thread skips; with -j 2 on 10,000 small files the two threads spent
 * their time there.
 *
 * After the call the thread still holds every descriptor open before it
 * (standard output among them), as copies: what it opens or closes later
 * is its own, and the process's other threads do not see it.  Call it
 * only on a thread that never hands a descriptor to another.  Returns 0
 * or -1. */
int afmt_cli_own_fd_table(void);

/* The credentials (user, groups, capabilities: unchanged).  Every file
 * opened holds a reference on its opener's credentials from open to
 * close, and threads share one credentials object, so with -j 2 each
 * open and close of a small file moved that counter between the CPUs
 * (perf: init_file and __fput, about a twentieth of the time).  Setting
 * the thread's "keep capabilities" flag to the value it already has
 * (prctl PR_SET_KEEPCAPS, a per-thread attribute) makes the kernel give
 * the thread a copy of its credentials.  Returns 0 or -1. */
int afmt_cli_own_credentials(void);

#endif
