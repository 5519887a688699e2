/* src/exec/ owns running commands: the PTY executor (pty.c), the guardian process that forks
 * and outlives them (guard.c, its executor side; guardian.c, the process), the fork/exec of the
 * child (pty_spawn.c), the output products (output.c: display chunks, model text, tail ring)
 * and the orphan sweep (sweep.c).  It knows nothing of ACP or cards: callers get callbacks.
 * May use: base/ (the loop, signal names, UTF-8).
 *
 * The PTY executor: runs `bash -c CMD` (or `bash -lc CMD`) in a new session on a pseudo-terminal,
 * driven by an shc_loop the caller owns, and turns the one byte stream into three products:
 * display chunks (raw bytes as valid UTF-8, for a live terminal card), model text (CR/ANSI
 * applied, head+tail bounded) and a tail ring (last N bytes, the ACP outputByteLimit rule).
 *
 * Ownership: an shc_exec (one per process that runs commands) is owned by the caller and
 * borrows the loop.  Each running command is an shc_pty owned by the
 * caller, freed with shc_pty_free (NULL-safe).  Free every shc_pty before its shc_exec, and the
 * shc_exec before the loop.  Strings passed to callbacks are borrowed for the call only.
 *
 * Environment decision (executor-and-performance.md §1.9 item 4): the child gets TERM=dumb and
 * NO_COLOR=1 by default, because the model reads the same output and most tools then print
 * neither colour nor cursor movement; opts.color = true gives TERM=xterm-256color and
 * COLORTERM=truecolor without NO_COLOR, for display-first use; a TERM or COLORTERM that opts.env
 * sets or unsets replaces these (shcard run --color passes the user's TERM).  Always forced: PAGER, GIT_PAGER,
 * GH_PAGER, MANPAGER, SYSTEMD_PAGER = cat, BAT_PAGER empty (bat would exec $PAGER), LESS=-FRX, GIT_TERMINAL_PROMPT=0, GIT_EDITOR=:,
 * GIT_MERGE_AUTOEDIT=no, LANG/LC_CTYPE/LC_ALL=C.UTF-8, PWD = the cwd, COLUMNS/LINES = the window
 * size, SHCARD_CMD_ID (a per-command token the orphan sweep matches); TMUX*, STY, WINDOW and
 * WINDOWID are removed.  opts.env overrides are applied last.
 *
 * Nothing outlives the caller (guard.h): the commands are forked by a guardian process, their
 * parent and a child subreaper in its own session, which kills every process group and every
 * descendant it holds when the caller dies, SIGKILL included.
 *
 * Process: setsid + controlling tty, stdin /dev/null, stdout/stderr the tty, every other fd
 * closed, signal dispositions and mask reset, window size set before exec.  A command is complete
 * when its exit status is known AND the PTY reached EOF (EIO), with a 150 ms grace for
 * stragglers; then its process group gets SIGKILL and everything it started is killed and
 * reaped: its cgroup v2 (cgroup.h) where one can be made, else the orphans re-parented to the
 * guardian that are attributed to it (adopt.h), and those carrying its token or its session or
 * process group (sweep.h).  Timeout and cancel run the kill ladder:
 * SIGTERM (+SIGCONT) to the group, SIGKILL after kill_grace_ms. */
#ifndef SHC_PTY_H
#define SHC_PTY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/loop.h"
#include "confine/confine.h"

typedef struct shc_exec shc_exec;
typedef struct shc_pty shc_pty;

/* How a command ended.  Exactly one of exit_code >= 0 / signal != NULL holds. */
typedef struct shc_pty_status {
    int exit_code;        /* WEXITSTATUS, or -1 (JSON null) when a signal ended it */
    int signo;            /* the signal number, or 0 */
    const char *signal;   /* static name from a table ("SIGKILL"), or NULL */
    bool timed_out;       /* the timeout ran the kill ladder */
    bool cancelled;       /* shc_pty_cancel ran the kill ladder */
    bool input_wait;      /* it waited for terminal input past input_wait_ms: kill ladder */
    uint64_t duration_ms; /* spawn to completion */
} shc_pty_status;

/* The shell convention: 124 for a timeout, 128+N for a signal, else the exit code. */
int shc_pty_status_code(const shc_pty_status *st);

