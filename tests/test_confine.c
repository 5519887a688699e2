/* src/confine/: the spec's wire form, the event texts, and the watch with real processes on the
 * executor: every notification answered (the command runs exactly as without the watch), events
 * from many threads at once, the programs a command names, and no event for reads. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classify/programs.h"
#include "confine/confine.h"
#include "confine/object.h"
#include "confine/sandbox.h"
#include "confine/systab.h"
#include "exec/pty.h"

typedef struct got {
    int done, code;
    int n, exec, write, change;
    char first[SHC_CONFINE_DETAIL + 16];
} got;

static void on_exit_cb(shc_pty *p, const shc_pty_status *st, void *payload)
{
    (void)p;
    got *g = payload;
    g->done = 1;
    g->code = shc_pty_status_code(st);
}

static void on_ev(shc_pty *p, const shc_confine_event *ev, void *payload)
{
    (void)p;
    got *g = payload;
    if (!g->n++)
        snprintf(g->first, sizeof g->first, "%s %s", ev->what, ev->detail);
    g->exec += !strcmp(ev->what, "exec");
    g->write += !strcmp(ev->what, "write");
    g->change += !strcmp(ev->what, "change");
}

/* Runs cmd under the watch with programs (NUL-separated, plen bytes). */
static void run(got *g, const char *cmd, const char *programs, size_t plen)
{
    memset(g, 0, sizeof *g);
    shc_loop *loop = shc_loop_new();
    shc_exec *ex = shc_exec_new(loop);
    assert_non_null(ex);
    shc_confine_spec spec = {.flags = SHC_CONFINE_WATCH, .programs = programs, .programs_len = plen};
    shc_pty_opts o;
    memset(&o, 0, sizeof o);
    o.command = cmd;
    o.confine = &spec;
    o.on_confine = on_ev;
    o.on_exit = on_exit_cb;
    o.payload = g;
    shc_pty *p = NULL;
    assert_int_equal(shc_pty_spawn(&p, ex, &o, NULL), 0);
    assert_true(shc_pty_watched(p));
    for (int i = 0; i < 2000 && !g->done; i++)
        shc_loop_run_once(loop, 50);
    assert_true(g->done);
    shc_pty_free(p);
    shc_exec_free(ex);
    shc_loop_free(loop);
}

static void test_pack(void **state)
{
    (void)state;
    static const char progs[] = "cat\0rg\0";
    shc_confine_spec s = {.flags = SHC_CONFINE_WATCH | SHC_CONFINE_LOGIN, .programs = progs,
                          .programs_len = sizeof progs - 1},
                     u;
    char buf[64];
    size_t n = shc_confine_pack(&s, buf, sizeof buf);
    assert_int_equal(n, 20 + sizeof progs - 1); /* the header grew the sandbox's fields */
    assert_int_equal(shc_confine_unpack(&u, buf, n), 0);
    assert_int_equal(u.flags, s.flags);
    assert_int_equal(u.programs_len, s.programs_len);
    assert_memory_equal(u.programs, progs, u.programs_len);
    assert_int_equal(shc_confine_pack(&s, buf, 10), 0); /* does not fit */
    assert_int_not_equal(shc_confine_unpack(&u, buf, n - 1), 0); /* cut */
    buf[n - 1] = 'x';
    assert_int_not_equal(shc_confine_unpack(&u, buf, n), 0); /* a name without its NUL */
    buf[0] = 9;
    assert_int_not_equal(shc_confine_unpack(&u, buf, n), 0); /* another version */
}

static void test_event_text(void **state)
{
    (void)state;
    shc_confine_event e = {"exec", "execve", 1, "/usr/bin/touch"};
    char b[600];
    assert_string_equal(shc_confine_event_text(&e, b, sizeof b), "it ran `touch`");
    shc_confine_event w = {"write", "openat", 1, "/tmp/x"};
    assert_string_equal(shc_confine_event_text(&w, b, sizeof b),
                        "it opened '/tmp/x' for writing (openat)");
}

