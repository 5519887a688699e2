/* The sandbox's kernel-state filter (sandbox.h): what Landlock does not cover because it is no
 * file and no signal.  In every sandbox mode these calls fail with EPERM:
 *   - System V IPC (shared memory, message queues, semaphores; the i386 ipc() multiplexer) and
 *     the kernel keyrings (add_key, request_key, keyctl): state other programs share, which
 *     outlives the command;
 *   - ptrace, process_vm_writev and pidfd_getfd: reaching into another process (Landlock's
 *     ptrace scope stops most of this already; this holds on kernels without it);
 *   - changing another process's limits, priority or scheduling: prlimit64 with a pid and a
 *     new limit, setpriority and ioprio_set with a `who`, sched_set{affinity,param,scheduler,
 *     attr}, migrate_pages and move_pages with a pid.  Pid 0 (the caller itself) stays
 *     allowed: `ulimit`, `nice`, `taskset CMD`, `ionice CMD` work.  For setpriority and
 *     ioprio_set `who` 0 is the caller only with PRIO_PROCESS / PRIO_PGRP (IOPRIO_WHO_PROCESS /
 *     IOPRIO_WHO_PGRP); with PRIO_USER / IOPRIO_WHO_USER it is every process of the caller's
 *     uid, and is refused.  A thread's own id is not 0,
 *     so pthread_setaffinity_np() and pthread_setschedparam() fail too (EPERM, which callers
 *     treat as "not permitted here");
 *   - setsid(): without a new session a process can never take another controlling terminal
 *     (the command is its own session's leader and already has its terminal; netfilter.c's
 *     tty filter refuses TIOCSCTTY and TIOCNOTTY), so /dev/tty, which Landlock grants, is
 *     always the command's own terminal.  `setsid CMD` and daemons that detach fail (EPERM).
 * The foreign ABI (i386 on x86_64, arm on aarch64) gets the same under its own numbers; x32
 * under its own.  This filter denies, it never notifies. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "confine/bpfbuf.h"
#include "confine/sandbox.h"

enum { R_ALL, R_A0, R_PRIO, R_IOPRIO, R_PRLIM };

/* setpriority's `which` values where who 0 is the caller (PRIO_PROCESS 0, PRIO_PGRP 1), and
 * ioprio_set's (IOPRIO_WHO_PROCESS 1, IOPRIO_WHO_PGRP 2) */
#define PRIO_OWN_LO 0u
#define IOPRIO_OWN_LO 1u

typedef struct rule {
    uint32_t nr;
    unsigned char kind;
} rule;

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#define FOREIGN_ARCH AUDIT_ARCH_I386
#define X32(n) {0x40000000u | (uint32_t)(n), R_ALL}
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#define FOREIGN_ARCH AUDIT_ARCH_ARM
#else
#define NATIVE_ARCH 0
#endif

#if NATIVE_ARCH
#ifndef __NR_pidfd_getfd
#define __NR_pidfd_getfd 438
#endif
#ifndef __NR_sched_setattr
#define __NR_sched_setattr 314 /* x86_64; aarch64 has it in every libc header */
#endif

#define N(name, kind) {(uint32_t)__NR_##name, kind}
static const rule native[] = {
    N(shmget, R_ALL), N(shmat, R_ALL), N(shmctl, R_ALL), N(msgget, R_ALL), N(msgsnd, R_ALL),
    N(msgrcv, R_ALL), N(msgctl, R_ALL), N(semget, R_ALL), N(semop, R_ALL),
    N(semtimedop, R_ALL), N(semctl, R_ALL), N(add_key, R_ALL), N(request_key, R_ALL),
    N(keyctl, R_ALL), N(ptrace, R_ALL), N(process_vm_writev, R_ALL), N(pidfd_getfd, R_ALL),
    N(sched_setaffinity, R_A0), N(sched_setparam, R_A0), N(sched_setscheduler, R_A0),
    N(sched_setattr, R_A0), N(migrate_pages, R_A0), N(move_pages, R_A0),
    N(setpriority, R_PRIO), N(ioprio_set, R_IOPRIO), N(prlimit64, R_PRLIM), N(setsid, R_ALL),
#if defined(__x86_64__)
    /* x32: the common numbers with the x32 bit, its own numbers for ptrace and
     * process_vm_writev; refused whatever the arguments (nothing uses x32 for these) */
    X32(__NR_shmget), X32(__NR_shmat), X32(__NR_shmctl), X32(__NR_msgget), X32(__NR_msgsnd),
    X32(__NR_msgrcv), X32(__NR_msgctl), X32(__NR_semget), X32(__NR_semop),
    X32(__NR_semtimedop), X32(__NR_semctl), X32(__NR_add_key), X32(__NR_request_key),
    X32(__NR_keyctl), X32(521), X32(540), X32(__NR_pidfd_getfd), X32(__NR_sched_setaffinity),
    X32(__NR_sched_setparam), X32(__NR_sched_setscheduler), X32(__NR_sched_setattr),
    X32(__NR_migrate_pages), X32(533), X32(__NR_setpriority), X32(__NR_ioprio_set),
    X32(__NR_prlimit64), X32(__NR_setsid),
#endif
};
#undef N

