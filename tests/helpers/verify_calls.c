/* A program that makes one system call a read, search or list command must not make, for the
 * verify suite (tests/suite_verify.sh): each mode's call may fail here, it is made all the same.
 *   verify_calls sockioctl          SIOCSIFTXQLEN on an AF_UNIX socket (an interface that is not)
 *   verify_calls encpolicy DIR      FS_IOC_SET_ENCRYPTION_POLICY on DIR opened read-only
 *   verify_calls sendmmsg PATH      two datagrams: the first to a socketpair peer, the second to
 *                                   the unix datagram socket PATH
 *   verify_calls sendmsg            sendmsg without an address on a socket that is not connected
 *   verify_calls clone              clone with CLONE_NEWUSER (fails or not)
 * Prints "made" and exits 0 once the call was made. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SIOCSIFTXQLEN
#define SIOCSIFTXQLEN 0x8943
#endif

struct fscrypt_policy_v1_ {
    unsigned char version, contents, filenames, flags;
    unsigned char key[8];
};

static int sockioctl(void)
{
    int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq r;
    memset(&r, 0, sizeof r);
    snprintf(r.ifr_name, sizeof r.ifr_name, "shcnodev%d", (int)(getpid() % 1000));
    r.ifr_qlen = 7;
    return ioctl(s, SIOCSIFTXQLEN, &r) == 0 || errno != EBADF ? 0 : 1;
}

static int encpolicy(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct fscrypt_policy_v1_ p = {0, 1, 4, 0, {1, 2, 3, 4, 5, 6, 7, 8}};
    if (fd < 0)
        return 1;
    ioctl(fd, 0x800c6613 /* FS_IOC_SET_ENCRYPTION_POLICY */, &p);
    return 0;
}

static int sendmmsg_two(const char *path)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) != 0)
        return 1;
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    char m0[] = "first", m1[] = "second";
    struct iovec v[2] = {{m0, sizeof m0 - 1}, {m1, sizeof m1 - 1}};
    struct mmsghdr h[2];
    memset(h, 0, sizeof h);
    h[0].msg_hdr.msg_iov = &v[0];
    h[0].msg_hdr.msg_iovlen = 1;
    h[1].msg_hdr.msg_iov = &v[1];
    h[1].msg_hdr.msg_iovlen = 1;
    h[1].msg_hdr.msg_name = &a;
    h[1].msg_hdr.msg_namelen = sizeof a;
    sendmmsg(sv[0], h, 2, 0);
    return 0;
}

static int sendmsg_unconnected(void)
{
    int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    char m[] = "x";
    struct iovec v = {m, 1};
    struct msghdr h;
    memset(&h, 0, sizeof h);
    h.msg_iov = &v;
    h.msg_iovlen = 1;
    sendmsg(s, &h, 0); /* ENOTCONN */
    return 0;
}

static int clone_ns(void)
{
    long pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
    if (pid == 0)
        _exit(0);
    if (pid > 0)
        waitpid((pid_t)pid, NULL, 0);
    return 0;
}

int main(int argc, char **argv)
{
    int rc = 2;
    if (argc == 2 && !strcmp(argv[1], "sockioctl"))
        rc = sockioctl();
    else if (argc == 3 && !strcmp(argv[1], "encpolicy"))
        rc = encpolicy(argv[2]);
    else if (argc == 3 && !strcmp(argv[1], "sendmmsg"))
        rc = sendmmsg_two(argv[2]);
    else if (argc == 2 && !strcmp(argv[1], "sendmsg"))
        rc = sendmsg_unconnected();
    else if (argc == 2 && !strcmp(argv[1], "clone"))
        rc = clone_ns();
    if (rc == 0)
        puts("made");
    return rc;
}
