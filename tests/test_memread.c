/* src/confine/memread.c: the supervisor's reads of a watched process's memory.  One reader
 * process serves every read of a watch; a read that cannot finish (here a file on a FUSE
 * file system whose server never answers, as a command serving its own file system can) is
 * given up at the deadline, the next read gets a new reader, and the abandoned one ends when its
 * read does.  A process whose read is stuck so still ends at once, and its pipes close (the
 * agent's exit and stdout do not wait for a stuck fault); a watch abandons a bounded number of
 * readers.  And shc__mem_remote() on addresses of anonymous memory, a disk file's mapping and
 * no mapping at all. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "confine/sandbox.h"

static int threads(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* Waits up to 3 s for the thread count to be want. */
static int threads_settle(int want)
{
    int n = threads();
    for (int i = 0; i < 300 && n != want; i++) {
        usleep(10000);
        n = threads();
    }
    return n;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void reads_with_one_reader(void **state)
{
    (void)state;
    int mem = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
    assert_true(mem >= 0);
    int base = threads();
    shc__memreader *r = shc__memreader_new();
    assert_non_null(r);
    char src[300], got[300];
    for (int i = 0; i < 200; i++) {
        snprintf(src, sizeof src, "read %d of the watch's memory", i);
        memset(got, 0, sizeof got);
        ssize_t n = shc__mem_pread(r, mem, got, strlen(src) + 1, (uint64_t)(uintptr_t)src);
        assert_int_equal(n, (ssize_t)strlen(src) + 1);
        assert_string_equal(got, src);
        assert_int_equal(threads(), base); /* a process reads: no thread of ours */
    }
    /* more than a page at once is refused, not cut */
    static char big[8192];
    assert_int_equal(shc__mem_pread(r, mem, big, sizeof big, (uint64_t)(uintptr_t)big), -1);
    assert_int_equal(errno, EINVAL);
    shc__memreader_free(r);
    assert_int_equal(threads_settle(base), base);
    close(mem);
}

/* ------------------------------------------------------------------ a FUSE file that never
 * delivers: a server on a thread of ours answers what it takes to open and map /F (init,
 * lookup, getattr, open) and never answers a read, as a command serving its own file system
 * can.  Needs /dev/fuse and the right to mount (root, in a mount namespace of the test's own). */

typedef struct fusesrv {
    int dev;
    pthread_t t;
} fusesrv;

static void fuse_reply(int dev, uint64_t unique, int error, const void *body, size_t n)
{
    char out[512];
    struct fuse_out_header h = {(uint32_t)(sizeof h + n), error, unique};
    memcpy(out, &h, sizeof h);
    if (n)
        memcpy(out + sizeof h, body, n);
    ssize_t w = write(dev, out, sizeof h + n);
    (void)w;
}

static void fuse_attr_of(struct fuse_attr *a, uint64_t node)
{
    memset(a, 0, sizeof *a);
    a->ino = node;
    a->nlink = 1;
    a->blksize = 4096;
    if (node == FUSE_ROOT_ID) {
        a->mode = S_IFDIR | 0755;
    } else {
        a->mode = S_IFREG | 0644;
        a->size = 65536;
        a->blocks = 128;
    }
}

static void *fuse_serve(void *arg)
{
    fusesrv *s = arg;
    static char buf[FUSE_MIN_READ_BUFFER + 65536];
    for (;;) {
        ssize_t n = read(s->dev, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < (ssize_t)sizeof(struct fuse_in_header))
            return NULL; /* the connection is gone */
        struct fuse_in_header *in = (struct fuse_in_header *)buf;
        switch (in->opcode) {
        case FUSE_INIT: {
            struct fuse_init_out o = {.major = FUSE_KERNEL_VERSION, .minor = 31,
                                      .max_readahead = 65536, .max_write = 65536,
                                      .max_background = 4, .congestion_threshold = 3};
            fuse_reply(s->dev, in->unique, 0, &o, sizeof o);
            break;
        }
        case FUSE_LOOKUP: {
            const char *name = buf + sizeof *in;
            if (strcmp(name, "F")) {
                fuse_reply(s->dev, in->unique, -ENOENT, NULL, 0);
                break;
            }
            struct fuse_entry_out o = {.nodeid = 2, .entry_valid = 60, .attr_valid = 60};
            fuse_attr_of(&o.attr, 2);
            fuse_reply(s->dev, in->unique, 0, &o, sizeof o);
            break;
        }
        case FUSE_GETATTR: {
            struct fuse_attr_out o = {.attr_valid = 60};
            fuse_attr_of(&o.attr, in->nodeid);
            fuse_reply(s->dev, in->unique, 0, &o, sizeof o);
            break;
        }
        case FUSE_OPEN: {
            struct fuse_open_out o = {.fh = 1};
            fuse_reply(s->dev, in->unique, 0, &o, sizeof o);
            break;
        }
        case FUSE_READ:
            break; /* never */
        case FUSE_FORGET:
        case FUSE_BATCH_FORGET:
            break; /* no answer is expected */
        default:
            fuse_reply(s->dev, in->unique, -ENOSYS, NULL, 0);
        }
    }
}

/* Mounts the never-delivering file system on dir: false (with a line on stderr) where this
 * machine cannot. */
static bool fuse_up(fusesrv *s, const char *dir)
{
    s->dev = open("/dev/fuse", O_RDWR | O_CLOEXEC);
    if (s->dev < 0) {
        fprintf(stderr, "no /dev/fuse here (%s)\n", strerror(errno));
        return false;
    }
    char opts[128];
    snprintf(opts, sizeof opts, "fd=%d,rootmode=40000,user_id=0,group_id=0", s->dev);
    if (mount("shcard-test", dir, "fuse", MS_NOSUID | MS_NODEV, opts) != 0) {
        fprintf(stderr, "cannot mount a FUSE file system here (%s)\n", strerror(errno));
        close(s->dev);
        return false;
    }
    if (pthread_create(&s->t, NULL, fuse_serve, s) != 0) {
        umount2(dir, MNT_DETACH);
        close(s->dev);
        return false;
    }
    return true;
}

/* Aborts the connection (every waiting read fails) and unmounts. */
static void fuse_down(fusesrv *s, const char *dir)
{
    char path[128];
    struct stat st;
    if (stat(dir, &st) == 0) {
        snprintf(path, sizeof path, "/sys/fs/fuse/connections/%u/abort", minor(st.st_dev));
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
            ssize_t w = write(fd, "1", 1);
            (void)w;
            close(fd);
        }
    }
    umount2(dir, MNT_DETACH);
    close(s->dev);
    pthread_join(s->t, NULL);
}

