/* Signal names from a fixed table (strsignal's text depends on the locale). */
#ifndef SHC_SIGNAME_H
#define SHC_SIGNAME_H

#include <signal.h>

/* "SIGKILL" for 9, "SIGRTMIN+3" for realtime signals; NULL for a number that is no signal.
 * The string is static. */
const char *shc_signal_name(int signo);

/* Fills set with every signal whose default action ends the process and that a program can
 * catch without losing its meaning: SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1/2, SIGPIPE,
 * SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO, SIGPWR, SIGSTKFLT and the realtime
 * signals.  Left out: SIGKILL and SIGSTOP (cannot be caught) and the synchronous faults SIGSEGV,
 * SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT (blocking them would turn a crash into a
 * silent kill; a crash is covered the way SIGKILL is, by the executor's guardian). */
void shc_signal_terminating(sigset_t *set);

#endif
