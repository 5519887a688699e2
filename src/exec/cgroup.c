/* Per-command cgroups (cgroup.h): finding our own cgroup v2, making and ending the commands'. */
#define _GNU_SOURCE
#include "exec/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Reads a small file whole (NUL-terminated); the length, or -1. */
static ssize_t slurp(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = 0;
    ssize_t n;
    while (len < cap - 1 && (n = read(fd, buf + len, cap - 1 - len)) > 0)
        len += (size_t)n;
    close(fd);
    buf[len] = 0;
    return (ssize_t)len;
}

static int put(const char *dir, const char *file, const char *text)
{
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, file) >= sizeof path)
        return -1;
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t w = write(fd, text, strlen(text));
    close(fd);
    return w == (ssize_t)strlen(text) ? 0 : -1;
}

static void say(char *why, size_t nwhy, const char *text)
{
    if (why && nwhy)
        snprintf(why, nwhy, "%s", text);
}

int shc__cg_self(char *out, size_t n, char *why, size_t nwhy)
{
    const char *np = getenv("SHC_EXEC_NO_CGROUP");
    if (np && *np == '1') {
        say(why, nwhy, "SHC_EXEC_NO_CGROUP=1");
        return -1;
    }
    /* "0::/path" in /proc/self/cgroup: our place in the v2 hierarchy */
    static const size_t CAP = 16384;
    char *buf = malloc(CAP);
    if (!buf)
        return -1;
    char rel[PATH_MAX] = "";
    if (slurp("/proc/self/cgroup", buf, CAP) > 0)
        for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
            if (!strncmp(l, "0::", 3)) {
                size_t k = strcspn(l + 3, "\n");
                if (k < sizeof rel)
                    memcpy(rel, l + 3, k), rel[k] = 0;
                break;
            }
    /* the cgroup2 mount: "ID PARENT M:N ROOT MOUNTPOINT OPTS ... - cgroup2 SRC OPTS" */
    char mnt[PATH_MAX] = "", root[PATH_MAX] = "";
    if (rel[0] == '/' && slurp("/proc/self/mountinfo", buf, CAP) > 0)
        for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
            char *end = strchr(l, '\n');
            if (end)
                *end = 0;
            char *dash = strstr(l, " - cgroup2 ");
            char r[PATH_MAX], m[PATH_MAX];
            if (dash && sscanf(l, "%*s %*s %*s %4095s %4095s", r, m) == 2 && !strchr(m, '\\')) {
                snprintf(root, sizeof root, "%s", r);
                snprintf(mnt, sizeof mnt, "%s", m);
            }
            if (end)
                *end = '\n';
            if (mnt[0])
                break;
        }
    free(buf);
    if (rel[0] != '/' || !mnt[0]) {
        say(why, nwhy, "no cgroup v2 hierarchy is mounted");
        return -1;
    }
    size_t rl = strlen(root);
    const char *sub = rel;
    if (strcmp(root, "/") != 0) {
        if (strncmp(rel, root, rl) != 0 || (rel[rl] && rel[rl] != '/')) {
            say(why, nwhy, "our cgroup is outside the mounted cgroup v2 tree");
            return -1;
        }
        sub = rel + rl;
    }
    if ((size_t)snprintf(out, n, "%s%s", mnt, strcmp(sub, "/") ? sub : "") >= n)
        return -1;
    char procs[PATH_MAX];
    snprintf(procs, sizeof procs, "%s/cgroup.procs", out);
    if (access(out, W_OK) != 0 || access(procs, W_OK) != 0) {
        say(why, nwhy, "our cgroup is not writable (run as root, or under a systemd unit or user "
                       "slice with Delegate=yes)");
        return -1;
    }
    return 0;
}

/* Whether every process listed in procs (a cgroup.procs file) has exited but for a thread stuck
 * in the kernel (its leader a zombie, or not listed at all): nothing more ends it, waiting
 * longer is pointless.  Asked only after a tenth of a second of waiting. */
static bool only_stuck(const char *procs)
{
    char buf[8192], stat[64], st[512];
    if (slurp(procs, buf, sizeof buf) <= 0)
        return true; /* no process listed, yet not empty: only such threads are left */
    int n = 0;
    for (char *q = buf; *q;) {
        char *e;
        long v = strtol(q, &e, 10);
        if (e == q)
            break;
        q = e;
        snprintf(stat, sizeof stat, "/proc/%ld/stat", v);
        const char *r = slurp(stat, st, sizeof st) > 0 ? strrchr(st, ')') : NULL;
        if (!r || r[1] != ' ' || r[2] != 'Z')
            return false;
        n++;
    }
    return n > 0;
}

/* Kills every member of dir (cgroup.kill, else freeze and kill each), waits until it is empty,
 * removes it.  The number of members seen, or -1 when dir does not exist. */
