/* src/confine/ owns what a command's child does to itself between fork and exec, and the agent's
 * side of it: a serialisable spec (shc_confine_spec), shc_confine_apply() run in the child
 * (no_new_privs, then a seccomp filter whose listener fd goes back to the agent), the first exec
 * passed by the process that forked the child (shc_confine_take, shc_confine_pass_exec), and the
 * supervisor on the agent's loop (watch.c): it reads every notification, the path or address
 * from the process's memory, re-checks the notification is still valid, reports an event and
 * always answers SECCOMP_USER_NOTIF_FLAG_CONTINUE, so what runs never changes.
 * May use: base/ (the loop).
 *
 * Today the spec holds the watch (which system calls notify, which programs a card's command may
 * run); a sandbox (Landlock mode, writable roots, network on/off) adds fields to the spec and
 * steps to shc_confine_apply() without changing its callers.
 *
 * What is watched, and why (docs/verified-cards.md): execve/execveat; open/openat/creat with a
 * write, create, truncate or O_TMPFILE flag (tested in BPF); every openat2; unlink*, rename*,
 * mkdir*, rmdir, link*, symlink*, truncate/ftruncate, chmod*, chown*, utime*, mknod*, *xattr
 * writes; socket/socketpair of any family but AF_UNIX, listen, connect, bind, sendto with an
 * address, sendmsg/sendmmsg; signals and process settings aimed outside the command's tree;
 * terminal ioctls but the queries, pure _IOW ioctls; reads of descriptors 1 and 2; the system's
 * state (mounts, namespaces, host and clock, modules, keys, bpf, IPC, ...); seccomp of its own;
 * io_uring_setup, ptrace, process_vm_writev; every call of a foreign ABI.  Other reads are not
 * filtered.  Exemptions are decided on the object (object.c), never on memory the process can
 * change after the supervisor read it.
 *
 * If the supervisor goes away while a watched process lives, its notified calls fail with
 * ENOSYS: the owner keeps the listener open for the command's whole life (pty.c closes it only
 * after the group is ended). */
#ifndef SHC_CONFINE_H
#define SHC_CONFINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/loop.h"

enum {
    SHC_CONFINE_WATCH = 1u << 0, /* notify the calls a read/search/list command must not make */
    SHC_CONFINE_LOGIN = 1u << 1, /* a login shell runs first (bash -lc): what its profile does
                                  * (the user's own, e.g. Debian's /etc/profile runs `id`) is not
                                  * reported, up to the first exec of a listed program that is
                                  * not a shell by the shell or a direct child of it (the
                                  * command's own tool) */
    SHC_CONFINE_NETWORK = 1u << 2, /* a sandboxed command keeps the network (sandbox.h) */
    SHC_CONFINE_PACK_MAX = 64u << 10, /* a packed spec is at most this long */
    SHC_CONFINE_DETAIL = 512,         /* bytes of an event's detail (path, program, address) */
};

/* With SHC_CONFINE_LOGIN the executor runs `bash -lc 'SHC_CONFINE_PROFILE_END_CMD CMD'`: the
 * login shell's write-open of this path (it fails: /dev/null is no directory) ends the profile's
 * time.  The profile cannot hide the command's events by it: the command's text comes after. */
#define SHC_CONFINE_PROFILE_END "/dev/null/.shcard-profile-end"
#define SHC_CONFINE_PROFILE_END_CMD ": 2>/dev/null >" SHC_CONFINE_PROFILE_END ";"

/* What the child does to itself.  programs: names (basenames) the watch accepts in an exec, as
 * "cat\0rg\0" (each NUL-terminated), programs_len bytes in all; borrowed.  The first exec (the
 * shell the executor starts) is always accepted by the process that forked the child. */
