/* The watch's seccomp filter (systab.h), built in the child from the system call table (no
 * allocation).  After the architecture checks, the call's number is looked up in a binary tree
 * of JGE tests over the table's numbers, sorted; each leaf tests at most LEAF numbers in turn
 * (a call always told: one test jumping to the leaf's NOTIFY; the others: their block) and
 * allows every other call.  What a call gets is exactly what the
 * table says; the tree only keeps the filter's walk short: at install the kernel walks the
 * filter once for every system call number (its cache of always-allowed calls), and a linear
 * list of 150 numbers made that walk, not the filter, the cost of a watched command's start. */
#define _GNU_SOURCE
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>

#include "confine/systab.h"

enum { LEAF = 8 };

/* Open flags that make an open more than a read: O_WRONLY, O_RDWR, O_CREAT, O_TRUNC and
 * __O_TMPFILE (the same values on x86_64 and aarch64). */
#define WRITE_FLAGS (01u | 02u | 0100u | 01000u | 020000000u)

/* The terminal requests that only ask (every other 0x54NN request is told). */
static const uint32_t ioctl_reads[] = {
    0x5401 /* TCGETS */,      0x5405 /* TCGETA */,     0x540F /* TIOCGPGRP */,
    0x5411 /* TIOCOUTQ */,    0x5413 /* TIOCGWINSZ */, 0x5415 /* TIOCMGET */,
    0x5419 /* TIOCGSOFTCAR */, 0x541B /* FIONREAD */,  0x541E /* TIOCGSERIAL */,
    0x5421 /* FIONBIO */,     0x5424 /* TIOCGETD */,   0x5429 /* TIOCGSID */,
    0x5450 /* FIONCLEX */,    0x5451 /* FIOCLEX */,    0x5456 /* TIOCGLCKTRMIOS */,
    0x5460 /* FIOQSIZE */,
};

typedef struct fbuf {
    struct sock_filter *f;
    size_t n, cap;
} fbuf;

static void emit(fbuf *b, unsigned short code, unsigned char jt, unsigned char jf, uint32_t k)
{
    if (b->n < b->cap)
        b->f[b->n] = (struct sock_filter){code, jt, jf, k};
    b->n++;
}

#define LD_ABS (BPF_LD | BPF_W | BPF_ABS)
#define JEQ (BPF_JMP | BPF_JEQ | BPF_K)
#define RET (BPF_RET | BPF_K)
#define NOTIFY SECCOMP_RET_USER_NOTIF
#define ALLOW SECCOMP_RET_ALLOW
#define ARG_LO(i) ((uint32_t)offsetof(struct seccomp_data, args) + 8u * (uint32_t)(i))
#define ARG_HI(i) (ARG_LO(i) + 4u) /* little-endian on both architectures */

/* One entry's block: "A == nr ?" (A holds the number; when not, the block is skipped with A
 * unchanged), then its tests, every path ending in a return. */
static void block(fbuf *b, const shc_sysent *e)
{
    uint32_t nr = (uint32_t)e->nr;
    switch (e->when) {
    case SHC_SC_OUTFD: /* read, readv: told only on descriptors 1 and 2 (the terminal) */
        emit(b, JEQ, 0, 5, nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(0));
        emit(b, JEQ, 2, 0, 1);
        emit(b, JEQ, 1, 0, 2);
        emit(b, RET, 0, 0, ALLOW);
        emit(b, RET, 0, 0, NOTIFY);
        break;
    case SHC_SC_NOT_UNIX: /* socket(domain, ...): any family but AF_UNIX */
        emit(b, JEQ, 0, 4, nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(0));
        emit(b, JEQ, 1, 0, 1 /* AF_UNIX */);
        emit(b, RET, 0, 0, NOTIFY);
        emit(b, RET, 0, 0, ALLOW);
        break;
    case SHC_SC_IOCTL: { /* every terminal request but the queries, every pure "set" */
        size_t na = sizeof ioctl_reads / sizeof ioctl_reads[0], len = na + 12;
        emit(b, JEQ, 0, (unsigned char)(len - 1), nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(1));
        for (size_t k = 0; k < na; k++) /* -> ALLOW at len - 2 */
            emit(b, JEQ, (unsigned char)(len - 2 - (2 + k) - 1), 0, ioctl_reads[k]);
        emit(b, JEQ, (unsigned char)(len - 1 - (2 + na) - 1), 0, 0x8901 /* FIOSETOWN */);
        emit(b, JEQ, (unsigned char)(len - 1 - (3 + na) - 1), 0, 0x8902 /* SIOCSPGRP */);
        emit(b, BPF_MISC | BPF_TAX, 0, 0, 0);
        emit(b, BPF_ALU | BPF_AND | BPF_K, 0, 0, 0xFFFFFF00u);
        emit(b, JEQ, (unsigned char)(len - 1 - (6 + na) - 1), 0, 0x5400 /* a terminal's */);
        emit(b, BPF_MISC | BPF_TXA, 0, 0, 0);
        emit(b, BPF_ALU | BPF_AND | BPF_K, 0, 0, 0xC0000000u);
        emit(b, JEQ, 1, 0, 0x40000000u /* _IOC_WRITE alone */);
        emit(b, RET, 0, 0, ALLOW);
        emit(b, RET, 0, 0, NOTIFY);
        break;
    }
    case SHC_SC_PRCTL: /* prctl(PR_SET_SECCOMP) */
        emit(b, JEQ, 0, 4, nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(0));
        emit(b, JEQ, 0, 1, 22 /* PR_SET_SECCOMP */);
        emit(b, RET, 0, 0, NOTIFY);
        emit(b, RET, 0, 0, ALLOW);
        break;
    case SHC_SC_FCNTL: /* fcntl: a signal's owner (SIGIO, SIGURG), a lease */
        emit(b, JEQ, 0, 7, nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(1));
        emit(b, JEQ, 4, 0, 8 /* F_SETOWN */);
        emit(b, JEQ, 3, 0, 15 /* F_SETOWN_EX */);
        emit(b, JEQ, 2, 0, 10 /* F_SETSIG */);
        emit(b, JEQ, 1, 0, 1024 /* F_SETLEASE */);
        emit(b, RET, 0, 0, ALLOW);
        emit(b, RET, 0, 0, NOTIFY);
        break;
    case SHC_SC_OPEN_ARG1:
    case SHC_SC_OPEN_ARG2:
        emit(b, JEQ, 0, 4, nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(e->when == SHC_SC_OPEN_ARG1 ? 1 : 2));
        emit(b, BPF_JMP | BPF_JSET | BPF_K, 0, 1, WRITE_FLAGS);
        emit(b, RET, 0, 0, NOTIFY);
        emit(b, RET, 0, 0, ALLOW);
        break;
    case SHC_SC_ADDR4: /* arg `path` (sendto's address, prlimit64's new limit) not NULL */
        emit(b, JEQ, 0, 6, nr);
        emit(b, LD_ABS, 0, 0, ARG_LO(e->path));
        emit(b, JEQ, 0, 2, 0);
        emit(b, LD_ABS, 0, 0, ARG_HI(e->path));
        emit(b, JEQ, 1, 0, 0);
        emit(b, RET, 0, 0, NOTIFY);
        emit(b, RET, 0, 0, ALLOW);
        break;
    case SHC_SC_ALWAYS: /* one test in its leaf (leaf()) */
    default: break;
    }
}

