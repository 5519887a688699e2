/* The one-line texts of the watch's events (confine.h): what the card's notice and the findings
 * file say a command did. */
#include "confine/confine.h"

#include <stdio.h>
#include <string.h>

const char *shc_confine_event_text(const shc_confine_event *ev, char *buf, size_t cap)
{
    const char *d = ev->detail[0] ? ev->detail : ev->syscall;
    const char *base = strrchr(d, '/') ? strrchr(d, '/') + 1 : d;
    if (!strcmp(ev->what, "exec"))
        snprintf(buf, cap, "it ran `%s`", base);
    else if (!strcmp(ev->what, "write"))
        snprintf(buf, cap, "it opened '%s' for writing (%s)", d, ev->syscall);
    else if (!strcmp(ev->what, "change"))
        snprintf(buf, cap, "it changed '%s' (%s)", d, ev->syscall);
    else if (!strcmp(ev->what, "network"))
        snprintf(buf, cap, "it used the network: %s %s", ev->syscall, d);
    else if (!strcmp(ev->what, "terminal") && !strcmp(ev->syscall, "ioctl"))
        snprintf(buf, cap, "it used a terminal or device control request (%s)", d);
    else if (!strcmp(ev->what, "terminal") && !strncmp(ev->syscall, "exit", 4))
        snprintf(buf, cap, "it ended with %s", d); /* what it read from, still open */
    else if (!strcmp(ev->what, "terminal") && !strcmp(ev->syscall, "open"))
        snprintf(buf, cap, "it %s", d); /* another terminal, a named pipe: its reads take */
    else if (!strcmp(ev->what, "terminal"))
        snprintf(buf, cap, "it read its terminal (%s)", ev->syscall);
    else if (!strcmp(ev->what, "signal") && !strncmp(d, "fcntl F_SETLK", 13))
        snprintf(buf, cap, "it took a lock on a file, which holds other programs off (%s)", d);
    else if (!strcmp(ev->what, "system") && !strcmp(ev->syscall, "flock"))
        snprintf(buf, cap, "it took a lock on '%s', which holds other programs off (flock)", d);
    else if (!strcmp(ev->what, "signal"))
        snprintf(buf, cap, "it signalled a process outside the command (%s: %s)", ev->syscall, d);
    else if (!strcmp(ev->what, "blind"))
        snprintf(buf, cap, "it installed a seccomp filter of its own (%s), which could take the "
                 "watch's place", ev->syscall);
    else if (!strcmp(ev->what, "system"))
        snprintf(buf, cap, "it made a system call no read, search or list needs (%s)",
                 ev->syscall);
    else if (!strcmp(ev->what, "io_uring"))
        snprintf(buf, cap, "it set up io_uring (io_uring_setup), which the watch cannot see into");
    else if (!strcmp(ev->what, "remote"))
        snprintf(buf, cap, "it passed %s an argument in a file on FUSE or a network file system "
                 "(not read; refused)", ev->syscall);
    else if (!strcmp(ev->what, "process") && ev->detail[0])
        snprintf(buf, cap, "it changed another process (%s)", d);
    else if (!strcmp(ev->what, "process"))
        snprintf(buf, cap, "it reached into another process (%s)", ev->syscall);
    else
        snprintf(buf, cap, "it made %s", d);
    return buf;
}
