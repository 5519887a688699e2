#define _GNU_SOURCE
#include "base/signame.h"

#include <stddef.h>

/* Linux x86-64/arm64 numbering (the generic table; SIGRTMIN is 34 as glibc reports it). */
static const char *const names[] = {
    [1] = "SIGHUP",       [2] = "SIGINT",       [3] = "SIGQUIT",      [4] = "SIGILL",
    [5] = "SIGTRAP",      [6] = "SIGABRT",      [7] = "SIGBUS",       [8] = "SIGFPE",
    [9] = "SIGKILL",      [10] = "SIGUSR1",     [11] = "SIGSEGV",     [12] = "SIGUSR2",
    [13] = "SIGPIPE",     [14] = "SIGALRM",     [15] = "SIGTERM",     [16] = "SIGSTKFLT",
    [17] = "SIGCHLD",     [18] = "SIGCONT",     [19] = "SIGSTOP",     [20] = "SIGTSTP",
    [21] = "SIGTTIN",     [22] = "SIGTTOU",     [23] = "SIGURG",      [24] = "SIGXCPU",
    [25] = "SIGXFSZ",     [26] = "SIGVTALRM",   [27] = "SIGPROF",     [28] = "SIGWINCH",
    [29] = "SIGIO",       [30] = "SIGPWR",      [31] = "SIGSYS",      [32] = "SIG32",
    [33] = "SIG33",       [34] = "SIGRTMIN",    [35] = "SIGRTMIN+1",  [36] = "SIGRTMIN+2",
    [37] = "SIGRTMIN+3",  [38] = "SIGRTMIN+4",  [39] = "SIGRTMIN+5",  [40] = "SIGRTMIN+6",
    [41] = "SIGRTMIN+7",  [42] = "SIGRTMIN+8",  [43] = "SIGRTMIN+9",  [44] = "SIGRTMIN+10",
    [45] = "SIGRTMIN+11", [46] = "SIGRTMIN+12", [47] = "SIGRTMIN+13", [48] = "SIGRTMIN+14",
    [49] = "SIGRTMIN+15", [50] = "SIGRTMAX-14", [51] = "SIGRTMAX-13", [52] = "SIGRTMAX-12",
    [53] = "SIGRTMAX-11", [54] = "SIGRTMAX-10", [55] = "SIGRTMAX-9",  [56] = "SIGRTMAX-8",
    [57] = "SIGRTMAX-7",  [58] = "SIGRTMAX-6",  [59] = "SIGRTMAX-5",  [60] = "SIGRTMAX-4",
    [61] = "SIGRTMAX-3",  [62] = "SIGRTMAX-2",  [63] = "SIGRTMAX-1",  [64] = "SIGRTMAX",
};

const char *shc_signal_name(int signo)
{
    if (signo <= 0 || (unsigned)signo >= sizeof names / sizeof names[0])
        return 0;
    return names[signo];
}

void shc_signal_terminating(sigset_t *set)
{
    static const int fixed[] = {SIGHUP,  SIGINT,  SIGQUIT,   SIGTERM, SIGUSR1, SIGUSR2,
                                SIGPIPE, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ,
                                SIGIO,   SIGPWR,  SIGSTKFLT};
    sigemptyset(set);
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        sigaddset(set, fixed[i]);
    for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
        sigaddset(set, s);
}
