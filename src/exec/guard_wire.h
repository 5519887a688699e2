/* The guardian's wire format, shared by its two halves: guardian.c (the process) and guard.c
 * (the executor's side).  Internal to the executor; see guard.h for the protocol. */
#ifndef SHC_GUARD_WIRE_H
#define SHC_GUARD_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum {
    SHC_GW_SPAWN = 1,
    SHC_GW_FINISH = 2,
    SHC_GW_REPLY_TIMEOUT_MS = 10000,  /* a guardian that takes longer is stuck: killed, lost */
    SHC_GW_POLL_FALLBACK_MS = 250,    /* without pidfd: SIGCHLD, and this safety poll */
    SHC_GW_MAX_REQUEST = 256u << 20,  /* a spawn request carries the command and the environment */
};

typedef struct shc_gw_hdr {
    uint32_t type, len;
} shc_gw_hdr;

typedef struct shc_gw_spawn_reply {
    int32_t rc, pid, err;
    char stage[16];
    char message[320];
} shc_gw_spawn_reply;

typedef struct shc_gw_exit_event {
    int32_t pid, code, status;
} shc_gw_exit_event;

/* write(2) until done: 0, or -1 (the other side is gone). */
int shc__gw_write_all(int fd, const void *buf, size_t n);
/* Reads exactly n bytes; timeout_ms < 0 waits forever.  0, or -1 on EOF, error or timeout. */
int shc__gw_read_all(int fd, void *buf, size_t n, int timeout_ms);
/* The guardian process's main (guard.h): never returns. */
struct shc_cg;
_Noreturn void shc__guardian_main(int req, int ev, pid_t agent, const struct shc_cg *cg);

#endif
