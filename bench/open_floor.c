/* The kernel's floor for validating many small files (bench row 4f).
 *
 * open_floor N < LIST: the paths of LIST (one per line) split over N
 * processes (path i to process i mod N), each doing for each of its paths
 * only what afmt-validate must: open, fstat, pread of the first 64 KiB,
 * close.  No format is detected and nothing is checked, so this is what
 * `afmt-validate -j N` would take if its own work cost nothing, and the
 * ratio of N = 2 to N = 1 is the best row 4c can reach on this machine.
 * Processes, not threads: they share no descriptor table (afmt-validate's
 * worker threads unshare theirs, cli/thread_own.h).
 *
 * Exit status 0, or 1 with a message when a path cannot be read.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* Read stdin whole; the paths are its lines (newlines become NULs). */
static char *read_list(size_t *len)
{
    size_t cap = 1 << 20, n = 0, got;
    char *buf = malloc(cap + 1);

    while (buf && (got = fread(buf + n, 1, cap - n, stdin)) > 0) {
        n += got;
        if (n == cap) {
            char *bigger = realloc(buf, 2 * cap + 1);
            if (!bigger) {
                free(buf);
                return NULL;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

/* Open, fstat, pread and close every path k, k + n, k + 2n, ... */
static int check_share(char *list, size_t len, long k, long n)
{
    static char head[65536];
    struct stat st;
    long i = 0;
    char *p = list, *end = list + len;

    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            nl = end;
        *nl = '\0';
        if (*p && i++ % n == k) {
            int fd = open(p, O_RDONLY | O_CLOEXEC | O_NOCTTY);
            if (fd < 0 || fstat(fd, &st) != 0 || pread(fd, head, sizeof head, 0) < 0) {
                perror(p);
                return 1;
            }
            close(fd);
        }
        p = nl + 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    long n = argc == 2 ? strtol(argv[1], NULL, 10) : 0, k;
    size_t len;
    char *list;
    int status, rc = 0;

    if (n < 1 || n > 64) {
        fprintf(stderr, "usage: open_floor N < LIST  (N processes, 1 to 64)\n");
        return 2;
    }
    list = read_list(&len);
    if (!list) {
        fprintf(stderr, "open_floor: out of memory\n");
        return 1;
    }
    for (k = 1; k < n; k++) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        if (pid == 0)
            _exit(check_share(list, len, k, n));
    }
    rc = check_share(list, len, 0, n);
    while (wait(&status) > 0)
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            rc = 1;
    free(list);
    return rc;
}
