/* The child's side of confinement (confine.h): the spec's wire form, installing the watch's
 * filter (sysfilter.c), and the forking process's first steps with the listener.
 * Raw syscall() throughout: the release build must not need glibc symbols newer than 2.28. */
#define _GNU_SOURCE
#include "confine/confine.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "confine/sandbox.h"
#include "confine/systab.h"
#include "shcard.h"

#if defined(__x86_64__)
#define SHC_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SHC_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#define SHC_AUDIT_ARCH 0 /* no watch on other architectures: shc_confine_available says so */
#endif

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
/* ------------------------------------------------------------------ the spec's wire form */

static void put32(char *p, uint32_t v)
{
    memcpy(p, &v, sizeof v);
}

static uint32_t get32(const char *p)
{
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

size_t shc_confine_pack(const shc_confine_spec *s, char *buf, size_t cap)
{
    size_t n = 20 + s->programs_len + s->writable_len;
    if (n > cap || n > SHC_CONFINE_PACK_MAX)
        return 0;
    put32(buf, 2); /* version */
    put32(buf + 4, s->flags);
    put32(buf + 8, (uint32_t)s->programs_len);
    put32(buf + 12, s->sandbox);
    put32(buf + 16, (uint32_t)s->writable_len);
    if (s->programs_len)
        memcpy(buf + 20, s->programs, s->programs_len);
    if (s->writable_len)
        memcpy(buf + 20 + s->programs_len, s->writable, s->writable_len);
    return n;
}

int shc_confine_unpack(shc_confine_spec *out, const char *buf, size_t len)
{
    memset(out, 0, sizeof *out);
    if (len < 20 || get32(buf) != 2)
        return SHC_E_USAGE;
    uint32_t pl = get32(buf + 8), wl = get32(buf + 16), mode = get32(buf + 12);
    if (pl > len - 20 || wl != len - 20 - pl || (pl && buf[20 + pl - 1] != 0) ||
        (wl && buf[len - 1] != 0) || !shc_sandbox_name(mode))
        return SHC_E_USAGE;
    out->flags = get32(buf + 4);
    out->programs = pl ? buf + 20 : NULL;
    out->programs_len = pl;
    out->sandbox = mode;
    out->writable = wl ? buf + 20 + pl : NULL;
    out->writable_len = wl;
    return 0;
}

/* ------------------------------------------------------------------ the kernel */

static long sys_seccomp(unsigned op, unsigned flags, void *arg)
{
    return syscall(__NR_seccomp, op, flags, arg);
}

bool shc_confine_available(const char **why)
{
    const char *no = getenv("SHCARD_NO_VERIFY");
    if (no && !strcmp(no, "1")) {
        *why = "SHCARD_NO_VERIFY=1";
        return false;
    }
    if (!SHC_AUDIT_ARCH) {
        *why = "this architecture has no watch";
        return false;
    }
    uint32_t act = SECCOMP_RET_USER_NOTIF;
    if (sys_seccomp(SECCOMP_GET_ACTION_AVAIL, 0, &act) != 0) {
        *why = "the kernel has no seccomp user notification";
        return false;
    }
    struct utsname u;
    unsigned maj = 0, min = 0;
    if (uname(&u) != 0 || sscanf(u.release, "%u.%u", &maj, &min) != 2 ||
        maj * 1000 + min < 5006) {
        *why = "the kernel is older than 5.6 (seccomp CONTINUE, pidfd_getfd)";
        return false;
    }
    /* pidfd_getfd on no pidfd: EBADF where it exists, ENOSYS (or a seccomp EPERM) where not */
    errno = 0;
    if (syscall(__NR_pidfd_getfd, -1, 0, 0) != -1 || errno != EBADF) {
        *why = "pidfd_getfd is not available";
        return false;
    }
    *why = NULL;
    return true;
}

/* The watch's filter, built once per process (shc_confine_prepare). */
static struct sock_filter watch_f[SHC__WATCH_FILTER_MAX];
static size_t watch_n;

void shc_confine_prepare(const shc_confine_spec *s)
{
    if (s && s->sandbox != SHC_SANDBOX_OFF)
        shc__sandbox_prepare(s);
    if (s && (s->flags & SHC_CONFINE_WATCH) && !watch_n && SHC_AUDIT_ARCH != 0)
        watch_n = shc__watch_filter(watch_f, SHC__WATCH_FILTER_MAX, SHC_AUDIT_ARCH);
}

int shc_confine_apply(const shc_confine_spec *s, int *listener)
{
    *listener = -1;
    if (s && s->sandbox != SHC_SANDBOX_OFF) {
        /* in workspace mode without the watch the metadata calls go to the supervisor
         * (attrs.c): the listener comes with the plain filters, one install (landlock.c);
         * with the watch, its filter notifies them already (only one listener per process) */
        int rc = shc__sandbox_apply(s, listener);
        if (rc)
            return rc;
        if (s->sandbox == SHC_SANDBOX_WORKSPACE && !(s->flags & SHC_CONFINE_WATCH))
            return 0;
    }
    if (!s || !(s->flags & SHC_CONFINE_WATCH))
        return 0;
    if (!SHC_AUDIT_ARCH)
        return -ENOSYS;
    if (!watch_n)
        shc_confine_prepare(s);
    if (watch_n > SHC__WATCH_FILTER_MAX)
        return -E2BIG;
    struct sock_fprog prog = {(unsigned short)watch_n, watch_f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -errno;
    /* SPEC_ALLOW: a filter would otherwise switch on the speculative store bypass mitigation for
     * the process (and its children), slowing every watched command by ~10%: the watch
     * observes, it is not a sandbox against side channels. */
    long fd = sys_seccomp(SECCOMP_SET_MODE_FILTER,
                          SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_SPEC_ALLOW, &prog);
    if (fd < 0)
        return -errno;
    *listener = (int)fd;
    return 0;
}

void shc_confine_handoff(const shc_confine_spec *s)
{
    if (s && !(s->flags & SHC_CONFINE_WATCH) && s->sandbox == SHC_SANDBOX_WORKSPACE)
        syscall(__NR_prctl, SHC__CONFINE_MARKER, 0, 0, 0, 0);
}

int shc_confine_take(pid_t child, int fd)
{
    long pfd = syscall(__NR_pidfd_open, child, 0);
    if (pfd < 0)
        return -errno;
    long got = syscall(__NR_pidfd_getfd, (int)pfd, fd, 0);
    int e = errno;
    close((int)pfd);
    if (got < 0)
        return -e;
    fcntl((int)got, F_SETFD, FD_CLOEXEC); /* pidfd_getfd sets it already; say so anyway */
    return (int)got;
}

int shc_confine_pass_exec(int listener, int timeout_ms)
{
    struct seccomp_notif_sizes sz;
    if (sys_seccomp(SECCOMP_GET_NOTIF_SIZES, 0, &sz) != 0)
        return -errno;
    size_t nsz = sz.seccomp_notif > sizeof(struct seccomp_notif) ? sz.seccomp_notif
                                                                  : sizeof(struct seccomp_notif);
    size_t rsz = sz.seccomp_notif_resp > sizeof(struct seccomp_notif_resp)
                     ? sz.seccomp_notif_resp
                     : sizeof(struct seccomp_notif_resp);
    struct seccomp_notif *n = calloc(1, nsz);
    struct seccomp_notif_resp *r = calloc(1, rsz);
    int rc = -ENOMEM;
    if (!n || !r)
        goto done;
    struct pollfd pf = {listener, POLLIN, 0};
    int pr;
    do
        pr = poll(&pf, 1, timeout_ms);
    while (pr < 0 && errno == EINTR);
    if (pr <= 0 || !(pf.revents & POLLIN)) {
        rc = pr < 0 ? -errno : -ETIMEDOUT;
        goto done;
    }
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, n) != 0) {
        rc = -errno;
        goto done;
    }
    r->id = n->id;
    r->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    rc = ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, r) == 0 ? 0 : -errno;
done:
    free(n);
    free(r);
    return rc;
}
