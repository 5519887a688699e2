/* Signal names from a fixed table (strsignal's text depends on the locale). */
#ifndef SHC_SIGNAME_H
#define SHC_SIGNAME_H

/* "SIGKILL" for 9, "SIGRTMIN+3" for realtime signals; NULL for a number that is no signal.
 * The string is static. */
const char *shc_signal_name(int signo);

#endif
