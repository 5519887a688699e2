/* The sandbox in src/confine/: the spec's wire form with the sandbox's fields (and what unpack
 * refuses), the mode names, and shc_confine_apply() in a forked child, checked by the child's own
 * system calls: a write outside the workspace and an AF_INET socket fail with EACCES, the
 * workspace, /dev/null and AF_UNIX work, the parent cannot be signalled; with the network kept,
 * AF_INET works; under a supervisor of its own, workspace mode refuses metadata calls. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "confine/confine.h"
#include "shcard.h"

static void test_pack_roundtrip(void **state)
{
    (void)state;
    static const char progs[] = "cat\0rg\0";
    static const char roots[] = "/a\0/b/c\0";
    shc_confine_spec s = {.flags = SHC_CONFINE_WATCH | SHC_CONFINE_NETWORK,
                          .programs = progs, .programs_len = sizeof progs - 1,
                          .sandbox = SHC_SANDBOX_WORKSPACE, .writable = roots,
                          .writable_len = sizeof roots - 1};
    char buf[256];
    size_t n = shc_confine_pack(&s, buf, sizeof buf);
    assert_true(n > 0);
    shc_confine_spec u;
    assert_int_equal(shc_confine_unpack(&u, buf, n), 0);
    assert_int_equal(u.flags, s.flags);
    assert_int_equal(u.sandbox, SHC_SANDBOX_WORKSPACE);
    assert_int_equal(u.programs_len, s.programs_len);
    assert_memory_equal(u.programs, progs, s.programs_len);
    assert_int_equal(u.writable_len, s.writable_len);
    assert_memory_equal(u.writable, roots, s.writable_len);
    assert_int_equal(shc_confine_pack(&s, buf, n - 1), 0); /* too small: 0, not a cut spec */

    char bad[256];
    memcpy(bad, buf, n);
    uint32_t mode = 7;
    memcpy(bad + 12, &mode, sizeof mode);
    assert_int_equal(shc_confine_unpack(&u, bad, n), SHC_E_USAGE); /* no such mode */
    memcpy(bad, buf, n);
    bad[n - 1] = 'x';
    assert_int_equal(shc_confine_unpack(&u, bad, n), SHC_E_USAGE); /* a root not terminated */
    assert_int_equal(shc_confine_unpack(&u, buf, n - 1), SHC_E_USAGE); /* lengths disagree */
    assert_int_equal(shc_confine_unpack(&u, buf, 8), SHC_E_USAGE);
}

static void test_names(void **state)
{
    (void)state;
    for (unsigned m = SHC_SANDBOX_OFF; m <= SHC_SANDBOX_WORKSPACE; m++)
        assert_int_equal(shc_sandbox_parse(shc_sandbox_name(m)), (int)m);
    assert_null(shc_sandbox_name(3));
    assert_int_equal(shc_sandbox_parse("Workspace"), -1);
    assert_int_equal(shc_sandbox_parse(NULL), -1);
}

/* Forks, chdirs to ws, applies spec, then does each probe; the child's exit status packs one bit
 * per probe that behaved as expected. */
static int in_child(const shc_confine_spec *spec, const char *ws, const char *outside)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        int lfd, bits = 0;
        if (chdir(ws) != 0 || shc_confine_apply(spec, &lfd) != 0)
            _exit(255);
        int fd = open(outside, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        bits |= (fd < 0 && errno == EACCES) << 0;
        fd = open("inside", O_WRONLY | O_CREAT | O_TRUNC, 0600);
        bits |= (fd >= 0) << 1;
        fd = open("/dev/null", O_WRONLY | O_TRUNC);
        bits |= (fd >= 0) << 2;
        int s = socket(AF_INET, SOCK_DGRAM, 0);
        bits |= (s < 0 && errno == EACCES) << 3;
        s = socket(AF_UNIX, SOCK_STREAM, 0);
        bits |= (s >= 0) << 4;
        bits |= (kill(parent, 0) != 0 && errno == EPERM) << 5;
        _exit(bits);
    }
    int st = 0;
    assert_true(pid > 0);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static void test_apply(void **state)
{
    (void)state;
    const char *why;
    int abi = shc_sandbox_abi(&why);
    assert_true(abi >= 6); /* the machines this runs on report 7 */
    char ws[] = "/tmp/shc-sandbox-ws-XXXXXX", outside[PATH_MAX];
    assert_non_null(mkdtemp(ws));
    snprintf(outside, sizeof outside, "%s.outside", ws);

    shc_confine_spec s = {.sandbox = SHC_SANDBOX_WORKSPACE};
    assert_int_equal(in_child(&s, ws, outside), 0x3f);
    s.flags = SHC_CONFINE_NETWORK; /* AF_INET allowed: bit 3 clear */
    assert_int_equal(in_child(&s, ws, outside), 0x3f & ~0x08);
    s = (shc_confine_spec){.sandbox = SHC_SANDBOX_READ_ONLY};
    assert_int_equal(in_child(&s, ws, outside), 0x3f & ~0x02); /* no write in ws either */
    s = (shc_confine_spec){.sandbox = SHC_SANDBOX_OFF};          /* the control */
    assert_int_equal(in_child(&s, ws, outside), 0x02 | 0x04 | 0x10);

    unlink(outside);
    char inside[PATH_MAX];
    snprintf(inside, sizeof inside, "%s/inside", ws);
    unlink(inside);
    assert_int_equal(rmdir(ws), 0);
}

/* A command already under a seccomp supervisor of its own: only one listener per process is
 * allowed, so workspace mode refuses the metadata calls instead (no listener, chmod EPERM); the
 * control without one gets a listener. */
static int nested_child(const char *ws, bool pre)
{
    pid_t pid = fork();
    if (pid == 0) {
        struct sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
        struct sock_fprog prog = {1, allow};
        if (chdir(ws) != 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
            _exit(255);
        if (pre && syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
                           SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog) < 0)
            _exit(254);
        close(open("nested", O_WRONLY | O_CREAT, 0644));
        int lfd = -2;
        shc_confine_spec spec = {.sandbox = SHC_SANDBOX_WORKSPACE};
        if (shc_confine_apply(&spec, &lfd) != 0)
            _exit(253);
        if (!pre)
            _exit(lfd >= 0 ? 1 : 2);
        _exit(lfd == -1 && chmod("nested", 0600) != 0 && errno == EPERM ? 1 : 3);
    }
    int st = 0;
    assert_true(pid > 0);
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static void test_nested_listener(void **state)
{
    (void)state;
    char ws[] = "/tmp/shc-sandbox-nest-XXXXXX", f[PATH_MAX];
    assert_non_null(mkdtemp(ws));
    assert_int_equal(nested_child(ws, true), 1);
    assert_int_equal(nested_child(ws, false), 1);
    snprintf(f, sizeof f, "%s/nested", ws);
    unlink(f);
    assert_int_equal(rmdir(ws), 0);
}

static void test_no_landlock_env(void **state)
{
    (void)state;
    const char *why = NULL;
    setenv("SHCARD_NO_LANDLOCK", "1", 1);
    assert_int_equal(shc_sandbox_abi(&why), 0);
    assert_string_equal(why, "SHCARD_NO_LANDLOCK=1");
    unsetenv("SHCARD_NO_LANDLOCK");
    assert_true(shc_sandbox_abi(&why) > 0);
    assert_null(why);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pack_roundtrip),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_apply),
        cmocka_unit_test(test_nested_listener),
        cmocka_unit_test(test_no_landlock_env),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
