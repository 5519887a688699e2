/* What a watched call is about, decided on the object rather than on the text the process
 * passed (object.h): which descriptor a write-open's exempted name stands for, whether a
 * program is the one the command's word resolves to on the trusted PATH, whether a signal's
 * target is in the command's own tree, whether a socket path is exactly a name service's, and
 * a connect done on the process's own socket with the address we checked.  Below watch.c. */
#define _GNU_SOURCE
#include "confine/object.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/kcmp.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#ifndef __NR_openat2
#define __NR_openat2 437
#endif

void shc__obj_init(shc_obj *o)
{
    memset(o, 0, sizeof *o);
    o->null_rdev = makedev(1, 3);
}

void shc__obj_tty(shc_obj *o, const char *pts)
{
    struct stat st;
    if (!pts || strlen(pts) >= sizeof o->pts || stat(pts, &st) != 0 || !S_ISCHR(st.st_mode))
        return;
    snprintf(o->pts, sizeof o->pts, "%s", pts);
    o->tty_rdev = st.st_rdev;
    o->have_tty = true;
}

/* The object pid's descriptor fd is: SHC_OBJ_NULL, SHC_OBJ_TTY, or SHC_OBJ_OTHER. */
static int fd_object(const shc_obj *o, pid_t pid, long fd)
{
    char link[64];
    struct stat st;
    if (fd < 0 || fd > 1 << 20)
        return SHC_OBJ_OTHER;
    snprintf(link, sizeof link, "/proc/%d/fd/%ld", (int)pid, fd);
    if (stat(link, &st) != 0 || !S_ISCHR(st.st_mode))
        return SHC_OBJ_OTHER;
    if (st.st_rdev == o->null_rdev)
        return SHC_OBJ_NULL;
    if (o->have_tty && st.st_rdev == o->tty_rdev)
        return SHC_OBJ_TTY;
    return SHC_OBJ_OTHER;
}

bool shc__obj_fd_is_tty(const shc_obj *o, pid_t pid, long fd)
{
    char link[64];
    struct stat st;
    if (o->have_tty)
        return fd_object(o, pid, fd) == SHC_OBJ_TTY;
    snprintf(link, sizeof link, "/proc/%d/fd/%ld", (int)pid, fd);
    return stat(link, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev != o->null_rdev;
}

/* "N" of a descriptor name: digits only, or -1. */
static long fd_number(const char *s)
{
    long v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > 1 << 20)
            return -1;
        v = v * 10 + (*s - '0');
    }
    return v;
}

int shc__obj_write_open(const shc_obj *o, pid_t pid, const char *path, unsigned flags)
{
    if (!strcmp(path, "/dev/null"))
        return SHC_OBJ_NULL;
    if (!o->have_tty)
        return SHC_OBJ_OTHER;
    if (!strcmp(path, "/dev/tty") || !strcmp(path, o->pts))
        return SHC_OBJ_TTY;
    /* the names that reopen one of the process's descriptors: what that descriptor is */
    static const struct {
        const char *prefix;
        long fd; /* -1: the number follows the prefix */
    } reopen[] = {{"/dev/stdout", 1}, {"/dev/stderr", 2}, {"/dev/fd/", -1},
                  {"/proc/self/fd/", -1}, {"/proc/thread-self/fd/", -1}};
    if (flags & O_NOFOLLOW)
        return SHC_OBJ_OTHER; /* these are links: the kernel refuses them (ELOOP) */
    for (size_t i = 0; i < sizeof reopen / sizeof reopen[0]; i++) {
        size_t l = strlen(reopen[i].prefix);
        if (strncmp(path, reopen[i].prefix, l))
            continue;
        long fd = reopen[i].fd >= 0 ? (path[l] ? -1 : reopen[i].fd) : fd_number(path + l);
        return fd < 0 ? SHC_OBJ_OTHER : fd_object(o, pid, fd);
    }
    return SHC_OBJ_OTHER;
}