/* Whether this test process could get a mount namespace of its own (main, before threads). */
static bool own_mounts;

static void stuck_read_gives_up(void **state)
{
    (void)state;
    char dir[] = "/tmp/shc-memread.XXXXXX";
    fusesrv s;
    if (!own_mounts || !mkdtemp(dir)) {
        fprintf(stderr, "no mount namespace of our own: the deadline is not tested\n");
        skip();
    }
    if (!fuse_up(&s, dir)) {
        rmdir(dir);
        skip();
    }
    char file[64];
    snprintf(file, sizeof file, "%s/F", dir);
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    /* the mapping of a FUSE file: shc__mem_remote says so (the supervisor never reads it) */
    char *map = mmap(NULL, 65536, PROT_READ, MAP_SHARED, fd, 0);
    assert_true(map != MAP_FAILED);
    char local[16] = "local";
    uint64_t addrs[6] = {(uint64_t)(uintptr_t)local, 0, (uint64_t)(uintptr_t)(map + 100), 0, 0, 0};
    shc__target self;
    shc__target_open(&self, getpid(), NULL);
    assert_true(shc__mem_remote(&self, addrs, 6));
    addrs[2] = 0;
    assert_false(shc__mem_remote(&self, addrs, 6));
    shc__target_close(&self);

    int base = threads();
    shc__memreader *r = shc__memreader_new();
    char buf[64];
    double t0 = now_s();
    /* a read that never returns (the server does not answer): given up at the deadline */
    ssize_t n = shc__mem_pread(r, fd, buf, sizeof buf, 0);
    double took = now_s() - t0;
    assert_int_equal(n, -1);
    assert_int_equal(errno, ETIMEDOUT);
    assert_true(took >= SHC__MEM_DEADLINE_MS / 1000.0 * 0.9);
    assert_true(took < SHC__MEM_DEADLINE_MS / 1000.0 + 5);
    /* the next read is served by a new thread, at once */
    int mem = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
    assert_true(mem >= 0);
    char src[] = "after the stuck read";
    t0 = now_s();
    n = shc__mem_pread(r, mem, buf, sizeof src, (uint64_t)(uintptr_t)src);
    assert_int_equal(n, (ssize_t)sizeof src);
    assert_string_equal(buf, src);
    assert_true(now_s() - t0 < 0.5);
    assert_int_equal(threads(), base); /* the reader is a process: no thread of ours waits */
    /* a string that starts in ordinary memory and runs on into the FUSE file's page: its
     * start is no FUSE mapping, but no page of it is read past the ordinary one, at once */
    long pg = sysconf(_SC_PAGESIZE);
    char *two = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
    assert_true(two != MAP_FAILED);
    assert_true(mmap(two + pg, (size_t)pg, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) == two + pg);
    memset(two + pg - 16, 'a', 16); /* no NUL before the page ends */
    shc__target tgt;
    shc__target_open(&tgt, getpid(), r);
    uint64_t start = (uint64_t)(uintptr_t)(two + pg - 16);
    assert_false(shc__mem_remote(&tgt, &start, 1));
    char path[64];
    t0 = now_s();
    assert_int_equal(shc__target_str(&tgt, start, path, sizeof path), -1);
    assert_true(now_s() - t0 < 0.5);
    assert_int_equal(threads(), base);
    char wide[64];
    assert_false(shc__target_read(&tgt, wide, sizeof wide, start));
    assert_int_equal(errno, EFAULT);
    /* the same string ending before the page: read */
    two[pg - 1] = 0;
    assert_int_equal(shc__target_str(&tgt, start, path, sizeof path), 1);
    assert_int_equal(strlen(path), 15);
    shc__target_close(&tgt);
    munmap(two, (size_t)pg * 2);
    /* the file system goes away: the abandoned reader's read fails and it ends */
    munmap(map, 65536);
    close(fd);
    fuse_down(&s, dir); /* its server thread is joined: base counted it */
    shc__memreader_free(r);
    assert_int_equal(threads_settle(base - 1), base - 1);
    close(mem);
    rmdir(dir);
}

