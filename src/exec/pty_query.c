/* The questions a caller asks of a running or finished command (pty.h): its pid, status, output
 * so far, whether it is watched; and the two things it may do to it besides cancel: a signal to
 * its group, a new terminal size. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>

#include "exec/output.h"
#include "exec/pty_int.h"
#include "shcard.h"

int shc_pty_signal(shc_pty *pty, int signo)
{
    if (!pty || pty->done || pty->laddering || pty->ended || pty->pid <= 0)
        return -ESRCH;
    if (kill(-pty->pid, signo) != 0)
        return -errno;
    return 0;
}

int shc_pty_resize(shc_pty *pty, uint16_t cols, uint16_t rows)
{
    if (!pty || pty->master < 0 || !cols || !rows)
        return SHC_E_USAGE;
    struct winsize ws = {.ws_row = rows, .ws_col = cols};
    return ioctl(pty->master, TIOCSWINSZ, &ws) == 0 ? 0 : SHC_E_IO;
}

bool shc_pty_watched(const shc_pty *pty)
{
    return pty && pty->watch;
}

bool shc_pty_in_profile(const shc_pty *pty)
{
    return pty && shc_confine_watch_quiet(pty->watch);
}

pid_t shc_pty_pid(const shc_pty *pty)
{
    return pty ? pty->pid : -1;
}

bool shc_pty_done(const shc_pty *pty)
{
    return pty && pty->done;
}

const shc_pty_status *shc_pty_status_get(const shc_pty *pty)
{
    return pty && pty->done ? &pty->st : NULL;
}

char *shc_pty_model_text(const shc_pty *pty, size_t *len)
{
    return pty ? shc_model_render(&pty->out.model, len) : NULL;
}

char *shc_pty_tail(const shc_pty *pty, size_t *len, bool *truncated)
{
    return pty ? shc_ring_copy(&pty->out.tail, len, truncated, NULL) : NULL;
}

uint64_t shc_pty_bytes_read(const shc_pty *pty)
{
    return pty ? pty->bytes_read : 0;
}