int shc__obj_open(const shc_obj *o, int obj, unsigned flags)
{
    const char *path = obj == SHC_OBJ_NULL ? "/dev/null" : o->pts;
    int fd = open(path, (int)((flags & ~(unsigned)O_CLOEXEC) | O_NOCTTY | O_CLOEXEC), 0666);
    return fd < 0 ? -errno : fd;
}

/* ------------------------------------------------------------------ processes */

pid_t shc__obj_parent(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    const char *r = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
    int ppid = 0;
    return r && sscanf(r + 1, " %*c %d", &ppid) == 1 ? (pid_t)ppid : 0;
}

bool shc__obj_in_tree(pid_t leader, pid_t self, pid_t target)
{
    char path[64];
    if (target <= 0)
        return false;
    if (target == self)
        return true;
    /* a thread of its own (ag pins its workers: sched_setaffinity of a thread id), or a task
     * that is gone already (the call then fails with ESRCH, reaching no one) */
    snprintf(path, sizeof path, "/proc/%d/task/%d", (int)self, (int)target);
    if (access(path, F_OK) == 0)
        return true;
    snprintf(path, sizeof path, "/proc/%d", (int)target);
    if (access(path, F_OK) != 0 && errno == ENOENT)
        return true;
    for (int i = 0; i < 256 && target > 1; i++) {
        if (target == leader)
            return true;
        target = shc__obj_parent(target);
    }
    return false;
}

bool shc__obj_signal_outside(pid_t leader, pid_t self, bool is_kill, long target, long sig)
{
    if (sig == 0)
        return false; /* a probe */
    if (is_kill && target == 0)
        return false; /* its own process group */
    if (is_kill && target < -1)
        return !leader || -target != leader;
    return !leader || !shc__obj_in_tree(leader, self, (pid_t)target);
}

/* The number after FIELD ("Threads:", "Tgid:") in tid's /proc status; 0 when it cannot be
 * read. */
static long status_field(pid_t tid, const char *field)
{
    char path[64], buf[8192];
    snprintf(path, sizeof path, "/proc/%d/status", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    for (const char *t = buf; (t = strstr(t, field)) != NULL; t++)
        if (t == buf || t[-1] == '\n')
            return atol(t + strlen(field));
    return 0;
}

enum { TREE_MAX = 512 }; /* processes of a command's tree looked at; more: not sole */

int shc__obj_sole_writer(pid_t leader, pid_t tid)
{
    if (status_field(tid, "Threads:") != 1)
        return 1;
    if (leader <= 0)
        return 2; /* no tree to look in: cannot tell */
    pid_t tree[TREE_MAX];
    size_t n = 0, i = 0;
    tree[n++] = leader;
    for (; i < n; i++) {
        pid_t p = tree[i];
        if (p != tid) {
            long r = syscall(SYS_kcmp, (pid_t)tid, p, KCMP_VM, 0UL, 0UL);
            if (r == 0)
                return 2; /* shares its memory (CLONE_VM, vfork) */
        }
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task", (int)p);
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char cpath[320], buf[4096];
            snprintf(cpath, sizeof cpath, "/proc/%d/task/%s/children", (int)p, e->d_name);
            int fd = open(cpath, O_RDONLY | O_CLOEXEC);
            ssize_t k = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
            if (fd >= 0)
                close(fd);
            if (k == (ssize_t)sizeof buf - 1) {
                closedir(d);
                return 2; /* too many to read: cannot tell */
            }
            buf[k > 0 ? k : 0] = 0;
            for (char *c = buf, *end; *c; c = end) {
                long kid = strtol(c, &end, 10);
                if (end == c)
                    break;
                if (n == TREE_MAX) {
                    closedir(d);
                    return 2;
                }
                tree[n++] = (pid_t)kid;
            }
        }
        if (d)
            closedir(d);
    }
    return 0;
}

/* The process (thread group) a thread belongs to. */
static pid_t tgid_of(pid_t tid)
{
    return (pid_t)status_field(tid, "Tgid:");
}

/* ------------------------------------------------------------------ paths shown */

