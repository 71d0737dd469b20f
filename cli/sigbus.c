/* afmt CLI: the SIGBUS guard and watch (see sigbus.h). */
#include "sigbus.h"

#include <inttypes.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "quote.h"
#include "signal_guard.h"

/* The watched mapping (process-wide: the single-input commands watch one
 * input), and its message made beforehand: the handler only adds the
 * offset.  watch_armed is set last and cleared first, so the handler
 * never reads a half-written watch. */
static atomic_int watch_armed;
static uintptr_t watch_lo, watch_hi;
static char watch_prefix[AFMT_CLI_QUOTED_MAX + 160];
static char watch_suffix[96];
static char watch_path[4096];          /* "" when too long to keep */
static uint64_t watch_dev, watch_ino;

/* The first byte of the file that is no longer there, for a fault at
 * offset at: the file's size now when it is still the file mapped (same
 * device and inode) and ends before at, else at.  Where the fault falls
 * depends on the order the reader touches bytes in (memcpy loads a
 * copy's last bytes first), the file's new end does not.  stat is
 * async-signal-safe. */
static uint64_t first_missing(uint64_t at, const char *path, uint64_t dev, uint64_t ino)
{
    struct stat st;

    if (!path || !path[0] || stat(path, &st) != 0)
        return at;
    if ((uint64_t)st.st_dev != dev || (uint64_t)st.st_ino != ino || st.st_size < 0)
        return at;
    return (uint64_t)st.st_size < at ? (uint64_t)st.st_size : at;
}

/* v in decimal into out (at least 21 bytes): its length.  Async-signal-
 * safe, unlike snprintf. */
static size_t decimal(uint64_t v, char *out)
{
    char rev[20];
    size_t n = 0, i;

    do {
        rev[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (i = 0; i < n; i++)
        out[i] = rev[n - 1 - i];
    return n;
}

static void write_all(const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = write(STDERR_FILENO, p, n);
        if (k <= 0)
            return; /* nothing more can be said */
        p += k;
        n -= (size_t)k;
    }
}

/* A watched mapping was cut short: say where, remove the temporary
 * outputs, and end with exit status 2 (AFMT_EXIT_ERROR). */
static void die_cut_short(uintptr_t at)
{
    char num[24];

    write_all(watch_prefix, strlen(watch_prefix));
    write_all(num, decimal(first_missing((uint64_t)(at - watch_lo), watch_path, watch_dev, watch_ino), num));
    write_all(watch_suffix, strlen(watch_suffix));
    afmt_cli_cleanup_remove_all();
    _exit(2);
}

/* A SIGBUS outside any guard: the watched input cut short, or a crash. */
static void outside_guard(int sig, siginfo_t *info, void *ucontext, const struct sigaction *previous)
{
    uintptr_t at = (uintptr_t)info->si_addr;

    (void)ucontext;
    (void)previous; /* the CLI installs no other SIGBUS handler */
    if (atomic_load(&watch_armed) && at >= watch_lo && at < watch_hi)
        die_cut_short(at);
    afmt_signal_die(sig);
}

int afmt_cli_sigbus_guard(void (*fn)(void *ctx), void *ctx, uintptr_t *fault_addr)
{
    afmt_signal_guard_install(SIGBUS, outside_guard);
    return afmt_signal_guard_run(SIGBUS, NULL, NULL, fn, ctx, fault_addr);
}

uint64_t afmt_cli_sigbus_describe(uintptr_t fault_addr, const afmt_cli_mapped *file, char *msg, size_t cap)
{
    uintptr_t lo = (uintptr_t)file->base;
    uint64_t size = file->len;
    uint64_t at = fault_addr >= lo && fault_addr - lo < size ? (uint64_t)(fault_addr - lo) : size;

    at = first_missing(at, file->path, file->dev, file->ino);
    snprintf(msg, cap,
             "the file was cut short while it was read: no byte at offset %" PRIu64
             " any more (it was %" PRIu64 " bytes when opened)",
             at, size);
    return at;
}

void afmt_cli_sigbus_watch(const char *prog, const afmt_cli_mapped *file)
{
    char quoted[AFMT_CLI_QUOTED_MAX];
    const char *path = file->path ? file->path : "";
    uint64_t len = file->len;

    afmt_signal_guard_install(SIGBUS, outside_guard);
    atomic_store(&watch_armed, 0);
    snprintf(watch_prefix, sizeof watch_prefix,
             "%s%s%s: error: the file was cut short while it was read: no byte at offset ",
             prog ? prog : "", prog ? ": " : "", afmt_cli_quote_name(path, quoted, sizeof quoted));
    snprintf(watch_suffix, sizeof watch_suffix, " any more (it was %" PRIu64 " bytes when opened)\n",
             len);
    if (strlen(path) < sizeof watch_path)
        memcpy(watch_path, path, strlen(path) + 1);
    else
        watch_path[0] = '\0';
    watch_dev = file->dev;
    watch_ino = file->ino;
    watch_lo = (uintptr_t)file->base;
    watch_hi = (uintptr_t)file->base + (uintptr_t)len;
    atomic_store(&watch_armed, 1);
}

void afmt_cli_sigbus_unwatch(void)
{
    atomic_store(&watch_armed, 0);
}
