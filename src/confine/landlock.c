/* The sandbox's Landlock ruleset (sandbox.h).  Execution and directory listing are never
 * handled; every write-like right the kernel's ABI knows is handled, and only the rules below
 * grant it back: the terminal and a few device files in every mode, and in `workspace` the
 * directory the command starts in plus the spec's writable roots.  Reading files is handled
 * too, and granted back beneath every entry of / but /dev, and in /dev on the device files
 * above, the terminal and /dev/shm only: a read of another terminal takes its user's keystrokes
 * (Landlock cannot take one directory out of a grant, so / is granted entry by entry).  ABI 4
 * adds TCP bind/connect (handled with no rule when the network is off), ABI 6 scopes signals
 * and abstract unix sockets to the command's own processes.
 *
 * The system's <linux/landlock.h> may predate ABI 4 and 6: the structures and constants used are
 * spelled out here with the kernel's values (a stable ABI).  Raw syscall() throughout. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdbool.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "confine/sandbox.h"

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif

/* struct landlock_ruleset_attr as of ABI 6 (its size tells the kernel which fields we set). */
typedef struct ll_ruleset {
    uint64_t fs, net, scoped;
} ll_ruleset;

/* struct landlock_path_beneath_attr is packed in the kernel's header. */
typedef struct __attribute__((packed)) ll_beneath {
    uint64_t allowed;
    int32_t parent_fd;
} ll_beneath;

enum { LL_VERSION = 1, LL_RULE_PATH_BENEATH = 1 };

#define FS_EXECUTE (1ull << 0)
#define FS_WRITE_FILE (1ull << 1)
#define FS_READ_FILE (1ull << 2)
#define FS_READ_DIR (1ull << 3)
#define FS_REFER (1ull << 13)    /* ABI 2 */
#define FS_TRUNCATE (1ull << 14) /* ABI 3 */
#define FS_IOCTL_DEV (1ull << 15) /* ABI 5 */
#define FS_MAKE_CHAR (1ull << 6)
#define FS_MAKE_BLOCK (1ull << 11)
/* WRITE_FILE, REMOVE_DIR, REMOVE_FILE, MAKE_CHAR/DIR/REG/SOCK/FIFO/BLOCK/SYM (ABI 1) */
#define FS_WRITES_V1 (FS_WRITE_FILE | (0x1ffull << 4))
#define NET_BIND_TCP (1ull << 0)    /* ABI 4 */
#define NET_CONNECT_TCP (1ull << 1) /* ABI 4 */
#define SCOPE_ABSTRACT_UNIX (1ull << 0) /* ABI 6 */
#define SCOPE_SIGNAL (1ull << 1)        /* ABI 6 */

/* The rights a rule on a file (not a directory) may carry. */
#define FS_FILE_RIGHTS (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV)

int shc__landlock_abi(void)
{
    long v = syscall(__NR_landlock_create_ruleset, NULL, 0, LL_VERSION);
    return v > 0 ? (int)v : 0;
}

/* The write rights this ABI knows. */
static uint64_t fs_writes(int abi)
{
    uint64_t w = FS_WRITES_V1;
    if (abi >= 2)
        w |= FS_REFER;
    if (abi >= 3)
        w |= FS_TRUNCATE;
    return w;
}

/* Grants `allowed` under path (or on the file at fd when path is NULL).  A path that does not
 * exist is skipped (a device the machine lacks, a root removed since): nothing to write there. */
static int grant(int rs, const char *path, int fd, uint64_t allowed)
{
    int own = -1;
    if (!allowed)
        return 0; /* the kernel refuses an empty rule */
    if (path) {
        own = open(path, O_PATH | O_CLOEXEC);
        if (own < 0)
            return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? 0 : -errno;
        fd = own;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        if (own >= 0)
            close(own);
        return -e;
    }
    if (!S_ISDIR(st.st_mode))
        allowed &= FS_FILE_RIGHTS;
    ll_beneath b = {allowed, fd};
    long r = syscall(__NR_landlock_add_rule, rs, LL_RULE_PATH_BENEATH, &b, 0);
    int e = errno;
    if (own >= 0)
        close(own);
    return r == 0 ? 0 : -e;
}