/* A spawn failure, e.g. stage "chdir" with err ENOENT for a missing cwd. */
typedef struct shc_pty_error {
    int err;           /* errno value */
    const char *stage; /* static: "openpt", "fork", "chdir", "exec", "shell", "nomem", "args",
                        * "confine" */
    char
        message[320]; /* human text: "cannot change directory to '/x': No such file or directory" */
} shc_pty_error;

/* A display chunk: valid UTF-8 (invalid bytes became U+FFFD, a split character is carried to
 * the next chunk), CRLF and ANSI kept.  data is borrowed for the call; it is not NUL-terminated.
 * The callback may call shc_pty_cancel but must not free the pty. */
typedef void (*shc_pty_output_fn)(shc_pty *pty, const char *data, size_t len, void *payload);
/* Called once, when the command is complete (exit known, output drained, orphans swept).
 * All display chunks have been delivered before.  st is borrowed for the call.  The callback
 * may call shc_pty_free(pty); model text and tail stay readable until then. */
typedef void (*shc_pty_exit_fn)(shc_pty *pty, const shc_pty_status *st, void *payload);
/* The watch saw the command do something (confine.h); ev is borrowed for the call, which must
 * not free the pty.  Called from the loop, after the call was let through. */
typedef void (*shc_pty_confine_fn)(shc_pty *pty, const shc_confine_event *ev, void *payload);
/* The command was first seen waiting for terminal input (stall.h); called once, must not free
 * the pty.  Nothing is done to the command. */
typedef void (*shc_pty_wait_fn)(shc_pty *pty, void *payload);

typedef struct shc_pty_opts {
    const char *command;         /* borrowed, required: the script given to bash -c */
    const char *const *args;     /* borrowed, NULL-terminated, may be NULL: the words after the
                                  * script, its $0 $1... (bash -c COMMAND ARGS...), each given
                                  * to execve as its own argument, never parsed by the shell */
    const char *shell;           /* borrowed; NULL = "bash" looked up in PATH */
    const char *cwd;             /* borrowed; NULL = the current directory */
    const char *const *env;      /* borrowed, NULL-terminated: "NAME=value" sets, "NAME" unsets */
    bool login;                  /* bash -lc instead of bash -c */
    bool color;                  /* see the environment decision above */
    uint16_t cols, rows;         /* window size; 0 = 120 x 40 */
    uint64_t timeout_ms;         /* 0 = none; the deadline includes shell startup */
    uint64_t input_wait_ms;      /* 0 = never; else a command that keeps waiting for terminal
                                  * input this long (reading /dev/tty, a password prompt, a
                                  * pager, or stopped: see stall.h) gets the kill ladder, and
                                  * both its display and its model text end with a notice */
    uint64_t kill_grace_ms;      /* SIGTERM to SIGKILL; 0 = 2000 */
    size_t model_cap;            /* model text head+tail capacity in bytes; 0 = 1 MiB */
    size_t tail_limit;           /* tail ring bytes (ACP outputByteLimit) when has_tail_limit */
    bool has_tail_limit;         /* false = 1 MiB */
    size_t chunk_bytes;          /* display chunk size cap; 0 = 8192 */
    uint32_t chunk_ms;           /* display coalescing delay; 0 = 16 ms */
    size_t display_limit;        /* display bytes per command; 0 = 80 MiB.  Past it no more
                                  * chunks, then one closing notice "[shcard: N more bytes not
                                  * shown]"; model text and tail still see everything.  After
                                  * 10,000 chunks the coalescing delay grows to 500 ms. */
    const shc_confine_spec *confine; /* borrowed, may be NULL: what the child does to itself
                                      * before exec.  With SHC_CONFINE_WATCH, every watched
                                      * call goes to on_confine.  When this kernel cannot watch
                                      * (shc_confine_available), the command runs unwatched and
                                      * shc_pty_watched() says so. */
    shc_pty_confine_fn on_confine;   /* may be NULL */
    shc_pty_wait_fn on_wait;         /* may be NULL: see shc_pty_wait_fn */
    shc_pty_output_fn on_output; /* may be NULL */
    shc_pty_exit_fn on_exit;     /* may be NULL */
    void *payload;               /* passed to both callbacks */
} shc_pty_opts;

