/* afmt CLI: removing temporary outputs when a signal ends the process
 * (see cleanup.h). */
#include "cleanup.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/* A path as long as afmt_sink's tmp_path holds. */
#define SLOT_PATH_MAX (4096 + 16)

enum { SLOT_FREE, SLOT_CLAIMED, SLOT_ARMED };

/* Process-wide because a signal handler can find nothing else.  A slot's
 * path is written only while the slot is SLOT_CLAIMED (by the thread that
 * claimed it), and the handler reads it only when it is SLOT_ARMED. */
static char slot_path[AFMT_CLI_CLEANUP_SLOTS][SLOT_PATH_MAX];
static atomic_int slot_state[AFMT_CLI_CLEANUP_SLOTS];

void afmt_cli_cleanup_remove_all(void)
{
    int i;

    for (i = 0; i < AFMT_CLI_CLEANUP_SLOTS; i++)
        if (atomic_load(&slot_state[i]) == SLOT_ARMED)
            (void)unlink(slot_path[i]);
}

/* Remove what was being written, then die of sig as if it had not been
 * caught: sig is held back while this runs, so the raise takes effect,
 * with the default action, when the handler returns. */
static void on_terminate(int sig)
{
    int saved = errno;

    afmt_cli_cleanup_remove_all();
    signal(sig, SIG_DFL);
    raise(sig);
    errno = saved;
}

static const int terminating[] = { SIGINT, SIGTERM, SIGHUP };

static void install_handlers(void)
{
    size_t i;

    for (i = 0; i < sizeof terminating / sizeof terminating[0]; i++) {
        struct sigaction sa, old;
        if (sigaction(terminating[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue; /* nohup's SIGHUP, a background job's SIGINT: keep ignoring */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_terminate;
        sigemptyset(&sa.sa_mask);
        (void)sigaction(terminating[i], &sa, NULL);
    }
}

static pthread_once_t install_once = PTHREAD_ONCE_INIT;

void afmt_cli_cleanup_install(void)
{
    pthread_once(&install_once, install_handlers);
}

int afmt_cli_cleanup_add(const char *path)
{
    size_t len = strlen(path);
    int i;

    if (len >= SLOT_PATH_MAX)
        return -1;
    for (i = 0; i < AFMT_CLI_CLEANUP_SLOTS; i++) {
        int expected = SLOT_FREE;
        if (atomic_compare_exchange_strong(&slot_state[i], &expected, SLOT_CLAIMED)) {
            memcpy(slot_path[i], path, len + 1);
            atomic_store(&slot_state[i], SLOT_ARMED);
            return i;
        }
    }
    return -1;
}

void afmt_cli_cleanup_forget(int slot)
{
    if (slot >= 0 && slot < AFMT_CLI_CLEANUP_SLOTS)
        atomic_store(&slot_state[slot], SLOT_FREE);
}

int afmt_cli_cleanup_sink_open(afmt_sink *sink, const char *path, int *slot, afmt_error *err)
{
    sigset_t held, before;
    size_t i;
    int rc;

    afmt_cli_cleanup_install();
    sigemptyset(&held);
    for (i = 0; i < sizeof terminating / sizeof terminating[0]; i++)
        sigaddset(&held, terminating[i]);
    /* a signal between mkstemp and the registration would leave the file */
    pthread_sigmask(SIG_BLOCK, &held, &before);
    rc = afmt_sink_file_open(sink, path, err);
    *slot = rc == 0 && sink->tmp_path[0] ? afmt_cli_cleanup_add(sink->tmp_path) : -1;
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    return rc;
}