/* Device files every mode may read and write: output thrown away, the controlling terminal,
 * and the command's own terminal (fd 1 in the executor's child, the slave of its PTY). */
static const char *const devices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/tty",
                                      "/dev/urandom", "/dev/random"};
/* Beneath /dev, read only: POSIX shared memory (Python's multiprocessing, sem_open). */
static const char *const dev_reads[] = {"/dev/shm"};

/* linux_dirent64, as getdents64 fills it. */
typedef struct ll_dirent {
    uint64_t ino;
    int64_t off;
    unsigned short reclen;
    unsigned char type;
    char name[];
} ll_dirent;

/* Whether path is / or /dev (a read right there reaches every terminal). */
static bool opens_dev(const char *path)
{
    struct stat a, r, d;
    if (stat(path, &a) != 0)
        return false; /* not granted either (grant() skips it) */
    return (stat("/", &r) == 0 && a.st_dev == r.st_dev && a.st_ino == r.st_ino) ||
           (stat("/dev", &d) == 0 && a.st_dev == d.st_dev && a.st_ino == d.st_ino);
}

/* Reading granted beneath every entry of / but /dev (a symlink among them is left out: what it
 * names is reached through the entry that holds it).  Read with getdents64 into the stack: the
 * child allocates nothing.  0, or -errno. */
