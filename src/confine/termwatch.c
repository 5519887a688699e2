/* Reads that take what belongs to another reader, seen by their open (termwatch.h): a card's
 * command that reads another terminal (keystroke theft), the system console, the kernel log
 * (/proc/kmsg: each message is read once) or a named pipe (another consumer's messages) and
 * closes it before it ends.  The seccomp filter does not notify read-only opens (one
 * notification per file would cost rg over 70k files too much), and what a process still holds
 * when it ends is checked by object.c; this file covers the rest with one inotify instance per
 * watched command: IN_OPEN on /dev/pts (its entries), /dev/console, /dev/ttyN, /dev/ttySN,
 * /proc/kmsg, and each named pipe or character device an exec of the command names in its
 * arguments.  The kernel tells no opener (fanotify would, but only to a privileged listener),
 * so an open is the command's when a descriptor of a process of its tree names the object; and
 * when none does (it read and closed it before we looked), the open still counts when the
 * object is not the command's own terminal, existed before the command started (a terminal
 * created since is a new session's, whose own process opens it) and nobody else is known to
 * open it: a card that becomes a terminal card by mistake costs a look; a missed keystroke
 * theft costs a password.  docs/verified-cards.md lists the false alarms this allows. */
#define _GNU_SOURCE
#include "confine/termwatch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

enum {
    MAX_WATCHES = 192, /* the fixed nodes (a host has about 96 ttyN, ttySN) and named ones */
    MAX_PTS = 4096,    /* /dev/pts/N numbers remembered */
    MAX_PROCS = 256,   /* processes of the command's tree looked at per open */
    MAX_FDS = 1024,    /* descriptors looked at per process */
    MAX_ARGS = 32,     /* arguments of an exec looked at */
};

typedef struct {
    int wd;
    bool dir;      /* /dev/pts: the events name its entries */
    bool reported; /* one event per object */
    char path[PATH_MAX];
} watched;

struct shc__termw {
    int fd, wid;
    shc_loop *loop;
    const shc_obj *obj;
    pid_t leader;
    const bool *quiet; /* while a login profile runs, what is read is dropped */
    shc_confine_event_fn fn;
    void *payload;
    watched *w;
    size_t nw;
    unsigned char before[MAX_PTS / 8]; /* the terminals that existed when it started */
    unsigned char told[MAX_PTS / 8];
};

static bool bit(const unsigned char *b, long n)
{
    return n >= 0 && n < MAX_PTS && (b[n / 8] >> (n % 8)) & 1;
}

static void set_bit(unsigned char *b, long n, bool on)
{
    if (n < 0 || n >= MAX_PTS)
        return;
    if (on)
        b[n / 8] |= (unsigned char)(1u << (n % 8));
    else
        b[n / 8] &= (unsigned char)~(1u << (n % 8));
}

static long pts_number(const char *s)
{
    long v = 0;
    if (!*s)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v >= MAX_PTS)
            return -1;
        v = v * 10 + (*s - '0');
    }
    return v;
}

static void add(shc__termw *t, const char *path, bool dir)
{
    if (t->nw == MAX_WATCHES || strlen(path) >= PATH_MAX)
        return;
    for (size_t i = 0; i < t->nw; i++)
        if (!strcmp(t->w[i].path, path))
            return;
    uint32_t mask = IN_OPEN | (dir ? IN_CREATE | IN_DELETE | IN_ONLYDIR : 0);
    int wd = inotify_add_watch(t->fd, path, mask);
    if (wd < 0)
        return;
    for (size_t i = 0; i < t->nw; i++)
        if (t->w[i].wd == wd)
            return; /* another name of one object */
    watched *x = &t->w[t->nw++];
    x->wd = wd;
    x->dir = dir;
    x->reported = false;
    snprintf(x->path, sizeof x->path, "%s", path);
}

static void on_ready(shc_loop *loop, int fd, unsigned events, void *payload)
{
    (void)loop, (void)fd, (void)events;
    shc__termw_drain(payload);
}

