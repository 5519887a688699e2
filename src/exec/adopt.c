/* The guardian's process tree as containment (adopt.h). */
#define _GNU_SOURCE
#include "exec/adopt.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "exec/sweep.h"

enum { MAXC = 4096 };

/* State letter and start time from /proc/PID/stat: 0, or -1 when it is gone. */
static int stat_of(pid_t pid, char *state, unsigned long long *start)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p || !p[1])
        return -1;
    *state = p[2];
    p += 2; /* field 3, the state; the start time is field 22 */
    for (int f = 3; f < 22 && p; f++)
        p = strchr(p, ' ') ? strchr(p, ' ') + 1 : NULL;
    *start = p ? strtoull(p, NULL, 10) : 0;
    return 0;
}

unsigned long long shc__ticks_now(void)
{
    struct timespec ts;
    long hz = sysconf(_SC_CLK_TCK);
    if (clock_gettime(CLOCK_BOOTTIME, &ts) != 0 || hz <= 0)
        return 0;
    return (unsigned long long)ts.tv_sec * (unsigned long long)hz +
           (unsigned long long)ts.tv_nsec / (1000000000ull / (unsigned long long)hz);
}

unsigned long long shc__proc_start(pid_t pid)
{
    char st;
    unsigned long long start = 0;
    return stat_of(pid, &st, &start) == 0 ? start : 0;
}

static bool dead(pid_t pid, unsigned long long start)
{
    char st;
    unsigned long long s = 0;
    return stat_of(pid, &st, &s) != 0 || st == 'Z' || st == 'X' || s != start;
}

static bool lead_died(const shc_lead *l)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    return waitid(P_PID, (id_t)l->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid != 0;
}

static bool is_lead(const shc_lead *leads, size_t nlead, pid_t pid)
{
    for (size_t i = 0; i < nlead; i++)
        if (leads[i].pid == pid)
            return true;
    return false;
}

/* The owners of this round's deaths: one (*only), none, or several (*only = 0, *many). */
static void add_owner(pid_t o, pid_t *only, bool *many, bool *any)
{
    if (*any && (*only != o || o == 0))
        *many = true;
    if (!*any)
        *only = o;
    *any = true;
}

void shc__adopt_scan(shc_adopt *t, shc_lead *leads, size_t nlead)
{
    pid_t only = 0;
    bool many = false, any = false;
    bool *died = calloc(nlead ? nlead : 1, sizeof *died);
    pid_t *kids = malloc(MAXC * sizeof *kids);
    if (!died || !kids)
        goto out;
    for (size_t i = 0; i < nlead; i++)
        if (!leads[i].taken && (died[i] = lead_died(&leads[i])))
            add_owner(leads[i].pid, &only, &many, &any);
    for (size_t i = 0; i < t->n; i++)
        if (dead(t->a[i].pid, t->a[i].start))
            add_owner(t->a[i].owner, &only, &many, &any);
    int n = shc__children(0, kids, MAXC);
    /* a death between the two looks makes this round ambiguous (its orphans come next round) */
    for (size_t i = 0; i < nlead; i++)
        if (!leads[i].taken && !died[i] && lead_died(&leads[i]))
            add_owner(leads[i].pid, &only, &many, &any);
    pid_t owner = any && !many ? only : 0;
    for (int k = 0; k < n; k++) {
        char st;
        unsigned long long start;
        if (is_lead(leads, nlead, kids[k]) || stat_of(kids[k], &st, &start) != 0 || st == 'Z')
            continue;
        bool known = false;
        for (size_t i = 0; i < t->n && !known; i++)
            known = t->a[i].pid == kids[k] && t->a[i].start == start;
        if (known)
            continue;
        if (t->n == t->cap) {
            size_t cap = t->cap ? t->cap * 2 : 16;
            shc_adopted *a = realloc(t->a, cap * sizeof *a);
            if (!a)
                break;
            t->a = a;
            t->cap = cap;
        }
        t->a[t->n++] = (shc_adopted){kids[k], start, owner};
    }
    for (size_t i = 0; i < nlead; i++)
        if (died[i])
            leads[i].taken = true;
    for (size_t i = 0; i < t->n;) /* the dead are done with: their orphans were just taken */
        if (dead(t->a[i].pid, t->a[i].start)) {
            waitpid(t->a[i].pid, NULL, WNOHANG);
            t->a[i] = t->a[--t->n];
        } else {
            i++;
        }
out:
    free(died);
    free(kids);
}

/* Whether adopted process e is command x's to end now. */
static bool belongs(const shc_adopted *e, pid_t x, const shc_lead *leads, size_t nlead)
{
    if (e->owner == x)
        return true;
    if (e->owner && !is_lead(leads, nlead, e->owner))
        return true; /* its command has ended already */
    if (e->owner)
        return false;
    for (size_t i = 0; i < nlead; i++) /* unknown: could another unfinished command own it? */
        if (leads[i].pid != x && leads[i].start <= e->start)
            return false;
    return true;
}

int shc__adopt_end(shc_adopt *t, pid_t x, shc_lead *leads, size_t nlead)
{
    int total = 0;
    for (int round = 0; round < 64; round++) {
        shc__adopt_scan(t, leads, nlead);
        int killed = 0;
        for (size_t i = 0; i < t->n; i++)
            if (belongs(&t->a[i], x, leads, nlead)) {
                kill(t->a[i].pid, SIGKILL);
                t->a[i].owner = x; /* its children, coming back, are x's too */
                killed++;
            }
        if (!killed)
            break;
        total += killed;
        /* until they are dead (a SIGKILLed process may take a moment), about 200 ms at most */
        for (int w = 0; w < 200; w++) {
            bool all = true;
            for (size_t i = 0; i < t->n && all; i++)
                all = t->a[i].owner != x || dead(t->a[i].pid, t->a[i].start);
            if (all)
                break;
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
    }
    return total;
}

void shc__adopt_free(shc_adopt *t)
{
    free(t->a);
    t->a = NULL;
    t->n = t->cap = 0;
}

void shc__kill_adopted(unsigned long long since)
{
    pid_t *all = malloc(MAXC * sizeof *all);
    if (!all)
        return;
    for (int round = 0; round < 400; round++) {
        int n = 0, k = shc__children(0, all, MAXC);
        for (int i = 0; i < k; i++) /* our children since then, the roots of what we kill */
            if (shc__proc_start(all[i]) >= since)
                all[n++] = all[i];
        int roots = n;
        for (int i = 0; i < n && n < MAXC; i++) { /* and their subtrees, breadth first */
            k = shc__children(all[i], all + n, MAXC - n);
            if (k > 0)
                n += k;
        }
        if (!roots)
            break;
        for (int i = 0; i < n; i++)
            kill(all[i], SIGKILL);
        for (int i = 0; i < roots; i++)
            waitpid(all[i], NULL, WNOHANG);
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    free(all);
}