static int grant_root_reads(int rs)
{
    int root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        return -errno;
    _Alignas(ll_dirent) char buf[4096];
    int rc = 0;
    long n;
    while (!rc && (n = syscall(SYS_getdents64, root, buf, sizeof buf)) > 0) {
        for (long off = 0; !rc && off < n;) {
            const ll_dirent *de = (const ll_dirent *)(const void *)(buf + off);
            off += de->reclen;
            if (!strcmp(de->name, ".") || !strcmp(de->name, "..") || !strcmp(de->name, "dev") ||
                (de->type != DT_DIR && de->type != DT_REG && de->type != DT_UNKNOWN))
                continue;
            int fd = openat(root, de->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
            if (fd < 0)
                continue; /* gone since */
            struct stat st;
            if (de->type != DT_UNKNOWN) { /* the type is known: no fstat (one call less each) */
                ll_beneath b = {FS_READ_FILE, fd};
                if (syscall(__NR_landlock_add_rule, rs, LL_RULE_PATH_BENEATH, &b, 0) != 0)
                    rc = -errno;
            } else if (fstat(fd, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) {
                rc = grant(rs, NULL, fd, FS_READ_FILE);
            }
            close(fd);
        }
    }
    if (!rc && n < 0)
        rc = -errno;
    close(root);
    return rc;
}

int shc__landlock_apply(const shc_confine_spec *s)
{
    int abi = shc__landlock_abi();
    if (abi <= 0)
        return -ENOSYS;
    uint64_t writes = fs_writes(abi);
    /* ioctl on devices (ABI 5): handled, granted back only on the terminal and the devices
     * below, so a command cannot change another terminal's settings (stty -F) */
    uint64_t ioctl_dev = abi >= 5 ? FS_IOCTL_DEV : 0;
    ll_ruleset ra = {writes | ioctl_dev | FS_READ_FILE, 0, 0};
    size_t size = sizeof ra.fs;
    if (abi >= 4) {
        size += sizeof ra.net;
        if (!(s->flags & SHC_CONFINE_NETWORK))
            ra.net = NET_BIND_TCP | NET_CONNECT_TCP;
    }
    if (abi >= 6) {
        size += sizeof ra.scoped;
        ra.scoped = SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX;
    }
    long rs = syscall(__NR_landlock_create_ruleset, &ra, size, 0);
    if (rs < 0)
        return -errno;
    int rc = 0;
    uint64_t dev = FS_READ_FILE | FS_WRITE_FILE | (abi >= 3 ? FS_TRUNCATE : 0) | ioctl_dev;
    for (size_t i = 0; !rc && i < sizeof devices / sizeof devices[0]; i++)
        rc = grant((int)rs, devices[i], -1, dev);
    for (size_t i = 0; !rc && i < sizeof dev_reads / sizeof dev_reads[0]; i++)
        rc = grant((int)rs, dev_reads[i], -1, FS_READ_FILE);
    if (!rc && isatty(1))
        rc = grant((int)rs, NULL, 1, dev);
    if (!rc)
        rc = grant_root_reads((int)rs);
    /* Device nodes are never made, in any mode: a node made under a writable root would carry
     * that root's rights to whatever device it names (a disk, as root). */
    writes &= ~(FS_MAKE_CHAR | FS_MAKE_BLOCK);
    /* the workspace and the writable roots are read wherever they are (under /dev too), unless
     * one is / or /dev itself: that grant would open every terminal again */
    bool ws = s->sandbox == SHC_SANDBOX_WORKSPACE;
    if (!rc)
        rc = grant((int)rs, ".", -1, (opens_dev(".") ? 0 : FS_READ_FILE) | (ws ? writes : 0));
    for (const char *p = s->writable, *end = p + s->writable_len; ws && !rc && p && p < end;
         p += strlen(p) + 1)
        rc = grant((int)rs, p, -1, (opens_dev(p) ? 0 : FS_READ_FILE) | writes);
    if (!rc && syscall(__NR_landlock_restrict_self, rs, 0) != 0)
        rc = -errno;
    close((int)rs);
    return rc;
}

/* Every capability goes: the bounding set (so no exec can bring one back), the ambient set, and
 * the effective, permitted and inheritable sets; the securebits keep uid 0 from regaining them at
 * exec and are locked.  A command run as root is then root by uid only: file ownership still
 * counts, but mount, sethostname, settimeofday, raw sockets, module loading, CAP_FOWNER and
 * CAP_DAC_OVERRIDE are gone.  Without CAP_SETPCAP (an ordinary user) the bounding set and the
 * securebits cannot be changed, and need not be: such a process has no capabilities to lose and
 * no_new_privs keeps setcap programs from granting any. */
static int drop_caps(void)
{
    struct {
        uint32_t version;
        int pid;
    } hdr = {0x20080522 /* _LINUX_CAPABILITY_VERSION_3 */, 0};
    struct {
        uint32_t effective, permitted, inheritable;
    } data[2];
    memset(data, 0, sizeof data);
    if (syscall(__NR_capget, &hdr, data) != 0)
        return -errno;
    bool setpcap = data[0].effective & (1u << 8); /* CAP_SETPCAP */
    if (setpcap) {
        /* NOROOT, NO_SETUID_FIXUP, KEEP_CAPS off, NO_CAP_AMBIENT_RAISE, each with its lock */
        unsigned long bits = (1ul << 0) | (1ul << 1) | (1ul << 2) | (1ul << 3) | (1ul << 5) |
                             (1ul << 6) | (1ul << 7);
        if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) != 0)
            return -errno;
        /* EINVAL: beyond this kernel's last capability, and so is every later one (the
         * kernel numbers them without gaps): 41 calls, not 64 */
        for (unsigned long c = 0; c < 64; c++) {
            if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == 0)
                continue;
            if (errno != EINVAL)
                return -errno;
            break;
        }
    }
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
        return -errno;
    memset(data, 0, sizeof data);
    if (syscall(__NR_capset, &hdr, data) != 0)
        return -errno;
    return 0;
}

/* The plain filters in the order they apply (terminal, processes, network, metadata), joined
 * into one program (shc__filter_join): one install, not four, each of which costs the kernel a
 * compile and a JIT.  A workspace sandbox without the watch also needs the metadata listener
 * (attrs.c): it goes in as the oldest part, run last, so the same one install hands over the
 * listener.  What a call gets is what the separate filters would give.  Built by the forking
 * process before fork when it can (shc__sandbox_prepare): the child then only reads it. */