/* An owned executor context on a borrowed loop, or NULL.  It forks the guardian (and makes
 * this process a child subreaper too, so that what a killed guardian held comes back here). */
shc_exec *shc_exec_new(shc_loop *loop);
/* NULL-safe.  Any command still running is killed (SIGKILL) and reaped; its pty stays owned by
 * the caller and must still be freed, but no callback runs.  The guardian exits; reaped here. */
void shc_exec_free(shc_exec *ex);
/* Back-pressure: while paused, no PTY of this executor is read, so a command that prints
 * blocks in write() once the PTY's buffer (a few KiB) is full, as in a real terminal whose
 * user stopped scrolling.  Everything else goes on: exits are seen, cancel and timeouts run the
 * kill ladder, a command that exits is drained (a bounded amount) and completes.  Callable from
 * an output callback (the read loop stops after the current block). */
void shc_exec_pause(shc_exec *ex, bool paused);
bool shc_exec_paused(const shc_exec *ex);
/* The guardian's pid (the process that forks the commands), or -1 between a lost guardian and
 * the next spawn.  For tests and diagnostics. */
pid_t shc_exec_guardian(const shc_exec *ex);
/* What contains each command, for the log: "a cgroup v2 per command under DIR", or "the
 * guardian's process tree (no cgroup: WHY)" (docs/executor.md).  Borrowed; "" without a
 * guardian. */
const char *shc_exec_containment(const shc_exec *ex);

/* Starts opts->command.  On success *out is an owned running command (the exit callback will
 * run from the loop) and 0 is returned.  On failure *out is NULL, err (may be NULL) is filled
 * and a negative SHC_E_* is returned: SHC_E_IO for openpt/fork/chdir/exec/shell failures,
 * SHC_E_NOMEM, SHC_E_USAGE for missing arguments.  A chdir or exec failure never produces
 * output: it is detected before spawn returns. */
int shc_pty_spawn(shc_pty **out, shc_exec *ex, const shc_pty_opts *opts, shc_pty_error *err);

/* Runs the kill ladder (status.cancelled = true).  No-op once the command has completed or
 * while the ladder already runs. */
void shc_pty_cancel(shc_pty *pty);
/* Sends signo to the command's process group (shcard run passes a Ctrl-C on as SIGINT); no kill
 * ladder.  0, or -ESRCH when it has ended or is being cancelled, or -errno from kill(2). */
int shc_pty_signal(shc_pty *pty, int signo);
/* Sets the window size (SIGWINCH to the foreground group).  0 or a negative SHC_E_*. */
int shc_pty_resize(shc_pty *pty, uint16_t cols, uint16_t rows);

pid_t shc_pty_pid(const shc_pty *pty); /* the shell's pid (== pgid == sid) */
/* Whether the command runs under the watch its opts asked for (false once it is done). */
bool shc_pty_watched(const shc_pty *pty);
/* Whether its login shell's profile still runs (shc_confine_watch_quiet): not the command's
 * time yet. */
bool shc_pty_in_profile(const shc_pty *pty);
bool shc_pty_done(const shc_pty *pty); /* the exit callback has run (or is running) */
/* The final status once done, else NULL.  Borrowed from the pty. */
const shc_pty_status *shc_pty_status_get(const shc_pty *pty);

/* Owned (free()) NUL-terminated copy of the model text so far: CRLF normalised, CR and
 * erase-line applied, ANSI CSI/OSC/DCS stripped, and past model_cap the head, the marker
 * "\n… N bytes omitted …\n" and the tail, cut on character boundaries.  NULL when out of memory.
 * *len (may be NULL) gets the length. */
char *shc_pty_model_text(const shc_pty *pty, size_t *len);
/* Owned copy of the last tail_limit bytes of the display stream, starting on a character
 * boundary.  *truncated (may be NULL) says whether earlier output was dropped. */
char *shc_pty_tail(const shc_pty *pty, size_t *len, bool *truncated);
/* Bytes read from the PTY so far (before UTF-8 cleanup). */
uint64_t shc_pty_bytes_read(const shc_pty *pty);

/* NULL-safe.  A running command is killed (SIGKILL to the group), reaped and swept first, and
 * no callback runs.  Callable from the exit callback. */
void shc_pty_free(shc_pty *pty);

#endif