/* Waits up to secs for pid to end: its status, or -1 (still running). */
static int wait_for(pid_t pid, double secs)
{
    int st = 0;
    for (double t0 = now_s(); now_s() - t0 < secs; usleep(10000))
        if (waitpid(pid, &st, WNOHANG) == pid)
            return st;
    return -1;
}

/* A process whose read waits for ever in a FUSE fault (the supervisor's, in an agent) ends as
 * soon as it wants to, and its pipes close with it (an agent's stdout): the stuck read is
 * another process's.  At the cap of stuck readers, reads fail at once without reading. */
static void stuck_read_does_not_hold_its_owner(void **state)
{
    (void)state;
    char dir[] = "/tmp/shc-memread.XXXXXX";
    fusesrv s;
    if (!own_mounts || !mkdtemp(dir)) {
        fprintf(stderr, "no mount namespace of our own: the deadline is not tested\n");
        skip();
    }
    if (!fuse_up(&s, dir)) {
        rmdir(dir);
        skip();
    }
    char file[64];
    snprintf(file, sizeof file, "%s/F", dir);
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t kid = fork();
    assert_true(kid >= 0);
    if (kid == 0) { /* the agent: one read that never returns, then its end */
        close(p[0]);
        int fd = open(file, O_RDONLY | O_CLOEXEC);
        shc__memreader *r = shc__memreader_new();
        char buf[64];
        ssize_t n = fd >= 0 && r ? shc__mem_pread(r, fd, buf, sizeof buf, 0) : 0;
        if (n != -1 || errno != ETIMEDOUT)
            _exit(2);
        if (write(p[1], "x", 1) != 1)
            _exit(3);
        shc__memreader_free(r);
        exit(0); /* every thread of it must end for this to finish */
    }
    close(p[1]);
    char c;
    struct pollfd pf = {p[0], POLLIN, 0};
    assert_int_equal(poll(&pf, 1, 10000), 1);
    assert_int_equal(read(p[0], &c, 1), 1); /* its read was given up */
    double t0 = now_s();
    int st = wait_for(kid, 5);
    bool ended = st >= 0;
    /* its pipe closed: nothing of it still holds the write end */
    pf.revents = 0;
    bool eof = ended && poll(&pf, 1, 2000) == 1 && read(p[0], &c, 1) == 0;
    if (!ended)
        kill(kid, SIGKILL);
    fuse_down(&s, dir); /* ends whatever still waits on the file system */
    if (!ended)
        waitpid(kid, &st, 0);
    close(p[0]);
    assert_true(ended);
    assert_true(now_s() - t0 < 5);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_true(eof);

    /* the cap: a watch leaves a few stuck readers, then reads nothing more */
    assert_true(fuse_up(&s, dir));
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    shc__memreader *r = shc__memreader_new();
    char buf[64];
    int stuck = 0;
    while (!shc__memreader_full(r) && stuck < 100) {
        assert_int_equal(shc__mem_pread(r, fd, buf, sizeof buf, 0), -1);
        assert_int_equal(errno, ETIMEDOUT);
        stuck++;
    }
    assert_true(stuck >= 1 && stuck <= 8);
    int mem = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
    assert_true(mem >= 0);
    char src[] = "never read";
    t0 = now_s();
    assert_int_equal(shc__mem_pread(r, mem, buf, sizeof src, (uint64_t)(uintptr_t)src), -1);
    assert_int_equal(errno, ETIMEDOUT);
    assert_true(now_s() - t0 < 0.2);
    close(mem);
    close(fd);
    fuse_down(&s, dir);
    shc__memreader_free(r);
    rmdir(dir);
}

