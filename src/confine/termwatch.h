/* Opens of other terminals and of named pipes while a card's command runs (termwatch.c):
 * internal to src/confine/, used by watch.c. */
#ifndef SHC_CONFINE_TERMWATCH_H
#define SHC_CONFINE_TERMWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/loop.h"
#include "confine/confine.h"
#include "confine/object.h"
#include "confine/sandbox.h"

typedef struct shc__termw shc__termw;

/* One inotify instance watching the opens of /dev/pts/N, /dev/console, /dev/ttyN, /dev/ttySN
 * and /proc/kmsg, on loop; the terminals that exist now are remembered.  An open that is the
 * command's (leader's tree; o: its own terminal) is told to fn as an event (what "terminal",
 * syscall "open"), except while *quiet (a login profile).  NULL when inotify is refused. */
shc__termw *shc__termw_new(shc_loop *loop, const shc_obj *o, pid_t leader, const bool *quiet,
                           shc_confine_event_fn fn, void *payload);
/* A path an exec of pid names in its arguments (relative to its cwd): watched too when it is a
 * named pipe or a character device (bounded). */
void shc__termw_name(shc__termw *t, pid_t pid, const char *path);
/* The same for each argument of an exec by pid (argv: the address of its array in pid's
 * memory, read through mem). */
void shc__termw_exec(shc__termw *t, const shc__target *mem, pid_t pid, uint64_t argv);
/* Reads the pending opens (the loop calls it too) and tells each that is the command's: a
 * descriptor of a process of leader's tree names the object, or nobody in it holds it any more
 * but the object is not the command's own terminal, existed before it started and is named by
 * it or a terminal (a command that opened, read and closed it before we looked).  Returns the
 * number of events. */
int shc__termw_drain(shc__termw *t);
void shc__termw_free(shc__termw *t); /* NULL-safe */

#endif