shc__termw *shc__termw_new(shc_loop *loop, const shc_obj *o, pid_t leader, const bool *quiet,
                           shc_confine_event_fn fn, void *payload)
{
    shc__termw *t = calloc(1, sizeof *t);
    if (!t || !(t->w = calloc(MAX_WATCHES, sizeof *t->w))) {
        free(t);
        return NULL;
    }
    t->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (t->fd < 0) {
        free(t->w);
        free(t);
        return NULL;
    }
    add(t, "/dev/pts", true);
    add(t, "/dev/console", false);
    add(t, "/proc/kmsg", false);
    DIR *d = opendir("/dev/pts");
    struct dirent *e;
    while (d && (e = readdir(d)))
        set_bit(t->before, pts_number(e->d_name), true);
    if (d)
        closedir(d);
    /* the virtual consoles and serial lines that exist (a container has few or none) */
    d = opendir("/dev");
    while (d && (e = readdir(d))) {
        const char *n = e->d_name;
        char p[8 + 256];
        snprintf(p, sizeof p, "/dev/%s", n);
        /* those the agent's user (the command's) may read: root, the tty or dialout group */
        if (e->d_type == DT_CHR && !strncmp(n, "tty", 3) &&
            (pts_number(n + 3) >= 0 || (n[3] == 'S' && pts_number(n + 4) >= 0)) &&
            access(p, R_OK) == 0)
            add(t, p, false);
    }
    if (d)
        closedir(d);
    t->loop = loop;
    t->obj = o;
    t->leader = leader;
    t->quiet = quiet;
    t->fn = fn;
    t->payload = payload;
    t->wid = shc_loop_watch(loop, t->fd, SHC_LOOP_READ, on_ready, t);
    return t;
}

void shc__termw_name(shc__termw *t, pid_t pid, const char *path)
{
    char full[PATH_MAX + 64], real[PATH_MAX];
    struct stat st;
    if (!t || !path[0] || path[0] == '-' || t->nw == MAX_WATCHES)
        return;
    if (path[0] == '/')
        snprintf(full, sizeof full, "/proc/%d/root%s", (int)pid, path);
    else
        snprintf(full, sizeof full, "/proc/%d/cwd/%s", (int)pid, path);
    if (stat(full, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)))
        return;
    if (S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 &&
        (minor(st.st_rdev) == 3 || minor(st.st_rdev) == 5 || minor(st.st_rdev) == 7 ||
         minor(st.st_rdev) == 8 || minor(st.st_rdev) == 9))
        return; /* null, zero, full, random, urandom: a read takes nothing from anyone */
    if (!realpath(full, real) || !strncmp(real, "/dev/pts/", 9))
        return; /* the terminals are watched by their directory */
    add(t, real, false);
}

void shc__termw_exec(shc__termw *t, const shc__target *mem, pid_t pid, uint64_t argv)
{
    char word[PATH_MAX];
    for (int i = 1; t && argv && i < MAX_ARGS; i++) { /* argv[0] is the program */
        uint64_t a = 0;
        if (!shc__target_read(mem, &a, sizeof a, argv + 8u * (unsigned)i) || !a)
            return;
        if (shc__target_str(mem, a, word, sizeof word) >= 0)
            shc__termw_name(t, pid, word);
    }
}

/* Whether a process of leader's tree holds path open now; *who gets it. */
static bool held_by_tree(pid_t leader, const char *path, pid_t *who)
{
    pid_t q[MAX_PROCS];
    size_t n = 0;
    if (leader > 0)
        q[n++] = leader;
    for (size_t i = 0; i < n; i++) {
        char dir[64], link[64 + 256], target[PATH_MAX];
        snprintf(dir, sizeof dir, "/proc/%d/fd", (int)q[i]);
        DIR *d = opendir(dir);
        struct dirent *e;
        int seen = 0;
        while (d && (e = readdir(d)) && seen++ < MAX_FDS) {
            if (e->d_name[0] == '.')
                continue;
            snprintf(link, sizeof link, "%s/%s", dir, e->d_name);
            ssize_t l = readlink(link, target, sizeof target - 1); /* no file system asked */
            if (l <= 0)
                continue;
            target[l] = 0;
            if (!strcmp(target, path)) {
                closedir(d);
                *who = q[i];
                return true;
            }
        }
        if (d)
            closedir(d);
        /* its children, thread by thread */
        snprintf(dir, sizeof dir, "/proc/%d/task", (int)q[i]);
        d = opendir(dir);
        while (d && (e = readdir(d)) && n < MAX_PROCS) {
            if (e->d_name[0] == '.')
                continue;
            char cp[64 + 256 + 16], buf[4096];
            snprintf(cp, sizeof cp, "%s/%s/children", dir, e->d_name);
            int fd = open(cp, O_RDONLY | O_CLOEXEC);
            ssize_t r = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
            if (fd >= 0)
                close(fd);
            buf[r > 0 ? r : 0] = 0;
            for (char *s = buf, *end; *s && n < MAX_PROCS; s = end) {
                long c = strtol(s, &end, 10);
                if (end == s)
                    break;
                if (c > 0)
                    q[n++] = (pid_t)c;
            }
        }
        if (d)
            closedir(d);
    }
    return false;
}

