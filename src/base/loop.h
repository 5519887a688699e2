/* The event loop: one thread, one ppoll, fd watchers, one-shot timers and signals (signalfd).
 * It knows nothing about ACP or PTYs.  Everything hangs off an shc_loop passed in; there is
 * no global state.  Callbacks may add or remove any watcher or timer, including their own.
 *
 * Ownership: the loop owns its watcher and timer records; ids stay valid until removed
 * (a fired timer is removed automatically).  The fds stay owned by the caller. */
#ifndef SHC_LOOP_H
#define SHC_LOOP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct shc_loop shc_loop;

enum { SHC_LOOP_READ = 1, SHC_LOOP_WRITE = 2 };

/* events: SHC_LOOP_READ and/or SHC_LOOP_WRITE that are ready (POLLHUP/POLLERR count as READ). */
typedef void (*shc_loop_fd_fn)(shc_loop *loop, int fd, unsigned events, void *payload);
typedef void (*shc_loop_timer_fn)(shc_loop *loop, void *payload);
typedef void (*shc_loop_signal_fn)(shc_loop *loop, int signo, void *payload);

/* Returns an owned loop or NULL.  Free with shc_loop_free (NULL-safe) after it has stopped. */
shc_loop *shc_loop_new(void);
void shc_loop_free(shc_loop *loop);

/* Watch fd for events (SHC_LOOP_READ, SHC_LOOP_WRITE: any other bit, such as poll(2)'s, is refused
 * with -1); returns a watcher id (> 0) or -1.  One watcher per fd. */
int shc_loop_watch(shc_loop *loop, int fd, unsigned events, shc_loop_fd_fn fn, void *payload);
/* Change what a watcher waits for (0 = nothing for now, keep the watcher). */
void shc_loop_set_events(shc_loop *loop, int id, unsigned events);
void shc_loop_unwatch(shc_loop *loop, int id);

/* A one-shot timer after ms milliseconds (monotonic clock); returns an id (> 0) or -1. */
int shc_loop_timer(shc_loop *loop, uint64_t ms, shc_loop_timer_fn fn, void *payload);
void shc_loop_cancel_timer(shc_loop *loop, int id); /* no-op for a fired or unknown id */

/* Deliver signo through the loop (blocks it and reads a signalfd).  Any signal but SIGKILL and
 * SIGSTOP; a second registration of the same signal replaces the first. */
int shc_loop_signal(shc_loop *loop, int signo, shc_loop_signal_fn fn, void *payload);
/* Inside a signal callback: the pid of the process that sent it (0 for the kernel).  A
 * SIGPIPE raised by our own write to a closed pipe carries our own pid. */
pid_t shc_loop_signal_sender(const shc_loop *loop);

/* Run until shc_loop_stop() or until nothing is watched and no timer is pending.
 * Returns 0, or -errno on a poll failure. */
int shc_loop_run(shc_loop *loop);
/* One iteration, waiting at most timeout_ms (-1 = until something happens).  For tests. */
int shc_loop_run_once(shc_loop *loop, int timeout_ms);
void shc_loop_stop(shc_loop *loop);

/* Milliseconds on the monotonic clock. */
uint64_t shc_loop_now_ms(void);

#endif
