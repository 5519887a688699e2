/* The sandbox steps of shc_confine_apply() (confine.h): a Landlock ruleset for the file system,
 * TCP and scopes (landlock.c) and a seccomp filter that denies network sockets (netfilter.c).
 * Internal to src/confine/. */
#ifndef SHC_CONFINE_SANDBOX_H
#define SHC_CONFINE_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "confine/confine.h"

/* In the child: no_new_privs, Landlock, the plain filters (the network filter unless the spec
 * keeps the network) and the capabilities dropped (landlock.c).  In workspace mode without the
 * watch *listener is the metadata listener (else -1).  0, or -errno. */
int shc__sandbox_apply(const shc_confine_spec *s, int *listener);
/* In the forking process, before fork: the plain filters of s's mode built and joined, so the
 * child need not (landlock.c). */
void shc__sandbox_prepare(const shc_confine_spec *s);
/* The Landlock ABI this kernel offers (0 = none); no allocation. */
int shc__landlock_abi(void);
/* In the child (async-signal-safe): the ruleset for s's mode, restricted on this thread.
 * no_new_privs must already be set.  0, or -errno (-ENOSYS: no Landlock). */
int shc__landlock_apply(const shc_confine_spec *s);
/* In the child: a seccomp filter returning EACCES from socket() for every family but AF_UNIX,
 * and from io_uring_setup (its operations create sockets past the filter).  0, or -errno. */
int shc__netfilter_apply(void);
/* In the child: a seccomp filter making ioctl(TIOCSTI) and ioctl(TIOCLINUX) fail with EPERM
 * (no typing into a terminal), and TIOCSCTTY and TIOCNOTTY (no other controlling terminal).
 * 0, or -errno. */
int shc__ttyfilter_apply(void);

/* The plain filters above and below (they deny with an errno, never notify) written into f (cap
 * instructions): the length, 0 when this architecture has none, more than cap when it does not
 * fit (SIZE_MAX: cannot be built). */
struct sock_filter;
size_t shc__netfilter_build(struct sock_filter *f, size_t cap);
size_t shc__ttyfilter_build(struct sock_filter *f, size_t cap);
size_t shc__procfilter_build(struct sock_filter *f, size_t cap);
size_t shc__attrfilter_build(unsigned mode, struct sock_filter *f, size_t cap);
/* Installs f (n instructions, built into an array of cap): 0, or -errno (-ENOSYS when n is 0,
 * -E2BIG when n > cap). */
int shc__filter_install(const struct sock_filter *f, size_t n, size_t cap);
/* The same with seccomp's install flags: with SECCOMP_FILTER_FLAG_NEW_LISTENER the listener. */
int shc__filter_install_flags(const struct sock_filter *f, size_t n, size_t cap, unsigned flags);
/* One program (into out, cap) that returns for every call what the kernel returns with
 * progs[0..n) installed in that order (lens[i] instructions each): the errno of the newest
 * that returns one, else allow.  Each program's allows become jumps to the next older one;
 * it must set A first and use neither X nor scratch memory, and return only allow or an errno,
 * or, the oldest (progs[0]) only, a notification (else SIZE_MAX).  The length, more than cap when it does not fit (netfilter.c). */
size_t shc__filter_join(const struct sock_filter *const *progs, const size_t *lens, size_t n,
                        struct sock_filter *out, size_t cap);

/* In the child, every mode (procfilter.c): EPERM from System V IPC, the keyrings, ptrace,
 * process_vm_writev, pidfd_getfd, setsid, and from changing another process's limits, priority
 * or scheduling (pid 0, the caller, stays allowed; not a user's processes).  0, or -errno. */
int shc__procfilter_apply(void);

/* In the child: the metadata rule's plain filter (attrs.c): in read-only mode chmod, chown,
 * utimes, *xattr writes and the inode-flag ioctls fail with EPERM; in every mode so do they in
 * the foreign ABI.  0, or -errno. */
int shc__attrfilter_apply(unsigned mode);
/* In the child, workspace mode without the watch: a filter notifying those calls, with a
 * listener (returned, or -errno).  Also notifies prctl(SHC__CONFINE_MARKER), the hand-over.
 * Installed on its own only when it cannot be joined with the plain filters (landlock.c). */
int shc__attr_listener(void);
/* That filter, written into f (cap): the length (as shc__netfilter_build). */
size_t shc__attr_listener_build(struct sock_filter *f, size_t cap);
#define SHC__CONFINE_MARKER 0x53484344u /* "SHCD": no prctl option has this value */

/* The workspace's writable roots, canonical: its cwd and the spec's roots (landlock.c).  One
 * that does not resolve is left out (nothing can change there). */
typedef struct {
    char **dirs;
    size_t n;
} shc__roots;
/* 0, or -1 when out of memory (r is then still safe to free). */
int shc__roots_init(shc__roots *r, const shc_confine_spec *spec);
void shc__roots_free(shc__roots *r);
/* A watch's reader of its command's memory (memread.c): one process, forked at the first
 * read and replaced when a read is abandoned; full when the watch has abandoned as many as it
 * may (then nothing more is read). */
typedef struct shc__memreader shc__memreader;
shc__memreader *shc__memreader_new(void); /* NULL when out of memory */
void shc__memreader_free(shc__memreader *r);
bool shc__memreader_full(const shc__memreader *r);
/* pread(mem, buf, n, addr) of a watched process's /proc/PID/mem (n <= 4096) in r's process,
 * waited for at most SHC__MEM_DEADLINE_MS: a page the command's own FUSE server never delivers
 * cannot hold up the agent.  -1 with errno ETIMEDOUT past the deadline. */
ssize_t shc__mem_pread(shc__memreader *r, int mem, void *buf, size_t n, uint64_t addr);
#define SHC__MEM_DEADLINE_MS 1000
/* A watched process's memory as the supervisor reads it (memread.c): its /proc/PID/mem and
 * /proc/PID/maps (-1 when they could not be opened: the process is gone) and the watch's
 * reader. */
typedef struct {
    int mem, maps;
    pid_t pid;
    shc__memreader *reader;
} shc__target;
void shc__target_open(shc__target *t, pid_t pid, shc__memreader *r);
void shc__target_close(shc__target *t);
/* Whether any of addrs lies in the process's mapping of a file on FUSE or a network file
 * system: its pages may never arrive, so it is not read. */
bool shc__mem_remote(const shc__target *t, const uint64_t *addrs, size_t naddrs);
/* n bytes at addr (any length): true when all were read.  Every page is checked before it is
 * read (a page of such a file is never read: false, errno EFAULT) and read on the reader with
 * the deadline. */
bool shc__target_read(const shc__target *t, void *buf, size_t n, uint64_t addr);
/* The NUL-terminated string at addr, the same way, into buf (cap > 0): 1 when its end was
 * found, 0 when cap - 1 bytes came without one (buf holds them), -1 when a read failed first
 * (buf then holds what came, which is not the string). */
int shc__target_str(const shc__target *t, uint64_t addr, char *buf, size_t cap);

struct seccomp_notif;
/* The supervisor's answer to a notification n (t: the process's memory): -1 when it is no
 * metadata call (CONTINUE); else the call is over: 0 when its file is under one of roots
 * (canonical absolute paths) and the supervisor made the call itself, successfully, or the
 * errno it fails with (EPERM outside the roots). */
int shc__attr_decide(const char *const *roots, size_t nroots, const struct seccomp_notif *n,
                     const shc__target *t);

#endif