/* One event, to fn (none when fn is NULL). */
static void tell(shc_confine_event_fn fn, void *payload, pid_t pid, const char *detail)
{
    shc_confine_event ev = {"terminal", "open", pid, ""};
    if (!fn)
        return;
    snprintf(ev.detail, sizeof ev.detail, "%s", detail);
    for (char *c = ev.detail; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    fn(&ev, payload);
}

int shc__termw_drain(shc__termw *t)
{
    if (!t)
        return 0;
    const shc_obj *o = t->obj;
    pid_t leader = t->leader;
    shc_confine_event_fn fn = *t->quiet ? NULL : t->fn;
    void *payload = t->payload;
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    char detail[PATH_MAX + 96];
    int events = 0;
    ssize_t len;
    while ((len = read(t->fd, buf, sizeof buf)) > 0) {
        for (char *p = buf; p < buf + len;) {
            const struct inotify_event *ev = (const struct inotify_event *)(void *)p;
            p += sizeof *ev + ev->len;
            if (ev->mask & IN_Q_OVERFLOW) {
                tell(fn, payload, leader,
                     "ran while more terminals and named pipes were opened than could be told "
                     "apart");
                events++;
                continue;
            }
            watched *x = NULL;
            for (size_t i = 0; i < t->nw && !x; i++)
                if (t->w[i].wd == ev->wd)
                    x = &t->w[i];
            if (!x || (!x->dir && x->reported))
                continue;
            char path[PATH_MAX];
            long num = -1;
            if (x->dir) {
                if (!ev->len || (num = pts_number(ev->name)) < 0)
                    continue; /* ptmx */
                if (ev->mask & (IN_CREATE | IN_DELETE)) {
                    set_bit(t->before, num, false); /* a new session's terminal from now on */
                    continue;
                }
                if (bit(t->told, num))
                    continue;
                snprintf(path, sizeof path, "/dev/pts/%ld", num);
                if (o->have_tty && !strcmp(path, o->pts))
                    continue; /* its own terminal */
            } else {
                snprintf(path, sizeof path, "%s", x->path);
            }
            if (!(ev->mask & IN_OPEN) || !fn)
                continue; /* a login profile's opens are not the command's: nothing marked */
            pid_t who = 0;
            bool held = held_by_tree(leader, path, &who);
            if (!held && x->dir && !bit(t->before, num))
                continue; /* created while it ran: the new session opens it itself */
            const char *kind = x->dir || !strncmp(path, "/dev/tty", 8) ||
                                       !strcmp(path, "/dev/console")
                                   ? "another terminal"
                               : !strcmp(path, "/proc/kmsg") ? "the kernel log"
                                                             : "a named pipe or device";
            if (held)
                snprintf(detail, sizeof detail, "read from %s: %s", kind, path);
            else
                snprintf(detail, sizeof detail,
                         "ran while %s was opened (by it, or closed before it could be told "
                         "apart): %s", kind, path);
            if (x->dir)
                set_bit(t->told, num, true);
            else
                x->reported = true;
            tell(fn, payload, held ? who : leader, detail);
            events++;
        }
    }
    return events;
}

static void *closer(void *fd)
{
    close((int)(intptr_t)fd);
    return NULL;
}

void shc__termw_free(shc__termw *t)
{
    if (!t)
        return;
    if (t->wid > 0)
        shc_loop_unwatch(t->loop, t->wid);
    /* closing an inotify instance with watches waits for the kernel's grace period (4-7 ms
     * measured): on a thread of its own, not on the loop */
    pthread_attr_t a;
    pthread_t th;
    bool off = pthread_attr_init(&a) == 0;
    off = off && pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED) == 0 &&
          pthread_create(&th, &a, closer, (void *)(intptr_t)t->fd) == 0;
    pthread_attr_destroy(&a);
    if (!off)
        close(t->fd);
    free(t->w);
    free(t);
}