/* An absolute form of a relative path: the directory of dirfd (or the cwd) before it. */
void shc__obj_absolutise(pid_t pid, int dirfd, char *path, size_t cap)
{
    if (path[0] == '/' || !path[0])
        return;
    char link[64], dir[PATH_MAX];
    if (dirfd == AT_FDCWD || dirfd < 0)
        snprintf(link, sizeof link, "/proc/%d/cwd", (int)pid);
    else
        snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, dirfd);
    ssize_t n = readlink(link, dir, sizeof dir - 1);
    if (n <= 0)
        return;
    dir[n] = 0;
    size_t dl = (size_t)n, pl = strlen(path);
    if (dl + 1 + pl + 1 > cap)
        return; /* too long to show whole: shown as the call gave it (display only) */
    memmove(path + dl + 1, path, pl + 1);
    memcpy(path, dir, dl);
    path[dl] = '/';
}

/* The file an open descriptor of pid names (a call on the descriptor itself, no path given). */
void shc__obj_fd_path(pid_t pid, int fd, char *path, size_t cap)
{
    path[0] = 0;
    if (fd < 0)
        return;
    char link[64];
    snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, fd);
    ssize_t n = readlink(link, path, cap - 1);
    path[n > 0 ? n : 0] = 0;
}

/* ------------------------------------------------------------------ programs */

static void add_id(shc_obj *o, const struct stat *st)
{
    if (o->nids == sizeof o->ids / sizeof o->ids[0])
        return;
    for (size_t i = 0; i < o->nids; i++)
        if (o->ids[i].dev == st->st_dev && o->ids[i].ino == st->st_ino)
            return;
    o->ids[o->nids].dev = st->st_dev;
    o->ids[o->nids++].ino = st->st_ino;
}

/* Where a named program may come from: the absolute directories of the agent's PATH and the
 * system's.  A command's own PATH=./bin or a relative entry does not count. */