static void test_programs(void **state)
{
    (void)state;
    size_t n = 0;
    bool login = false;
    const char *cmd = "bash -lc 'cat a | head -n 1; find . -exec grep x {} +'";
    char *p = shc__programs(cmd, strlen(cmd), &n, &login);
    assert_non_null(p);
    assert_true(login);
    static const char want[] = "bash\0cat\0head\0find\0.\0grep\0x\0{}\0+\0";
    assert_int_equal(n, sizeof want - 1);
    assert_memory_equal(p, want, n);
    free(p);
    p = shc__programs("cat a", 5, &n, &login);
    assert_false(login);
    assert_int_equal(n, 4);
    free(p);
}

static void test_reads_are_no_events(void **state)
{
    (void)state;
    got g;
    static const char progs[] = "cat\0ls\0";
    run(&g, "cat /etc/hostname >/dev/null; ls -la / >/dev/null 2>&1; cat /etc/hostname", progs,
        sizeof progs - 1);
    assert_int_equal(g.code, 0);
    assert_int_equal(g.n, 0);
}

static void test_events_and_the_command_unchanged(void **state)
{
    (void)state;
    char dir[] = "/tmp/shc-confine-XXXXXX", cmd[512];
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "touch %s/a && mkdir %s/d && rm %s/a && ls %s", dir, dir, dir, dir);
    static const char progs[] = "touch\0mkdir\0ls\0"; /* rm is not named */
    got g;
    run(&g, cmd, progs, sizeof progs - 1);
    assert_int_equal(g.code, 0);
    assert_int_equal(g.exec, 1);
    assert_true(g.write >= 1);
    assert_true(g.change >= 2); /* mkdir, unlinkat (and touch's utimensat) */
    char path[600];
    snprintf(path, sizeof path, "%s/d", dir);
    assert_int_equal(access(path, F_OK), 0); /* it ran as asked */
    snprintf(path, sizeof path, "%s/a", dir);
    assert_int_not_equal(access(path, F_OK), 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* Many threads, each writing files at once: every notification is answered and seen. */
static void test_threads(void **state)
{
    (void)state;
    if (access("/usr/bin/python3", X_OK) != 0)
        fail_msg("/usr/bin/python3 is needed");
    char dir[] = "/tmp/shc-confine-XXXXXX", cmd[700];
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -B -c 'import threading\n"
             "def w(i):\n"
             "    for k in range(20): open(\"%s/t%%d_%%d\" %% (i, k), \"w\").close()\n"
             "ts = [threading.Thread(target=w, args=(i,)) for i in range(8)]\n"
             "[t.start() for t in ts]; [t.join() for t in ts]'",
             dir);
    static const char progs[] = "python3\0";
    got g;
    run(&g, cmd, progs, sizeof progs - 1);
    assert_int_equal(g.code, 0);
    assert_int_equal(g.write, 160);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* The name-service exemption is an exact name, never a prefix a path climbs out of. */
static void test_nss_exact(void **state)
{
    (void)state;
    assert_true(shc__obj_nss_socket("/run/nscd/socket"));
    assert_true(shc__obj_nss_socket("/run/systemd/userdb/io.systemd.Multiplexer"));
    assert_false(shc__obj_nss_socket("/run/systemd/userdb/../../dbus/system_bus_socket"));
    assert_false(shc__obj_nss_socket("/run/systemd/userdb/io.systemd./../../x"));
    assert_false(shc__obj_nss_socket("/run/systemd/userdb/"));
    assert_false(shc__obj_nss_socket("/run/nscd/socket/.."));
    assert_false(shc__obj_nss_socket("/tmp/run/nscd/socket"));
}

/* A write-open's exemption: only the exact names, and the reopening names only when the
 * descriptor behind them is /dev/null or the terminal (here: this process's own fds). */
static void test_write_open_object(void **state)
{
    (void)state;
    shc_obj o;
    shc__obj_init(&o);
    int tty = posix_openpt(O_RDWR | O_NOCTTY);
    assert_true(tty >= 0);
    assert_int_equal(grantpt(tty), 0);
    assert_int_equal(unlockpt(tty), 0);
    char pts[64];
    assert_int_equal(ptsname_r(tty, pts, sizeof pts), 0);
    shc__obj_tty(&o, pts);
    assert_true(o.have_tty);
    pid_t me = getpid();
    assert_int_equal(shc__obj_write_open(&o, me, "/dev/null", O_WRONLY), SHC_OBJ_NULL);
    assert_int_equal(shc__obj_write_open(&o, me, pts, O_WRONLY), SHC_OBJ_TTY);
    assert_int_equal(shc__obj_write_open(&o, me, "/dev/tty", O_WRONLY), SHC_OBJ_TTY);
    char climbed[128];
    snprintf(climbed, sizeof climbed, "%s/../../tmp/x", pts);
    assert_int_equal(shc__obj_write_open(&o, me, climbed, O_WRONLY), SHC_OBJ_OTHER);
    assert_int_equal(shc__obj_write_open(&o, me, "/dev/pts/999999", O_WRONLY), SHC_OBJ_OTHER);
    assert_int_equal(shc__obj_write_open(&o, me, "/dev/null/", O_WRONLY), SHC_OBJ_OTHER);
    int slave = open(pts, O_RDWR | O_NOCTTY);
    int null = open("/dev/null", O_WRONLY);
    char file[] = "/tmp/shc-confine-obj-XXXXXX";
    int f = mkstemp(file);
    assert_true(slave >= 0 && null >= 0 && f >= 0);
    char name[64];
    snprintf(name, sizeof name, "/proc/self/fd/%d", slave);
    assert_int_equal(shc__obj_write_open(&o, me, name, O_WRONLY), SHC_OBJ_TTY);
    assert_int_equal(shc__obj_write_open(&o, me, name, O_WRONLY | O_NOFOLLOW), SHC_OBJ_OTHER);
    snprintf(name, sizeof name, "/dev/fd/%d", null);
    assert_int_equal(shc__obj_write_open(&o, me, name, O_WRONLY), SHC_OBJ_NULL);
    snprintf(name, sizeof name, "/dev/fd/%d", f);
    assert_int_equal(shc__obj_write_open(&o, me, name, O_WRONLY), SHC_OBJ_OTHER);
    snprintf(name, sizeof name, "/dev/fd/%d/", f);
    assert_int_equal(shc__obj_write_open(&o, me, name, O_WRONLY), SHC_OBJ_OTHER);
    assert_true(shc__obj_fd_is_tty(&o, me, slave));
    assert_false(shc__obj_fd_is_tty(&o, me, f));
    int nfd = shc__obj_open(&o, SHC_OBJ_NULL, O_WRONLY | O_CREAT | O_TRUNC);
    assert_true(nfd >= 0);
    close(nfd);
    unlink(file);
    close(f);
    close(null);
    close(slave);
    close(tty);
}

/* A named program is trusted by the file, not the name. */
static void test_program_by_file(void **state)
{
    (void)state;
    shc_obj o;
    shc__obj_init(&o);
    static const char progs[] = "cat\0";
    shc__obj_programs(&o, progs, sizeof progs - 1);
    assert_true(o.nids >= 1);
    assert_true(shc__obj_program_trusted(&o, "/bin/cat") ||
                shc__obj_program_trusted(&o, "/usr/bin/cat"));
    char dir[] = "/tmp/shc-confine-XXXXXX", cat[64];
    assert_non_null(mkdtemp(dir));
    snprintf(cat, sizeof cat, "%s/cat", dir);
    FILE *f = fopen(cat, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\n", f);
    fclose(f);
    assert_false(shc__obj_program_trusted(&o, cat));
    assert_false(shc__obj_program_trusted(&o, "cat")); /* relative: never */
    unlink(cat);
    rmdir(dir);
}

/* Runs a classic BPF seccomp filter on d (the instructions the watch's filter uses). */
static uint32_t bpf_run(const struct sock_filter *f, size_t n, const struct seccomp_data *d)
{
    uint32_t a = 0, x = 0;
    for (size_t pc = 0; pc < n; pc++) {
        const struct sock_filter *i = &f[pc];
        switch (i->code) {
        case BPF_LD | BPF_W | BPF_ABS:
            assert_true(i->k + 4 <= sizeof *d && i->k % 4 == 0);
            memcpy(&a, (const char *)d + i->k, 4);
            break;
        case BPF_JMP | BPF_JA: pc += i->k; break;
        case BPF_JMP | BPF_JEQ | BPF_K: pc += a == i->k ? i->jt : i->jf; break;
        case BPF_JMP | BPF_JGE | BPF_K: pc += a >= i->k ? i->jt : i->jf; break;
        case BPF_JMP | BPF_JSET | BPF_K: pc += (a & i->k) ? i->jt : i->jf; break;
        case BPF_ALU | BPF_AND | BPF_K: a &= i->k; break;
        case BPF_MISC | BPF_TAX: x = a; break;
        case BPF_MISC | BPF_TXA: a = x; break;
        case BPF_RET | BPF_K: return i->k;
        default: fail_msg("instruction %#x", i->code);
        }
    }
    fail_msg("the filter ran off its end");
    return 0;
}

/* What the table (systab.h) says a call gets, written out from its comments. */
static uint32_t expected(const struct seccomp_data *d)
{
    /* the queries a card tool makes (docs/verified-cards.md): every other request is told */
    static const uint32_t queries[] = {
        0x5401, 0x5405, 0x540F, 0x5411, 0x5413, 0x5415, 0x5419, 0x541B, 0x541E, 0x5421,
        0x5424, 0x5429, 0x5450, 0x5451, 0x5456, 0x5460, 0x802C542A, 0x80045430, 0x80045432,
        0x80045439, 0x80045438, 0x80045440, 0x80086601, 0x80046601, 0x80087601, 0x801C581F,
        0xC020660B, 0x2, 0x80081272, 0x1260, 0x1268, 0x80081270};
    const uint32_t N = SECCOMP_RET_USER_NOTIF, A = SECCOMP_RET_ALLOW;
    if (d->arch != AUDIT_ARCH_X86_64 || (d->nr & 0x40000000))
        return N;
    const shc_sysent *e = shc__confine_sys(d->nr);
    if (!e)
        return A;
    /* fcntl: the locks, a signal's owner, a lease; madvise: the advices on its own memory */
    static const uint32_t fcntl_told[] = {6, 7, 37, 38, 8, 15, 10, 1024};
    static const uint32_t madv_own[] = {0,  1,  2,  3,  4,  8,  10, 11, 13,  14,
                                        15, 16, 17, 18, 19, 22, 23, 24, 102, 103};
    uint32_t a0 = (uint32_t)d->args[0], a1 = (uint32_t)d->args[1], a2 = (uint32_t)d->args[2];
    uint32_t a3 = (uint32_t)d->args[3];
    uint32_t wf = 01 | 02 | 0100 | 01000 | 020000000;
    switch (e->when) {
    case SHC_SC_ALWAYS: return N;
    case SHC_SC_OPEN_ARG1: return a1 & wf ? N : A;
    case SHC_SC_OPEN_ARG2: return a2 & wf ? N : A;
    case SHC_SC_NOT_UNIX: return a0 != 1 ? N : A;
    case SHC_SC_OUTFD: return a0 == 1 || a0 == 2 ? N : A;
    case SHC_SC_PRCTL: return a0 == 22 ? N : A;
    case SHC_SC_ADDR4: return d->args[e->path] ? N : A;
    case SHC_SC_FCNTL:
        for (size_t k = 0; k < sizeof fcntl_told / sizeof fcntl_told[0]; k++)
            if (a1 == fcntl_told[k])
                return N;
        return A;
    case SHC_SC_FLOCK: return (a1 & ~4u) == 8 ? A : N; /* LOCK_UN, with LOCK_NB or not */
    case SHC_SC_MADVISE:
        for (size_t k = 0; k < sizeof madv_own / sizeof madv_own[0]; k++)
            if (a2 == madv_own[k])
                return A;
        return N;
    case SHC_SC_FADVISE: return a3 == 4 ? N : A; /* POSIX_FADV_DONTNEED */
    case SHC_SC_IOCTL:
        for (size_t k = 0; k < sizeof queries / sizeof queries[0]; k++)
            if (a1 == queries[k])
                return A;
        return N;
    case SHC_SC_CLONE: /* CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET */
        return a0 & (0x00020000u | 0x02000000u | 0x04000000u | 0x08000000u | 0x10000000u |
                     0x20000000u | 0x40000000u)
                   ? N
                   : A;
    case SHC_SC_ENOSYS: return SECCOMP_RET_ERRNO | ENOSYS;
    default: fail_msg("when %d", e->when);
    }
    return 0;
}

/* The filter the child installs gives every call what the table says: every number (and a
 * foreign ABI, x32), each argument set to values its block tests. */
static void test_filter_is_the_table(void **state)
{
    (void)state;
#ifndef __x86_64__
    skip();
#else
    static struct sock_filter f[SHC__WATCH_FILTER_MAX];
    size_t n = shc__watch_filter(f, SHC__WATCH_FILTER_MAX, AUDIT_ARCH_X86_64);
    assert_true(n > 0 && n <= SHC__WATCH_FILTER_MAX && n <= BPF_MAXINSNS);
    assert_true(shc__watch_filter(f, 10, AUDIT_ARCH_X86_64) > 10);
    n = shc__watch_filter(f, SHC__WATCH_FILTER_MAX, AUDIT_ARCH_X86_64);
    static const uint64_t vals[] = {0, 1, 2, 3, 10, 15, 22, 8, 1024, 01, 02, 0100, 01000,
                                    020000000, 04000, 0x5401, 0x5412, 0x5410, 0x5460, 0x5413,
                                    0x8901, 0x8902, 0x40045431, 0x80045430, 0xC0045430, 0x89A0, 0x800c6613,
                                    0xC020660B, 0x80081272, 0x10000000, 0x00020000, 0x40000000,
                                    0x100000000ull, 0xFFFFFFFFull, 0x7fff00001000ull,
                                    4, 5, 6, 7, 9, 12, 37, 38, 100, 101, 25, 0x10000000cull};
    /* the fixed values, then every constant the filter compares with (an allowlist entry the
     * model does not know is then tried against it) */
    static uint64_t all[64 + 3 * SHC__WATCH_FILTER_MAX];
    size_t nv = 0, notified = 0, runs = 0;
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        all[nv++] = vals[i];
    for (size_t i = 0; i < n; i++)
        if (BPF_CLASS(f[i].code) == BPF_JMP && BPF_OP(f[i].code) != BPF_JA)
            all[nv++] = f[i].k;

    for (uint32_t nr = 0; nr < 1100; nr++) {
        for (int arg = -1; arg < 6; arg++) {
            for (size_t v = 0; v < (arg < 0 ? 1 : nv); v++) {
                struct seccomp_data d;
                memset(&d, 0, sizeof d);
                d.nr = (int)nr;
                d.arch = AUDIT_ARCH_X86_64;
                if (arg >= 0)
                    d.args[arg] = all[v];
                uint32_t res = bpf_run(f, n, &d), want = expected(&d);
                if (res != want)
                    fail_msg("nr %u arg%d=%#llx: %#x, the table says %#x", nr, arg,
                             (unsigned long long)d.args[arg < 0 ? 0 : arg], res, want);
                notified += res == SECCOMP_RET_USER_NOTIF;
                runs++;
                d.arch = AUDIT_ARCH_I386;
                assert_int_equal(bpf_run(f, n, &d), SECCOMP_RET_USER_NOTIF);
                d.arch = AUDIT_ARCH_X86_64;
                d.nr = (int)(nr | 0x40000000u);
                assert_int_equal(bpf_run(f, n, &d), SECCOMP_RET_USER_NOTIF);
            }
        }
    }
    assert_true(notified > 1000 && notified < runs);
#endif
}

/* What the kernel returns with the programs installed in turn (seccomp_run_filters): the
 * action of the highest precedence (the lowest as a signed number), the newest among equals. */
static uint32_t stacked(const struct sock_filter *const *progs, const size_t *lens, size_t n,
                        const struct seccomp_data *d)
{
    uint32_t ret = SECCOMP_RET_ALLOW;
    for (size_t i = n; i-- > 0;) {
        uint32_t r = bpf_run(progs[i], lens[i], d);
        uint32_t act = r & SECCOMP_RET_ACTION_FULL;
        assert_true(r == SECCOMP_RET_ALLOW || act == SECCOMP_RET_ERRNO ||
                    r == SECCOMP_RET_USER_NOTIF);
        if ((int32_t)act < (int32_t)(ret & SECCOMP_RET_ACTION_FULL))
            ret = r;
    }
    return ret;
}

/* The sandbox's plain filters joined into one program give every call, in every ABI, what the
 * four installed one after another give, and so with the metadata listener (workspace mode
 * without the watch) joined as the oldest part; a program that notifies is joined only as the
 * oldest. */
static void test_sandbox_filters_joined(void **state)
{
    (void)state;
    static struct sock_filter lis[128], tty[32], proc[512], net[32], attr[256], all[960];
    static const uint32_t arches[] = {AUDIT_ARCH_X86_64, AUDIT_ARCH_I386, AUDIT_ARCH_AARCH64};
    static const uint64_t vals[] = {0, 1, 2, 10, 0x5412, 0x541C, 0x40086602u, 0x800c6613u,
                                    0x401c5820u, 0x40046602u, 0x100000000ull, 0xFFFFFFFFull};
    size_t notified = 0;
    for (unsigned mode = SHC_SANDBOX_READ_ONLY; mode <= SHC_SANDBOX_WORKSPACE + 1; mode++) {
        bool listen = mode > SHC_SANDBOX_WORKSPACE; /* workspace with its listener */
        unsigned m = listen ? SHC_SANDBOX_WORKSPACE : mode;
        for (int network = 0; network < 2; network++) {
            const struct sock_filter *progs[5];
            size_t lens[5], n = 0;
            if (listen) {
                progs[n] = lis;
                lens[n++] = shc__attr_listener_build(lis, 128);
            }
            progs[n] = tty;
            lens[n++] = shc__ttyfilter_build(tty, 32);
            progs[n] = proc;
            lens[n++] = shc__procfilter_build(proc, 512);
            if (!network) {
                progs[n] = net;
                lens[n++] = shc__netfilter_build(net, 32);
            }
            progs[n] = attr;
            lens[n++] = shc__attrfilter_build(m, attr, 256);
            size_t len = shc__filter_join(progs, lens, n, all, 960), deny = 0;
            assert_true(len > 0 && len <= 960);
            for (size_t a = 0; a < sizeof arches / sizeof arches[0]; a++)
                for (uint32_t nr = 0; nr < 1100; nr++)
                    for (int x32 = 0; x32 < 2; x32++)
                        for (int arg = -1; arg < 3; arg++)
                            for (size_t v = 0; v < (arg < 0 ? 1 : sizeof vals / sizeof vals[0]);
                                 v++) {
                                struct seccomp_data d;
                                memset(&d, 0, sizeof d);
                                d.arch = arches[a];
                                d.nr = (int)(nr | (x32 ? 0x40000000u : 0));
                                if (arg >= 0)
                                    d.args[arg] = vals[v];
                                uint32_t want = stacked(progs, lens, n, &d);
                                notified += want == SECCOMP_RET_USER_NOTIF;
                                if (bpf_run(all, len, &d) != want)
                                    fail_msg("mode %u network %d arch %#x nr %#x arg%d", mode,
                                             network, d.arch, (unsigned)d.nr, arg);
                                deny += want != SECCOMP_RET_ALLOW;
                            }
            assert_true(deny > 100);
        }
    }
    assert_true(notified > 100); /* the listener's calls were tried */
    struct sock_filter notify[2] = {BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
                                    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF)};
    const struct sock_filter *two[2] = {tty, notify};
    size_t lens2[2] = {shc__ttyfilter_build(tty, 32), 2};
    /* a notify from a newer program would return before an older errno: not joined */
    assert_int_equal(shc__filter_join(two, lens2, 2, all, 960), SIZE_MAX);
    const struct sock_filter *oldest[2] = {notify, tty};
    size_t lens3[2] = {2, lens2[0]};
    assert_true(shc__filter_join(oldest, lens3, 2, all, 960) <= 960);
}

int main(void)
{
    const char *why = NULL;
    if (!shc_confine_available(&why)) {
        fprintf(stderr, "test_confine: this kernel cannot watch (%s)\n", why);
        return 1; /* no silent skip: the suite needs a kernel with the watch */
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pack),
        cmocka_unit_test(test_filter_is_the_table),
        cmocka_unit_test(test_sandbox_filters_joined),
        cmocka_unit_test(test_event_text),
        cmocka_unit_test(test_programs),
        cmocka_unit_test(test_reads_are_no_events),
        cmocka_unit_test(test_events_and_the_command_unchanged),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_nss_exact),
        cmocka_unit_test(test_write_open_object),
        cmocka_unit_test(test_program_by_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