typedef struct shc_confine_spec {
    unsigned flags; /* SHC_CONFINE_* */
    const char *programs;
    size_t programs_len;
    /* The sandbox (docs/sandbox.md): SHC_SANDBOX_*.  In read-only and workspace modes the child
     * sets no_new_privs, restricts itself with Landlock (writes only to its terminal and a few
     * devices; workspace: also under its cwd and the writable roots) and, unless
     * SHC_CONFINE_NETWORK, denies network sockets.  writable: the extra roots, absolute paths
     * each NUL-terminated, writable_len bytes in all; borrowed. */
    unsigned sandbox;
    const char *writable;
    size_t writable_len;
    /* The supervisor's side only (not packed): the directory the command starts in, the
     * workspace's writable root; NULL: the supervisor's own cwd. */
    const char *cwd;
} shc_confine_spec;

enum { SHC_SANDBOX_OFF, SHC_SANDBOX_READ_ONLY, SHC_SANDBOX_WORKSPACE };

/* "off", "read-only", "workspace"; NULL for another value. */
const char *shc_sandbox_name(unsigned mode);
/* The mode named s, or -1. */
int shc_sandbox_parse(const char *s);
/* The Landlock ABI this kernel offers, 0 when none (the sandbox cannot run: the caller refuses
 * or runs unsandboxed, as the user chose).  SHCARD_NO_LANDLOCK=1 in the environment forces 0
 * (tests, and seeing what a kernel without Landlock gets).  Sets *why (static text) when 0. */
int shc_sandbox_abi(const char **why);

/* The private TMPDIRs (TMPDIR/shcard-sandbox-PID-XXXXXX) that a process which died by SIGKILL
 * could not remove: those of ours whose PID is gone.  The agent and `shcard run` call it at
 * start. */
void shc_sandbox_sweep(void);

/* The files that make git run programs in every git directory under dir (gitsnap.c: each .git,
 * and each directory git takes as one by its content): taken before a sandboxed command,
 * compared after (gitdiff.c).  take: NULL when dir does not resolve or out of memory.
 * changed: NULL when nothing changed, else "'.git/config' (changed), 'src' (became a git
 * directory), ..." (malloc'd), ending with "; the control files of N repositories were not
 * checked (...)" or "; N directories were not searched for git directories (...)" when a cap
 * was hit. */
typedef struct shc_gitsnap shc_gitsnap;
shc_gitsnap *shc_gitsnap_take(const char *dir);
char *shc_gitsnap_changed(const shc_gitsnap *before);
void shc_gitsnap_free(shc_gitsnap *s); /* NULL-safe */
/* The same kept from one command to the next (gitcache.c), where a stat of every directory and
 * file a snapshot read tells whether it still holds (else a full scan, as above).
 * changed_keep: as changed, but it takes before (freed, or kept) and gives the snapshot of now
 * in *after (owned by the caller; NULL when none): before itself when it still holds (nothing
 * changed: no scan).  take_reuse takes the one in *cache (a command's "after"; *cache is NULL
 * after the call) when it is of the same directory and still holds, and a new one otherwise.
 * A session keeps the last "after" and passes it: a command that changes no directory the
 * check reads costs two stat passes instead of two scans. */
char *shc_gitsnap_changed_keep(shc_gitsnap *before, shc_gitsnap **after);
shc_gitsnap *shc_gitsnap_take_reuse(const char *dir, shc_gitsnap **cache);

/* Serialisation (for the executor's guardian).  pack writes into buf (cap bytes) and returns the
 * length, or 0 when it does not fit.  unpack borrows from buf: 0, or SHC_E_USAGE when malformed. */
size_t shc_confine_pack(const shc_confine_spec *s, char *buf, size_t cap);
int shc_confine_unpack(shc_confine_spec *out, const char *buf, size_t len);

/* Whether this kernel has what the watch needs: seccomp user notification, its CONTINUE answer
 * (5.5), pidfd_getfd (5.6).  Sets *why (static text) when not.  SHCARD_NO_VERIFY=1 in the
 * environment forces "no" (tests, and users who do not want the watch). */
