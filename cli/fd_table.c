/* afmt CLI: a worker thread's own table of file descriptors (see fd_table.h). */
#ifdef __linux__
#define _GNU_SOURCE /* unshare(2) */
#include <sched.h>
#endif
#include "fd_table.h"

int afmt_cli_own_fd_table(void)
{
#if defined(__linux__) && defined(CLONE_FILES)
    return unshare(CLONE_FILES) == 0 ? 0 : -1;
#else
    return -1;
#endif
}
