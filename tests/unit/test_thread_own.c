/* cli/thread_own.h: a worker thread's private descriptor table and
 * credentials hold the same contents as before, and what the worker opens
 * afterwards is its own. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif
#include "../../cli/thread_own.h"
#include "check.h"

/* What the kernel says the calling thread is. */
typedef struct identity {
    uid_t uid, euid;
    gid_t gid, egid;
    int ngroups;
    gid_t groups[64];
    int keepcaps;
#ifdef __linux__
    struct __user_cap_data_struct caps[2];
#endif
} identity;

static void identity_of_thread(identity *id)
{
    memset(id, 0, sizeof *id);
    id->uid = getuid();
    id->euid = geteuid();
    id->gid = getgid();
    id->egid = getegid();
    id->ngroups = getgroups(64, id->groups);
#ifdef __linux__
    {
        struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
        id->keepcaps = prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0);
        (void)syscall(SYS_capget, &hdr, id->caps);
    }
#endif
}

typedef struct worker_result {
    int shared_fd; /* opened by main before the worker starts */
    int fd_rc, cred_rc;
    int same_identity;
    int inherited_fd_works; /* a descriptor opened before the call */
    int own_fd;             /* opened after the call, for main to look for */
} worker_result;

static void *worker(void *arg)
{
    worker_result *r = arg;
    identity before, after;
    char byte;

    identity_of_thread(&before);
    r->fd_rc = afmt_cli_own_fd_table();
    r->cred_rc = afmt_cli_own_credentials();
    identity_of_thread(&after);
    r->same_identity = memcmp(&before, &after, sizeof before) == 0;
    r->inherited_fd_works = pread(r->shared_fd, &byte, 1, 0) == 1;
    r->own_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    return NULL;
}

int main(void)
{
    worker_result r = {0};
    pthread_t t;

    r.shared_fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    CHECK("thread_own: a file to share opens", r.shared_fd >= 0);
    CHECK("thread_own: worker starts", pthread_create(&t, NULL, worker, &r) == 0);
    pthread_join(t, NULL);
#ifdef __linux__
    CHECK("thread_own: own descriptor table", r.fd_rc == 0);
    CHECK("thread_own: own credentials", r.cred_rc == 0);
    /* the worker's descriptor numbered like the next free one is not the
     * main thread's: main's next open gets that number too */
    {
        int mine = open("/dev/null", O_RDONLY | O_CLOEXEC);
        CHECK("thread_own: the worker's open is its own (main reuses its number)", mine == r.own_fd);
        if (mine >= 0)
            close(mine);
    }
#endif
    CHECK("thread_own: same user, groups, capabilities after the calls", r.same_identity);
    CHECK("thread_own: a descriptor open before the call still reads", r.inherited_fd_works);
    close(r.shared_fd);
    CHECK_DONE();
}