void shc__obj_programs(shc_obj *o, const char *programs, size_t len)
{
    static const char sys[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    const char *env = getenv("PATH");
    for (size_t i = 0; i < len;) {
        const char *name = programs + i;
        size_t nl = strlen(name);
        i += nl + 1;
        if (!nl || strchr(name, '/'))
            continue;
        for (int pass = 0; pass < 2; pass++) {
            const char *s = pass ? sys : env;
            while (s && *s) {
                const char *c = strchr(s, ':');
                size_t dl = c ? (size_t)(c - s) : strlen(s);
                char full[4096];
                struct stat st;
                if (dl && s[0] == '/' && dl + 1 + nl < sizeof full) {
                    memcpy(full, s, dl);
                    full[dl] = '/';
                    memcpy(full + dl + 1, name, nl + 1);
                    if (stat(full, &st) == 0 && S_ISREG(st.st_mode))
                        add_id(o, &st);
                }
                s = c ? c + 1 : NULL;
            }
        }
    }
}

bool shc__obj_program_trusted(const shc_obj *o, const char *abs_path)
{
    struct stat st;
    if (abs_path[0] != '/' || stat(abs_path, &st) != 0)
        return false;
    for (size_t i = 0; i < o->nids; i++)
        if (o->ids[i].dev == st.st_dev && o->ids[i].ino == st.st_ino)
            return true;
    return false;
}

int shc__obj_exec_open(pid_t tid, int dirfd, const char *path)
{
    char dir[64];
    bool abs = path[0] == '/';
    if (abs)
        snprintf(dir, sizeof dir, "/proc/%d/root", (int)tid);
    else if (dirfd == AT_FDCWD || dirfd < 0)
        snprintf(dir, sizeof dir, "/proc/%d/cwd", (int)tid);
    else
        snprintf(dir, sizeof dir, "/proc/%d/fd/%d", (int)tid, dirfd);
    /* the one magic link followed on purpose: the command's own root, cwd or directory fd */
    int d = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (d < 0)
        return errno == ENOTDIR ? -ENOTDIR : -ESRCH; /* gone, or no such descriptor */
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = RESOLVE_NO_MAGICLINKS | (abs ? RESOLVE_IN_ROOT : 0);
    long fd = syscall(__NR_openat2, d, path, &how, sizeof how);
    int e = errno;
    close(d);
    return fd < 0 ? -e : (int)fd;
}

static void set_id(shc_obj *o, size_t i, int k, const struct stat *st)
{
    o->after[i].dev[k] = st->st_dev;
    o->after[i].ino[k] = st->st_ino;
}

void shc__obj_exec_expect(shc_obj *o, pid_t tid, const char *abs_path)
{
    char link[64], interp[256];
    struct stat st;
    pid_t tgid = tgid_of(tid);
    if (tgid <= 0)
        return;
    size_t i = 0;
    while (i < o->nafter && o->after[i].pid != tgid)
        i++;
    if (i == sizeof o->after / sizeof o->after[0])
        i = 0; /* full: the oldest place is reused */
    else if (i == o->nafter)
        o->nafter++;
    memset(&o->after[i], 0, sizeof o->after[i]);
    o->after[i].pid = tgid;
    snprintf(link, sizeof link, "/proc/%d/exe", (int)tid);
    if (stat(link, &st) == 0)
        set_id(o, i, 0, &st);
    if (stat(abs_path, &st) == 0)
        set_id(o, i, 1, &st);
    int fd = open(abs_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    ssize_t n = fd >= 0 ? read(fd, interp, sizeof interp - 1) : -1;
    if (fd >= 0)
        close(fd);
    if (n > 2 && interp[0] == '#' && interp[1] == '!') {
        interp[n] = 0;
        char *a = interp + 2, *z;
        while (*a == ' ' || *a == '\t')
            a++;
        for (z = a; *z && *z != ' ' && *z != '\t' && *z != '\n'; z++)
            ;
        *z = 0;
        if (stat(a, &st) == 0)
            set_id(o, i, 2, &st);
    }
}

bool shc__obj_exec_check(shc_obj *o, pid_t pid, char *detail, size_t cap)
{
    for (size_t i = 0; i < o->nafter; i++) {
        if (o->after[i].pid != pid)
            continue;
        char link[64];
        struct statx sx; /* what the kernel holds: a FUSE or network file is not asked */
        snprintf(link, sizeof link, "/proc/%d/exe", (int)pid);
        bool ok = statx(AT_FDCWD, link, AT_STATX_DONT_SYNC, STATX_INO, &sx) != 0; /* gone */
        dev_t dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
        for (int k = 0; k < 3 && !ok; k++)
            ok = o->after[i].ino[k] && o->after[i].dev[k] == dev && o->after[i].ino[k] == sx.stx_ino;
        o->after[i] = o->after[--o->nafter];
        if (ok)
            return false;
        ssize_t n = readlink(link, detail, cap - 1);
        detail[n > 0 ? n : 0] = 0;
        return true;
    }
    return false;
}

/* ------------------------------------------------------------------ the end of a process */

/* A character device anyone's command may hold: /dev/null, zero, full, random, urandom, and
 * /dev/tty (the controlling terminal, the command's own). */
static bool plain_device(const shc_obj *o, dev_t rdev)
{
    unsigned ma = major(rdev), mi = minor(rdev);
    if (rdev == o->null_rdev || (ma == 1 && (mi == 5 || mi == 7 || mi == 8 || mi == 9)) ||
        (ma == 5 && mi == 0))
        return true;
    return o->have_tty && rdev == o->tty_rdev;
}

/* The type and device of pfd's descriptor fd without a path walk or a request to a file
 * system (a copy of the descriptor, statx with AT_STATX_DONT_SYNC): a FUSE file the command
 * serves itself, or a network file, is described from what the kernel holds, never waited
 * on.  False when it cannot be had. */
static bool fd_kind(int pfd, int fd, mode_t *mode, dev_t *rdev)
{
    long c = syscall(__NR_pidfd_getfd, pfd, fd, 0);
    if (c < 0)
        return false;
    struct statx sx;
    bool ok = statx((int)c, "", AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_TYPE, &sx) == 0 &&
              (sx.stx_mask & STATX_TYPE);
    close((int)c);
    *mode = sx.stx_mode;
    *rdev = makedev(sx.stx_rdev_major, sx.stx_rdev_minor);
    return ok;
}

bool shc__obj_exit_held(const shc_obj *o, pid_t pid, char *detail, size_t cap)
{
    char dir[64], link[64 + 256], target[PATH_MAX];
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    pid_t tgid = d ? tgid_of(pid) : 0;
    long pfd = tgid > 0 ? syscall(__NR_pidfd_open, tgid, 0) : -1;
    if (!d || pfd < 0) {
        if (d)
            closedir(d);
        else if (dfd >= 0)
            close(dfd);
        if (pfd >= 0)
            close((int)pfd);
        return false; /* gone already: nothing to say */
    }
    bool held = false;
    int seen = 0;
    struct dirent *e;
    while (!held && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (++seen > 4096) {
            snprintf(detail, cap, "more than 4096 open descriptors at its end");
            held = true;
            break;
        }
        /* the link's text costs no file system a request: pipes, sockets and anonymous
         * inodes are the process's own */
        snprintf(link, sizeof link, "%s/%s", dir, e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        target[n > 0 ? n : 0] = 0;
        if (n <= 0 || target[0] != '/')
            continue;
        mode_t mode = 0;
        dev_t rdev = 0;
        if (!fd_kind((int)pfd, atoi(e->d_name), &mode, &rdev))
            continue;
        bool chr = S_ISCHR(mode), fifo = S_ISFIFO(mode);
        bool kmsg = S_ISREG(mode) && !strcmp(target, "/proc/kmsg");
        if ((!chr && !fifo && !kmsg) || (chr && plain_device(o, rdev)))
            continue;
        snprintf(detail, cap, "%s held open: %s",
                 chr ? "a device" : fifo ? "a named pipe" : "the kernel log", target);
        held = true;
    }
    closedir(d);
    close((int)pfd);
    return held;
}

/* ------------------------------------------------------------------ sockets */

bool shc__obj_nss_socket(const char *path)
{
    static const char userdb[] = "/run/systemd/userdb/io.systemd.";
    if (!strcmp(path, "/run/nscd/socket") || !strcmp(path, "/var/run/nscd/socket"))
        return true;
    if (strncmp(path, userdb, sizeof userdb - 1) || !path[sizeof userdb - 1])
        return false;
    for (const char *p = path + sizeof userdb - 1; *p; p++) /* one name, letters only */
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')))
            return false;
    return true;
}

/* A copy of thread tid's descriptor fd (pidfd_getfd), or -errno. */
static int take_fd(pid_t tid, long fd)
{
    if (fd < 0 || fd > 1 << 20)
        return -EBADF;
    pid_t tgid = tgid_of(tid);
    long pfd = tgid > 0 ? syscall(__NR_pidfd_open, tgid, 0) : -1;
    if (pfd < 0)
        return -ESRCH;
    long s = syscall(__NR_pidfd_getfd, (int)pfd, (int)fd, 0);
    int e = errno;
    close((int)pfd);
    return s < 0 ? -(e ? e : EBADF) : (int)s;
}

int shc__obj_connect(pid_t tid, long fd, const char *path)
{
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    size_t l = strlen(path);
    if (l >= sizeof a.sun_path)
        return -EINVAL;
    memcpy(a.sun_path, path, l);
    int s = take_fd(tid, fd);
    if (s < 0)
        return s;
    int rc = connect(s, (const struct sockaddr *)&a,
                     (socklen_t)(offsetof(struct sockaddr_un, sun_path) + l + 1));
    int e = errno;
    close(s);
    return rc == 0 ? 0 : -e;
}

bool shc__obj_sock_connected(pid_t tid, long fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    int s = take_fd(tid, fd);
    if (s < 0)
        return false;
    bool ok = getpeername(s, (struct sockaddr *)&ss, &len) == 0;
    close(s);
    return ok;
}