enum { P_LIS, P_TTY, P_PROC, P_NET, P_ATTR, P_N, ALL_MAX = 960 };
static struct {
    bool built, network, listen;
    unsigned mode;
    size_t len; /* 0: cannot be joined, install one by one */
    struct sock_filter lis[128], tty[32], proc[512], net[32], attr[256], all[ALL_MAX];
    const struct sock_filter *progs[P_N]; /* the parts in install order (oldest first) */
    size_t lens[P_N], n;
    bool has_lis; /* progs[0] is the listener */
} plain;

static bool wants_listener(const shc_confine_spec *s)
{
    return s->sandbox == SHC_SANDBOX_WORKSPACE && !(s->flags & SHC_CONFINE_WATCH);
}

static int plain_build(unsigned mode, bool network, bool listen)
{
    plain.built = false;
    plain.mode = mode;
    plain.network = network;
    plain.listen = listen;
    struct sock_filter *bufs[P_N] = {plain.lis, plain.tty, plain.proc, plain.net, plain.attr};
    size_t caps[P_N] = {128, 32, 512, 32, 256}, got[P_N];
    got[P_LIS] = listen ? shc__attr_listener_build(plain.lis, 128) : 1;
    got[P_TTY] = shc__ttyfilter_build(plain.tty, 32);
    got[P_PROC] = shc__procfilter_build(plain.proc, 512);
    got[P_NET] = network ? 1 : shc__netfilter_build(plain.net, 32);
    got[P_ATTR] = shc__attrfilter_build(mode, plain.attr, 256);
    plain.n = 0;
    for (size_t i = 0; i < P_N; i++) {
        if (!got[i] || got[i] > caps[i])
            return got[i] ? -E2BIG : -ENOSYS;
        if ((i == P_LIS && !listen) || (i == P_NET && network))
            continue;
        plain.progs[plain.n] = bufs[i];
        plain.lens[plain.n++] = got[i];
    }
    plain.has_lis = listen;
    plain.len = shc__filter_join(plain.progs, plain.lens, plain.n, plain.all, ALL_MAX);
    if (plain.len > ALL_MAX)
        plain.len = 0;
    plain.built = true;
    return 0;
}

static bool plain_fits(const shc_confine_spec *s)
{
    return plain.built && plain.mode == s->sandbox &&
           plain.network == ((s->flags & SHC_CONFINE_NETWORK) != 0) &&
           plain.listen == wants_listener(s);
}

void shc__sandbox_prepare(const shc_confine_spec *s)
{
    if (s->sandbox != SHC_SANDBOX_OFF && !plain_fits(s))
        plain_build(s->sandbox, (s->flags & SHC_CONFINE_NETWORK) != 0, wants_listener(s));
}

/* The metadata listener on its own, or (EBUSY: a supervisor of ours above, nested) the
 * metadata calls refused instead, as in read-only mode. */
static int listener_alone(int *listener)
{
    int fd = shc__attr_listener();
    if (fd == -EBUSY)
        return shc__attrfilter_apply(SHC_SANDBOX_READ_ONLY);
    if (fd < 0)
        return fd;
    *listener = fd;
    return 0;
}

static int plain_filters(const shc_confine_spec *s, int *listener)
{
    if (!plain_fits(s)) {
        int rc = plain_build(s->sandbox, (s->flags & SHC_CONFINE_NETWORK) != 0,
                             wants_listener(s));
        if (rc)
            return rc;
    }
    if (plain.len && !plain.has_lis)
        return shc__filter_install(plain.all, plain.len, ALL_MAX);
    if (plain.len) {
        int fd = shc__filter_install_flags(plain.all, plain.len, ALL_MAX,
                                           SECCOMP_FILTER_FLAG_NEW_LISTENER);
        if (fd >= 0) {
            *listener = fd;
            return 0;
        }
        if (fd != -EBUSY)
            return fd;
        /* EBUSY: nothing was installed; the parts one by one, metadata refused */
    }
    for (size_t i = plain.has_lis ? 1 : 0; i < plain.n; i++) { /* cannot be joined */
        int rc = shc__filter_install(plain.progs[i], plain.lens[i], 512);
        if (rc)
            return rc;
    }
    return plain.has_lis ? listener_alone(listener) : 0;
}