static void remote_mappings(void **state)
{
    (void)state;
    char stack_word[16] = "on the stack";
    char *heap = malloc(64);
    assert_non_null(heap);
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    void *file = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    assert_true(file != MAP_FAILED);
    uint64_t addrs[6] = {(uint64_t)(uintptr_t)stack_word, (uint64_t)(uintptr_t)heap,
                         (uint64_t)(uintptr_t)file, 0, 7, 0x10};
    /* none of these is on FUSE or a network file system (the test binary is on a local disk
     * or a local overlay) */
    shc__target t;
    shc__target_open(&t, getpid(), NULL);
    assert_false(shc__mem_remote(&t, addrs, 6));
    shc__target_close(&t);
    /* a process that does not exist: nothing to read */
    shc__target_open(&t, 0x7ffffff0, NULL);
    assert_int_equal(t.mem, -1);
    assert_false(shc__target_read(&t, stack_word, 4, addrs[0]));
    shc__target_close(&t);
    munmap(file, 4096);
    close(fd);
    free(heap);
}

int main(void)
{
    /* a mount namespace of our own, private, so a FUSE mount ends with the test */
    own_mounts = getuid() == 0 && unshare(CLONE_NEWNS) == 0 &&
                 mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_with_one_reader),
        cmocka_unit_test(stuck_read_gives_up),
        cmocka_unit_test(stuck_read_does_not_hold_its_owner),
        cmocka_unit_test(remote_mappings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
