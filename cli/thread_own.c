/* afmt CLI: kernel state a worker thread takes for its own (see thread_own.h). */
#ifdef __linux__
#define _GNU_SOURCE /* unshare(2) */
#include <sched.h>
#include <sys/prctl.h>
#endif
#include "thread_own.h"

int afmt_cli_own_fd_table(void)
{
#if defined(__linux__) && defined(CLONE_FILES)
    return unshare(CLONE_FILES) == 0 ? 0 : -1;
#else
    return -1;
#endif
}

int afmt_cli_own_credentials(void)
{
#if defined(__linux__) && defined(PR_SET_KEEPCAPS)
    int keep = prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0);
    if (keep < 0)
        return -1;
    return prctl(PR_SET_KEEPCAPS, (unsigned long)keep, 0, 0, 0) == 0 ? 0 : -1;
#else
    return -1;
#endif
}
