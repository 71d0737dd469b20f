/* tests/faults: an LD_PRELOAD shim that changes an input file the moment
 * the program maps it or first reads it by offset (afmt-validate reads a
 * file through a window with pread, afmt info and convert map it), so
 * that "a file cut short while it is read" happens at a known place every
 * run instead of by a race.
 *
 * AFMT_FAULT_PATH   the file to act on (matched by device and inode)
 * AFMT_FAULT_ACTION shrink (truncate to AFMT_FAULT_SIZE bytes), grow
 *                   (append AFMT_FAULT_SIZE zero bytes) or vanish (unlink)
 *
 * Only the first mapping or pread of that file in the process is acted on
 * (before the pread reads).  Built by tests/faults/run.sh; never part of
 * the tools. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static int acted;

static void act(const char *path)
{
    const char *action = getenv("AFMT_FAULT_ACTION");
    const char *size = getenv("AFMT_FAULT_SIZE");
    long long n = size ? atoll(size) : 0;

    if (!action || strcmp(action, "shrink") == 0) {
        (void)truncate(path, (off_t)n);
    } else if (strcmp(action, "grow") == 0) {
        struct stat st;
        if (stat(path, &st) == 0)
            (void)truncate(path, st.st_size + (off_t)n);
    } else if (strcmp(action, "vanish") == 0) {
        (void)unlink(path);
    }
}

/* fd is the file to act on, not yet acted on */
static int is_target(int fd)
{
    const char *path = getenv("AFMT_FAULT_PATH");
    struct stat a, b;
    return !acted && fd >= 0 && path && fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

static ssize_t first_pread(int fd, void *buf, size_t n, off_t off, const char *name)
{
    typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);
    pread_fn real = (pread_fn)dlsym(RTLD_NEXT, name);
    if (is_target(fd)) {
        acted = 1;
        act(getenv("AFMT_FAULT_PATH"));
    }
    return real(fd, buf, n, off);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    return first_pread(fd, buf, n, off, "pread");
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
    return first_pread(fd, buf, n, off, "pread64");
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
    static mmap_fn real;
    const char *path = getenv("AFMT_FAULT_PATH");
    struct stat a, b;
    void *p;

    if (!real)
        real = (mmap_fn)dlsym(RTLD_NEXT, "mmap");
    p = real(addr, len, prot, flags, fd, off);
    if (p != MAP_FAILED && !acted && fd >= 0 && path && fstat(fd, &a) == 0 &&
        stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
        acted = 1;
        act(path);
    }
    return p;
}