/* The foreign ABI's numbers (the kernel's syscall tables for i386 and arm). */
static const rule foreign[] = {
#if defined(__x86_64__)
    {117, R_ALL}, /* ipc() */
    {393, R_ALL}, {394, R_ALL}, {395, R_ALL}, {396, R_ALL}, {397, R_ALL}, {399, R_ALL},
    {400, R_ALL}, {401, R_ALL}, {402, R_ALL}, /* sem/shm/msg */
    {286, R_ALL}, {287, R_ALL}, {288, R_ALL}, /* add_key, request_key, keyctl */
    {26, R_ALL}, {348, R_ALL}, {438, R_ALL},  /* ptrace, process_vm_writev, pidfd_getfd */
    {154, R_A0}, {156, R_A0}, {241, R_A0}, {351, R_A0}, {294, R_A0}, {317, R_A0},
    {97, R_PRIO}, {289, R_IOPRIO}, {340, R_PRLIM}, {66, R_ALL}, /* setsid */
#else
    {298, R_ALL}, {299, R_ALL}, {300, R_ALL}, {301, R_ALL}, {302, R_ALL}, {303, R_ALL},
    {304, R_ALL}, {305, R_ALL}, {307, R_ALL}, {308, R_ALL}, {312, R_ALL}, /* sem/shm/msg */
    {309, R_ALL}, {310, R_ALL}, {311, R_ALL}, /* add_key, request_key, keyctl */
    {26, R_ALL}, {377, R_ALL}, {438, R_ALL},  /* ptrace, process_vm_writev, pidfd_getfd */
    {154, R_A0}, {156, R_A0}, {241, R_A0}, {380, R_A0}, {400, R_A0}, {344, R_A0},
    {97, R_PRIO}, {314, R_IOPRIO}, {369, R_PRLIM}, {66, R_ALL}, /* setsid */
#endif
};

#define DENY (SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
#define ARG_LO(i) ((uint32_t)offsetof(struct seccomp_data, args) + 8u * (uint32_t)(i))

/* One rule, entered with A = the call's number; falls through to the next rule when the
 * number differs.  The pid/who arguments are ints: their low half is what the kernel reads. */
static void emit_rule(fbuf *b, const rule *r)
{
    switch (r->kind) {
    case R_ALL:
        emit(b, JEQ, 0, 1, r->nr);
        emit(b, RET, 0, 0, DENY);
        break;
    case R_A0:
        emit(b, JEQ, 0, 4, r->nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(0));
        emit(b, JEQ, 1, 0, 0);
        emit(b, RET, 0, 0, DENY);
        emit(b, RET, 0, 0, SECCOMP_RET_ALLOW);
        break;
    case R_PRIO:
    case R_IOPRIO: { /* who (arg1) 0, and `which` (arg0) one of the two that mean the caller */
        uint32_t lo = r->kind == R_PRIO ? PRIO_OWN_LO : IOPRIO_OWN_LO;
        emit(b, JEQ, 0, 8, r->nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(1));
        emit(b, JEQ, 1, 0, 0);          /* who 0 -> look at which */
        emit(b, RET, 0, 0, DENY);
        emit(b, LD_ABS, 0, 0, ARG_LO(0));
        emit(b, JEQ, 2, 0, lo);         /* -> allow */
        emit(b, JEQ, 1, 0, lo + 1u);    /* -> allow, else deny */
        emit(b, RET, 0, 0, DENY);
        emit(b, RET, 0, 0, SECCOMP_RET_ALLOW);
        break;
    }
    case R_PRLIM: /* a pid other than 0 and a new limit (arg2 not NULL) */
        emit(b, JEQ, 0, 9, r->nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(0));
        emit(b, JEQ, 6, 0, 0);          /* pid 0 -> allow */
        emit(b, LD_ABS, 0, 0, ARG_LO(2));
        emit(b, JEQ, 1, 0, 0);          /* low half 0 -> look at the high half */
        emit(b, RET, 0, 0, DENY);
        emit(b, LD_ABS, 0, 0, ARG_LO(2) + 4u);
        emit(b, JEQ, 1, 0, 0);          /* NULL -> allow */
        emit(b, RET, 0, 0, DENY);
        emit(b, RET, 0, 0, SECCOMP_RET_ALLOW);
        break;
    default: break;
    }
}

