/* The system calls the watch notifies, as one table both the filter (confine.c) and the
 * supervisor (watch.c) read.  Internal to src/confine/. */
#ifndef SHC_CONFINE_SYSTAB_H
#define SHC_CONFINE_SYSTAB_H

#include <stddef.h>

/* When the filter notifies a call. */
enum {
    SHC_SC_ALWAYS,    /* every call */
    SHC_SC_OPEN_ARG1, /* when arg1 (open's flags) asks for write/create/truncate/tmpfile */
    SHC_SC_OPEN_ARG2, /* the same for arg2 (openat) */
    SHC_SC_TIOCSTI,   /* ioctl(fd, TIOCSTI) */
    SHC_SC_ADDR4,     /* sendto with a destination address (arg4 not NULL) */
};

/* What the supervisor reads to describe it. */
enum {
    SHC_SD_PATH,    /* a path: arg `path`, relative to dirfd arg `dirfd` (-1 = cwd) */
    SHC_SD_EXEC,    /* a program path (arg `path`) */
    SHC_SD_OPENAT2, /* openat2: path arg1, struct open_how at arg2 */
    SHC_SD_SOCK,    /* a sockaddr at arg `path`, length arg `dirfd` */
    SHC_SD_MSG,     /* a struct msghdr at arg1 (sendmsg; sendmmsg's first) */
    SHC_SD_FD,      /* a descriptor at arg `dirfd`: the file it names */
    SHC_SD_PID,     /* a pid at arg `dirfd` (0, the caller or its command's own: no event);
                     * arg `path` >= 0: no event when that argument is NULL (prlimit64) */
    SHC_SD_NONE,
};

typedef struct shc_sysent {
    int nr;
    const char *name;
    const char *what; /* the event's class (confine.h) */
    unsigned char when, describe;
    signed char path, dirfd;
} shc_sysent;

/* The table (n entries) for the architecture this was built for. */
const shc_sysent *shc__confine_systab(size_t *n);
/* The entry for nr, or NULL. */
const shc_sysent *shc__confine_sys(int nr);

#endif