bool shc_confine_available(const char **why);

/* In the process that forks the child, before fork: the filters s needs built once (kept for
 * the next commands), so the child only reads them instead of writing them into pages it
 * would have to copy.  Optional: shc_confine_apply() builds what was not prepared. */
void shc_confine_prepare(const shc_confine_spec *s);

/* In the child, after fork and before exec; async-signal-safe (no allocation).  The sandbox
 * first when the spec has one (its cwd is the workspace; fd 1, when a terminal, stays
 * writable), then with the watch,
 * sets no_new_privs and installs the filter; *listener is the new listener fd (CLOEXEC: it lives
 * until the exec completes, and the exec itself is notified, so the forking process can take it
 * with shc_confine_take first).  *listener = -1 when the spec asks for nothing.  0, or -errno. */
int shc_confine_apply(const shc_confine_spec *s, int *listener);

/* In the child, after telling its listener's number to the process that forked it and before
 * exec: without the watch (whose first notification is the exec itself), a notified call that
 * waits until that process has taken the listener (shc_confine_pass_exec answers it). */
void shc_confine_handoff(const shc_confine_spec *s);

/* In the process that forked the child: a copy of the child's fd `fd` (pidfd_getfd), CLOEXEC.
 * Returns the fd, or -errno. */
int shc_confine_take(pid_t child, int fd);
/* Answers the child's first notification (its exec of the shell) with CONTINUE, waiting at
 * most timeout_ms.  0, or -errno (-ETIMEDOUT). */
int shc_confine_pass_exec(int listener, int timeout_ms);

/* ------------------------------------------------------------------ the supervisor */

typedef struct shc_confine_watch shc_confine_watch;

/* One thing a watched command did that a read/search/list command must not do.  Strings are
 * static (syscall, what) or inside the event (detail); borrowed for the callback only. */
typedef struct shc_confine_event {
    const char *what;    /* "exec", "write", "change", "network", "terminal", "io_uring",
                          * "process", "kernel" (SysV IPC, keyrings, mounts), "abi" */
    const char *syscall; /* "openat", "execve", ... */
    pid_t pid;
    char detail[SHC_CONFINE_DETAIL]; /* the path, program, address; printable, may be empty */
} shc_confine_event;

typedef void (*shc_confine_event_fn)(const shc_confine_event *ev, void *payload);

/* Watches listener (owned from now on, closed by free) on loop.  spec is copied.  leader: the
 * command's first process (the shell the executor started; with SHC_CONFINE_LOGIN only an exec
 * by it or a direct child of it ends the profile's time), or 0.  NULL when out
 * of memory (the listener is then closed: the watched calls fail with ENOSYS). */
shc_confine_watch *shc_confine_watch_new(shc_loop *loop, int listener, pid_t leader,
                                         const shc_confine_spec *spec, shc_confine_event_fn fn,
                                         void *payload);
/* The command's terminal ("/dev/pts/N"): writing it is output, reading it is an event. */
void shc_confine_watch_tty(shc_confine_watch *w, const char *pts);
/* Whether a login shell's profile still runs (SHC_CONFINE_LOGIN, before the command's tool). */
bool shc_confine_watch_quiet(const shc_confine_watch *w);
/* Events not reported because a login shell's profile was still running (SHC_CONFINE_LOGIN). */
uint64_t shc_confine_watch_profile(const shc_confine_watch *w);
/* Notifications answered so far (events or not). */
uint64_t shc_confine_watch_count(const shc_confine_watch *w);
/* NULL-safe.  Answers what is pending, then closes the listener. */
void shc_confine_watch_free(shc_confine_watch *w);

/* One line for people: "ran `touch`", "wrote 'x'", "connected to 127.0.0.1:80"; owned by buf. */
const char *shc_confine_event_text(const shc_confine_event *ev, char *buf, size_t cap);

#endif