static int end_dir(const char *dir)
{
    char path[PATH_MAX], buf[8192];
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    int seen = 0;
    ssize_t len = slurp(path, buf, sizeof buf);
    for (char *q = buf; len > 0 && *q; q++)
        seen += *q == '\n';
    if (seen && put(dir, "cgroup.kill", "1") != 0) {
        put(dir, "cgroup.freeze", "1"); /* no cgroup.kill (kernel < 5.14): nobody forks now */
        for (int round = 0; round < 50; round++) {
            if (slurp(path, buf, sizeof buf) <= 0)
                break;
            for (char *q = buf; *q;) {
                char *e;
                long v = strtol(q, &e, 10);
                if (e == q)
                    break;
                kill((pid_t)v, SIGKILL);
                q = e;
            }
        }
        put(dir, "cgroup.freeze", "0");
    }
    /* wait (about 2 s at most) until the kernel has taken every member away */
    for (int i = 0; i < 2000; i++) {
        if (rmdir(dir) == 0 || errno == ENOENT)
            return seen;
        if (errno != EBUSY)
            break;
        if (i % 100 == 99 && only_stuck(path))
            break; /* left to the sweep of stale cgroups */
        if (i % 100 == 99)
            put(dir, "cgroup.kill", "1"); /* a member that slipped in meanwhile */
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return seen;
}

/* Ends the shcard-<pid>-* cgroups of agents that are gone (killed together with their
 * guardian, so that nobody could end them). */
static void end_stale(const char *self)
{
    DIR *d = opendir(self);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *end;
        if (strncmp(e->d_name, "shcard-", 7) != 0)
            continue;
        long pid = strtol(e->d_name + 7, &end, 10);
        if (end == e->d_name + 7 || *end != '-' || pid <= 0 || kill((pid_t)pid, 0) == 0 ||
            errno != ESRCH)
            continue;
        shc_cg old;
        memset(&old, 0, sizeof old);
        old.on = true;
        if ((size_t)snprintf(old.dir, sizeof old.dir, "%s/%s", self, e->d_name) < sizeof old.dir)
            shc__cg_end(&old);
    }
    closedir(d);
}

int shc__cg_setup(shc_cg *cg, pid_t owner, char *why, size_t nwhy)
{
    char self[PATH_MAX - 128];
    memset(cg, 0, sizeof *cg);
    if (shc__cg_self(self, sizeof self, why, nwhy) != 0)
        return -1;
    end_stale(self);
    uint32_t nonce = 0;
    if (getrandom(&nonce, sizeof nonce, GRND_NONBLOCK) != (ssize_t)sizeof nonce)
        nonce = (uint32_t)time(NULL) ^ (uint32_t)(uintptr_t)cg;
    snprintf(cg->dir, sizeof cg->dir, "%s/shcard-%d-%08x", self, (int)owner, nonce);
    if (mkdir(cg->dir, 0755) != 0)
        goto fail;
    char probe[PATH_MAX];
    snprintf(probe, sizeof probe, "%s/cgroup.kill", cg->dir);
    cg->has_kill = access(probe, F_OK) == 0;
    snprintf(probe, sizeof probe, "%s/cgroup.freeze", cg->dir);
    if (!cg->has_kill && access(probe, F_OK) != 0) {
        rmdir(cg->dir);
        say(why, nwhy, "the kernel has neither cgroup.kill nor cgroup.freeze");
        cg->on = false;
        return -1;
    }
    cg->on = true;
    return 0;
fail:
    say(why, nwhy, strerror(errno));
    cg->on = false;
    return -1;
}

int shc__cg_cmd_open(const shc_cg *cg, unsigned long id)
{
    if (!cg->on)
        return -1;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/cmd-%lu", cg->dir, id);
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        return -1;
    snprintf(path, sizeof path, "%s/cmd-%lu/cgroup.procs", cg->dir, id);
    return open(path, O_WRONLY | O_CLOEXEC);
}

int shc__cg_cmd_end(const shc_cg *cg, unsigned long id)
{
    if (!cg->on)
        return -1;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/cmd-%lu", cg->dir, id);
    return end_dir(path);
}

void shc__cg_end(shc_cg *cg)
{
    if (!cg->on)
        return;
    DIR *d = opendir(cg->dir);
    if (d) {
        struct dirent *e;
        char path[PATH_MAX];
        while ((e = readdir(d)))
            if (!strncmp(e->d_name, "cmd-", 4) &&
                (size_t)snprintf(path, sizeof path, "%s/%s", cg->dir, e->d_name) < sizeof path)
                end_dir(path);
        closedir(d);
    }
    end_dir(cg->dir);
    cg->on = false;
}