/* A leaf: the entries ix[0..n) in turn, then ALLOW, then the NOTIFY that an ALWAYS entry's one
 * test jumps to (A holds the number; a block not taken leaves it so). */
static void leaf(fbuf *b, const shc_sysent *tab, const unsigned short *ix, size_t n)
{
    size_t end = b->n; /* where the tests end: counted first */
    for (size_t i = 0; i < n; i++) {
        if (tab[ix[i]].when == SHC_SC_ALWAYS) {
            end++;
        } else {
            fbuf one = {NULL, 0, 0};
            block(&one, &tab[ix[i]]);
            end += one.n;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (tab[ix[i]].when == SHC_SC_ALWAYS) /* to the NOTIFY after the ALLOW at end */
            emit(b, JEQ, (unsigned char)(end + 1 - b->n - 1), 0, (uint32_t)tab[ix[i]].nr);
        else
            block(b, &tab[ix[i]]);
    }
    emit(b, RET, 0, 0, ALLOW);
    emit(b, RET, 0, 0, NOTIFY);
}

/* The entries ix[0..n) (sorted by number, distinct): A holds the call's number.  A JGE goes to
 * the upper half past the lower one (through a JA when that is too far for its 8 bits). */
static void tree(fbuf *b, const shc_sysent *tab, const unsigned short *ix, size_t n)
{
    if (n <= LEAF) {
        leaf(b, tab, ix, n);
        return;
    }
    size_t mid = n / 2;
    fbuf dry = {NULL, 0, 0};
    tree(&dry, tab, ix, mid);
    uint32_t k = (uint32_t)tab[ix[mid]].nr;
    if (dry.n <= 255) {
        emit(b, BPF_JMP | BPF_JGE | BPF_K, (unsigned char)dry.n, 0, k);
    } else {
        emit(b, BPF_JMP | BPF_JGE | BPF_K, 0, 1, k);
        emit(b, BPF_JMP | BPF_JA, 0, 0, (uint32_t)dry.n);
    }
    tree(b, tab, ix, mid);
    tree(b, tab, ix + mid, n - mid);
}

size_t shc__watch_filter(struct sock_filter *f, size_t cap, uint32_t arch)
{
    fbuf b = {f, 0, cap};
    size_t n = 0;
    const shc_sysent *tab = shc__confine_systab(&n);
    unsigned short ix[SHC__SYSTAB_MAX];
    size_t m = 0;
    if (n > SHC__SYSTAB_MAX)
        return cap + 1;
    /* sorted by number (insertion, stable); a number listed twice keeps its first entry */
    for (size_t i = 0; i < n; i++) {
        size_t j = m;
        while (j > 0 && tab[ix[j - 1]].nr > tab[i].nr)
            j--;
        if (j > 0 && tab[ix[j - 1]].nr == tab[i].nr)
            continue;
        for (size_t k = m; k > j; k--)
            ix[k] = ix[k - 1];
        ix[j] = (unsigned short)i;
        m++;
    }
    emit(&b, LD_ABS, 0, 0, (uint32_t)offsetof(struct seccomp_data, arch));
    emit(&b, JEQ, 1, 0, arch);
    emit(&b, RET, 0, 0, NOTIFY); /* a foreign ABI: every call is told */
    emit(&b, LD_ABS, 0, 0, (uint32_t)offsetof(struct seccomp_data, nr));
#ifdef __x86_64__
    emit(&b, BPF_JMP | BPF_JGE | BPF_K, 0, 1, 0x40000000u); /* x32 */
    emit(&b, RET, 0, 0, NOTIFY);
#endif
    tree(&b, tab, ix, m);
    return b.n;
}
