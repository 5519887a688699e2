/* The objects behind a watched call (object.c): internal to src/confine/. */
#ifndef SHC_CONFINE_OBJECT_H
#define SHC_CONFINE_OBJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum { SHC_OBJ_OTHER, SHC_OBJ_NULL, SHC_OBJ_TTY };

typedef struct shc_obj {
    dev_t null_rdev, tty_rdev;
    bool have_tty;
    char pts[32]; /* the command's terminal, "/dev/pts/N" */
    struct {
        dev_t dev;
        ino_t ino;
    } ids[64]; /* the files the named programs are on the trusted PATH */
    size_t nids;
    struct {
        pid_t pid;
        dev_t dev[3];
        ino_t ino[3];
    } after[16]; /* accepted execs: what the process may be running once it calls again */
    size_t nafter;
} shc_obj;

void shc__obj_init(shc_obj *o);

/* For the events' text only: path (cap bytes) made absolute from thread pid's directory fd
 * dirfd or its cwd (AT_FDCWD, negative); kept as given when it would not fit. */
void shc__obj_absolutise(pid_t pid, int dirfd, char *path, size_t cap);
/* The file pid's descriptor fd names, into path (cap bytes); "" when none. */
void shc__obj_fd_path(pid_t pid, int fd, char *path, size_t cap);
/* The command's own terminal (its path); ignored when it is not a character device. */
void shc__obj_tty(shc_obj *o, const char *pts);
/* The files the named programs ("cat\0rg\0", len bytes) are in the agent's PATH's absolute
 * directories and the system's bin directories. */
void shc__obj_programs(shc_obj *o, const char *programs, size_t len);
/* Whether abs_path is (now) one of those files, by device and inode. */
bool shc__obj_program_trusted(const shc_obj *o, const char *abs_path);

/* The file an exec of path by thread tid reaches, looked up in the command's context: from its
 * root (absolute) or its cwd or directory fd (relative), through no magic link (/proc/self/cwd,
 * /dev/fd/N name the agent's, not the command's).  An O_PATH fd, or -errno (ENOENT, ENOTDIR:
 * no such file for the command; ELOOP: a magic link; ESRCH: the process or its fd is gone). */
int shc__obj_exec_open(pid_t tid, int dirfd, const char *path);

/* Whether thread tid is the only task that can write its memory while it waits in a call
 * (then what shcard read of an exec's path is what the kernel reads): 0 when it is (one thread,
 * and no other process of leader's tree shares its memory, by kcmp KCMP_VM), 1 when its
 * process has other threads, 2 when another process shares its memory or it cannot be told. */
int shc__obj_sole_writer(pid_t leader, pid_t tid);

/* After an accepted exec by tid of abs_path: the process's next notified call checks that it
 * runs that file (or its #! interpreter), or still its program of before (a failed exec). */
void shc__obj_exec_expect(shc_obj *o, pid_t tid, const char *abs_path);
/* At any notification of pid: true when an accepted exec ran something else (a path changed
 * after we read it); detail gets what /proc/PID/exe names. */
bool shc__obj_exec_check(shc_obj *o, pid_t pid, char *detail, size_t cap);

/* What a write-open of exactly `path` by pid would reach, when that is output and not a change:
 * SHC_OBJ_NULL (/dev/null), SHC_OBJ_TTY (the command's terminal: /dev/tty, its /dev/pts/N, or a
 * /dev/stdout, /dev/fd/N, /proc/self/fd/N whose descriptor is the terminal or /dev/null, then
 * SHC_OBJ_NULL for the latter); SHC_OBJ_OTHER for anything else (an event). */
int shc__obj_write_open(const shc_obj *o, pid_t pid, const char *path, unsigned flags);
/* Opens that object here with the call's flags (O_NOCTTY, CLOEXEC added): the fd, or -errno. */
int shc__obj_open(const shc_obj *o, int obj, unsigned flags);
/* Whether pid's descriptor fd is the command's terminal. */
bool shc__obj_fd_is_tty(const shc_obj *o, pid_t pid, long fd);

pid_t shc__obj_parent(pid_t pid);
/* Whether target is self, leader, or a descendant of leader. */
bool shc__obj_in_tree(pid_t leader, pid_t self, pid_t target);

/* Whether a signal sig to target (kill's meaning of 0 and negative targets when is_kill) reaches
 * a process outside the command's tree; signal 0 only probes. */
bool shc__obj_signal_outside(pid_t leader, pid_t self, bool is_kill, long target, long sig);

/* At the end of pid (exit or exit_group): whether it still holds open something whose reads
 * take data from others or touch another terminal: a character device other than /dev/null,
 * zero, full, random, urandom, the controlling terminal and the command's own terminal; a
 * named FIFO; /proc/kmsg; or more descriptors than are looked at (4096).  detail says which. */
bool shc__obj_exit_held(const shc_obj *o, pid_t pid, char *detail, size_t cap);

/* Whether path is exactly a name service socket (nscd, systemd-userdb's io.systemd.NAME). */
bool shc__obj_nss_socket(const char *path);
/* Connects thread tid's socket fd to the AF_UNIX path here (pidfd_getfd): 0 or -errno. */
int shc__obj_connect(pid_t tid, long fd, const char *path);
/* Whether thread tid's descriptor fd is a connected socket (it has a peer). */
bool shc__obj_sock_connected(pid_t tid, long fd);

#endif
