/* afmt CLI: a worker thread's own table of file descriptors.
 *
 * Threads of one process share one descriptor table, and the kernel pays
 * for the sharing on every system call of a small input: open and close
 * take the table's lock, and fstat, pread and close take and drop a
 * reference on the file that a process of one thread skips.  With many
 * small files and -j 2, the two threads spent their time on that lock
 * and those counters.  A worker that only opens, reads and closes its own
 * inputs can have a table of its own instead (Linux: unshare(CLONE_FILES)).
 *
 * After the call the thread still holds every descriptor open before it
 * (standard output among them), as copies: what the thread opens or
 * closes later is its own, and the process's other threads do not see it.
 * Call it only on a thread that never hands a descriptor to another.
 */
#ifndef AFMT_CLI_FD_TABLE_H
#define AFMT_CLI_FD_TABLE_H

/* Give the calling thread a private copy of the descriptor table.  Returns
 * 0, or -1 where the system cannot (not Linux, or unshare failed): the
 * thread then goes on with the shared table, which is correct, only
 * slower. */
int afmt_cli_own_fd_table(void);

#endif
