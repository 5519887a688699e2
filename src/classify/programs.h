/* The programs a command names: what the watch of a read, search or list card accepts in an
 * exec (confine.h).  Internal to shcard (not exported by the library). */
#ifndef SHC_PROGRAMS_H
#define SHC_PROGRAMS_H

#include <stdbool.h>
#include <stddef.h>

/* The basenames of every command word of cmd (after the bash -c/-lc wrapper, whose shell counts
 * too), and every word of a find or xargs call (what they run is among their words), as
 * "cat\0rg\0".  Returns an owned buffer (free()) and its length in *len, or NULL when out of
 * memory or when the command does not parse (nothing is then accepted).  *login: the wrapper
 * is a login shell (bash -lc), whose profile runs before the command. */
char *shc__programs(const char *cmd, size_t cmdlen, size_t *len, bool *login);

/* When cmd is exactly `[/bin/…]bash -lc SCRIPT`: SCRIPT (owned), which the executor runs as its
 * own login shell's command so that the profile's end can be told (confine.h); else NULL. */
char *shc__login_script(const char *cmd, size_t cmdlen);

#endif