int shc__sandbox_apply(const shc_confine_spec *s, int *listener)
{
    *listener = -1;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -errno;
    int rc = shc__landlock_apply(s);
    if (!rc)
        rc = plain_filters(s, listener);
    if (!rc)
        rc = drop_caps();
    return rc;
}

/* ------------------------------------------------------------------ the agent's side */

static const char *const mode_names[] = {"off", "read-only", "workspace"};

const char *shc_sandbox_name(unsigned mode)
{
    return mode < sizeof mode_names / sizeof mode_names[0] ? mode_names[mode] : NULL;
}

int shc_sandbox_parse(const char *s)
{
    for (size_t i = 0; s && i < sizeof mode_names / sizeof mode_names[0]; i++)
        if (!strcmp(s, mode_names[i]))
            return (int)i;
    return -1;
}

int shc_sandbox_abi(const char **why)
{
    const char *no = getenv("SHCARD_NO_LANDLOCK");
    *why = NULL;
    if (no && !strcmp(no, "1")) {
        *why = "SHCARD_NO_LANDLOCK=1";
        return 0;
    }
    errno = 0;
    int abi = shc__landlock_abi();
    if (!abi)
        *why = errno == EOPNOTSUPP ? "Landlock is disabled on this kernel (boot option lsm=)"
                                   : "this kernel has no Landlock (Linux 5.13 or later with "
                                     "CONFIG_SECURITY_LANDLOCK)";
    return abi;
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

/* The private TMPDIRs an agent that died (SIGKILL) could not remove: shcard-sandbox-PID-* of
 * ours in the temporary directory whose PID is gone.  Run once at start. */
void shc_sandbox_sweep(void)
{
    const char *base = getenv("TMPDIR");
    base = base && base[0] == '/' ? base : "/tmp";
    DIR *d = opendir(base);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int pid = 0, used = 0;
        if (strncmp(e->d_name, "shcard-sandbox-", 15) ||
            sscanf(e->d_name + 15, "%d-%n", &pid, &used) != 1 || used == 0 || pid <= 0 ||
            pid == (int)getpid() || strlen(e->d_name + 15 + used) != 6)
            continue;
        if (kill(pid, 0) == 0 || errno != ESRCH)
            continue; /* its agent lives (or is not ours to ask about) */
        char path[PATH_MAX];
        struct stat st;
        int n = snprintf(path, sizeof path, "%s/%s", base, e->d_name);
        if (n < 0 || (size_t)n >= sizeof path || lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != geteuid())
            continue;
        nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    }
    closedir(d);
}

int shc__roots_init(shc__roots *r, const shc_confine_spec *spec)
{
    size_t most = 1;
    for (const char *p = spec->writable, *end = p + spec->writable_len; p && p < end;
         p += strlen(p) + 1)
        most++;
    r->n = 0;
    if (!(r->dirs = calloc(most, sizeof *r->dirs)))
        return -1;
    const char *p = spec->cwd ? spec->cwd : ".";
    const char *end = spec->writable ? spec->writable + spec->writable_len : NULL;
    for (size_t k = 0; k < most; k++) {
        char *real = realpath(p, NULL);
        if (!real && errno == ENOMEM)
            return -1;
        if (real)
            r->dirs[r->n++] = real;
        p = k == 0 ? spec->writable : p + strlen(p) + 1;
        if (!p || (end && p >= end))
            break;
    }
    return 0;
}

void shc__roots_free(shc__roots *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->dirs[i]);
    free(r->dirs);
    r->dirs = NULL;
    r->n = 0;
}