/* The rules rs[ix[0..n)] (sorted by number, distinct), entered with A = the call's number: a
 * binary tree of JGE tests over the numbers, LEAF rules tried in turn at each leaf, then ALLOW.
 * What a call gets is what the rule list says; the tree keeps the program short to walk: at
 * install the kernel walks it once for every system call number of both ABIs (its cache of
 * always-allowed calls), and the linear list made that walk a large part of a sandboxed
 * command's start. */
enum { LEAF = 4, MAX_RULES = 64 };

static void tree(fbuf *b, const rule *rs, const unsigned char *ix, size_t n)
{
    if (n <= LEAF) {
        for (size_t i = 0; i < n; i++)
            emit_rule(b, &rs[ix[i]]);
        emit(b, RET, 0, 0, SECCOMP_RET_ALLOW);
        return;
    }
    size_t mid = n / 2;
    fbuf dry = {NULL, 0, 0};
    tree(&dry, rs, ix, mid);
    if (dry.n <= 255) {
        emit(b, BPF_JMP | BPF_JGE | BPF_K, (unsigned char)dry.n, 0, rs[ix[mid]].nr);
    } else {
        emit(b, BPF_JMP | BPF_JGE | BPF_K, 0, 1, rs[ix[mid]].nr);
        emit(b, BPF_JMP | BPF_JA, 0, 0, (uint32_t)dry.n);
    }
    tree(b, rs, ix, mid);
    tree(b, rs, ix + mid, n - mid);
}

/* A's number looked up in rs[0..n) (a number listed twice keeps its first rule). */
static void lookup(fbuf *b, const rule *rs, size_t n)
{
    unsigned char ix[MAX_RULES];
    size_t m = 0;
    for (size_t i = 0; i < n && i < MAX_RULES; i++) { /* insertion by number, stable */
        size_t j = m;
        while (j > 0 && rs[ix[j - 1]].nr > rs[i].nr)
            j--;
        if (j > 0 && rs[ix[j - 1]].nr == rs[i].nr)
            continue;
        for (size_t k = m; k > j; k--)
            ix[k] = ix[k - 1];
        ix[j] = (unsigned char)i;
        m++;
    }
    tree(b, rs, ix, m);
}

static void build(fbuf *b)
{
    size_t nn = sizeof native / sizeof native[0], nf = sizeof foreign / sizeof foreign[0];
    _Static_assert(sizeof native / sizeof native[0] <= MAX_RULES, "native rules");
    _Static_assert(sizeof foreign / sizeof foreign[0] <= MAX_RULES, "foreign rules");
    emit(b, LD_ABS, 0, 0, (uint32_t)offsetof(struct seccomp_data, arch));
    emit(b, JEQ, 3, 0, NATIVE_ARCH);
    emit(b, JEQ, 1, 0, FOREIGN_ARCH);
    emit(b, RET, 0, 0, SECCOMP_RET_ALLOW); /* another architecture */
    emit(b, BPF_JMP | BPF_JA, 0, 0, 0); /* patched below: -> the foreign block */
    size_t ja = b->n - 1;
    emit(b, LD_ABS, 0, 0, (uint32_t)offsetof(struct seccomp_data, nr));
    lookup(b, native, nn);
    if (ja < b->cap)
        b->f[ja].k = (uint32_t)(b->n - ja - 1);
    emit(b, LD_ABS, 0, 0, (uint32_t)offsetof(struct seccomp_data, nr));
    lookup(b, foreign, nf);
}
#endif

size_t shc__procfilter_build(struct sock_filter *f, size_t cap)
{
#if NATIVE_ARCH
    fbuf b = {f, 0, cap};
    build(&b);
    return b.n <= cap ? b.n : cap + 1;
#else
    (void)f;
    (void)cap;
    return 0;
#endif
}

int shc__procfilter_apply(void)
{
    struct sock_filter f[512];
    return shc__filter_install(f, shc__procfilter_build(f, 512), 512);
}
