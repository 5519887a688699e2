/* The config file writer (what `shcard login` saves): keys set and removed with every other line
 * kept, mode 0600, the file replaced by rename (never written in place), bad values refused with
 * the file untouched; and what config.c then reads back (the key only from a private file). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/config.h"
#include "model/config_write.h"
#include "shcard.h"

static const char *env_get(const char *name)
{
    return getenv(name);
}

typedef struct fixture {
    char dir[64];
    char path[128];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/shc-cfgw-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->path, sizeof f->path, "%s/a/b/shcard/config", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    int rc = system(cmd);
    free(f);
    return rc == 0 ? 0 : -1;
}

static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

static void put(const char *path, const char *text, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    assert_int_equal(fchmod(fd, mode), 0);
    close(fd);
}

/* Entries in dir other than . and .. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static void test_creates_private_file_and_dirs(void **state)
{
    fixture *f = *state;
    char err[256] = "";
    shc_config_set set[] = {{"base_url", "https://api.deepseek.com"}, {"api_key", "sk-new"}};
    assert_int_equal(shc_config_write(f->path, set, 2, err, sizeof err), 0);
    assert_string_equal(slurp(f->path), "base_url = https://api.deepseek.com\napi_key = sk-new\n");
    struct stat st;
    assert_int_equal(stat(f->path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    char dir[160];
    snprintf(dir, sizeof dir, "%s/a/b/shcard", f->dir);
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(entries(dir), 2); /* config and config.lock: no temporary file left */
    char lock[200];
    snprintf(lock, sizeof lock, "%s.lock", f->path);
    assert_int_equal(stat(lock, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
}

static void test_keeps_other_lines(void **state)
{
    fixture *f = *state;
    char err[256] = "";
    shc_config_set mk[] = {{"model", "m0"}};
    assert_int_equal(shc_config_write(f->path, mk, 1, err, sizeof err), 0); /* makes the dirs */
    put(f->path,
        "# my settings\n\nmodel = deepseek-reasoner  # the thinking one\n"
        "api_key = sk-old\ntimeout = 60\n  api_key=sk-older\nshell = yes\nstore_max_mb = 9",
        0644);
    shc_config_set set[] = {{"api_key", "sk-new"}, {"shell", NULL}, {"base_url", "http://h:1/v1"}};
    assert_int_equal(shc_config_write(f->path, set, 3, err, sizeof err), 0);
    assert_string_equal(slurp(f->path),
                        "# my settings\n\nmodel = deepseek-reasoner  # the thinking one\n"
                        "api_key = sk-new\ntimeout = 60\nstore_max_mb = 9\n"
                        "base_url = http://h:1/v1\n");
    struct stat st;
    assert_int_equal(stat(f->path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600); /* the old 0644 is not kept: it holds a key */

    /* config.c reads back what was written, the key included */
    shc_model_config c;
    shc_model_config_init(&c);
    char flag[] = "--config";
    char *argv[] = {flag, f->path};
    int i = 0;
    assert_int_equal(shc_model_config_flag(&c, 2, argv, &i, err, sizeof err), 1);
    assert_int_equal(shc_model_config_resolve(&c, env_get, err, sizeof err), 0);
    assert_string_equal(c.api_key, "sk-new");
    assert_string_equal(c.model, "deepseek-reasoner");
    assert_string_equal(c.base_url, "http://h:1/v1");
    assert_int_equal(c.timeout_s, 60);
    assert_false(c.force_shell);
    shc_model_config_free(&c);
}

static void test_replaced_not_rewritten(void **state)
{
    fixture *f = *state;
    char err[256] = "";
    shc_config_set a[] = {{"model", "first"}};
    assert_int_equal(shc_config_write(f->path, a, 1, err, sizeof err), 0);
    int old = open(f->path, O_RDONLY);
    assert_true(old >= 0);
    struct stat st1, st2;
    assert_int_equal(fstat(old, &st1), 0);
    shc_config_set b[] = {{"model", "second"}};
    assert_int_equal(shc_config_write(f->path, b, 1, err, sizeof err), 0);
    assert_int_equal(stat(f->path, &st2), 0);
    assert_true(st1.st_ino != st2.st_ino); /* a new file took the name */
    char buf[64] = "";
    assert_true(read(old, buf, sizeof buf - 1) > 0); /* a reader of the old one sees it whole */
    assert_string_equal(buf, "model = first\n");
    close(old);
    assert_string_equal(slurp(f->path), "model = second\n");
}

static void test_bad_values_change_nothing(void **state)
{
    fixture *f = *state;
    char err[256] = "";
    shc_config_set a[] = {{"model", "kept"}};
    assert_int_equal(shc_config_write(f->path, a, 1, err, sizeof err), 0);
    static const char *const bad[] = {"sk-a#b", "sk\nmodel = x", " sk-lead", "sk-trail ", "",
                                      "sk\x7f"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        shc_config_set set[] = {{"model", "changed"}, {"api_key", bad[k]}};
        err[0] = '\0';
        assert_int_equal(shc_config_write(f->path, set, 2, err, sizeof err), SHC_E_USAGE);
        assert_non_null(strstr(err, "api_key:"));
        if (bad[k][0])
            assert_null(strstr(err, bad[k])); /* the message never holds the value */
        assert_string_equal(slurp(f->path), "model = kept\n");
    }
    /* a directory nobody may write to: an error, the file as it was, no temporary file */
    char dir[160];
    snprintf(dir, sizeof dir, "%s/a/b/shcard", f->dir);
    assert_int_equal(chmod(dir, 0500), 0);
    shc_config_set set[] = {{"model", "changed"}};
    int rc = shc_config_write(f->path, set, 1, err, sizeof err);
    assert_int_equal(chmod(dir, 0700), 0);
    if (geteuid() != 0) { /* root writes anyway */
        assert_int_equal(rc, SHC_E_IO);
        assert_non_null(strstr(err, "cannot create a file beside"));
        assert_string_equal(slurp(f->path), "model = kept\n");
        assert_int_equal(entries(dir), 1);
    }
}

static void test_key_only_from_private_file(void **state)
{
    fixture *f = *state;
    char err[256] = "";
    shc_config_set a[] = {{"api_key", "sk-secret"}};
    assert_int_equal(shc_config_write(f->path, a, 1, err, sizeof err), 0);
    assert_int_equal(chmod(f->path, 0640), 0);
    shc_model_config c;
    shc_model_config_init(&c);
    char flag[] = "--config";
    char *argv[] = {flag, f->path};
    int i = 0;
    assert_int_equal(shc_model_config_flag(&c, 2, argv, &i, err, sizeof err), 1);
    assert_int_equal(shc_model_config_resolve(&c, env_get, err, sizeof err), SHC_E_USAGE);
    assert_non_null(strstr(err, "others can read it (mode 640)"));
    assert_null(strstr(err, "sk-secret"));
    shc_model_config_free(&c);
}

/* Which key wins: api_key_env (flag or file), then the file's api_key, then the variables. */
static const char *const *fake;
static const char *fake_get(const char *name)
{
    for (size_t i = 0; fake && fake[i]; i += 2)
        if (!strcmp(fake[i], name))
            return fake[i + 1];
    return NULL;
}

static int resolve_with(char *path, const char *const *env, shc_model_config *c, char *err)
{
    fake = env;
    shc_model_config_init(c);
    char flag[] = "--config", *argv[] = {flag, path};
    int i = 0;
    assert_int_equal(shc_model_config_flag(c, 2, argv, &i, err, 256), 1);
    return shc_model_config_resolve(c, fake_get, err, 256);
}

static void test_key_precedence_and_shell(void **state)
{
    fixture *f = *state;
    char err[256] = "";
    shc_config_set a[] = {{"api_key", "sk-file"}, {"base_url", "http://h:1/v1"}};
    assert_int_equal(shc_config_write(f->path, a, 2, err, sizeof err), 0);
    static const char *const env[] = {"DEEPSEEK_API_KEY", "sk-env", "MINE", "sk-mine", NULL};
    shc_model_config c;
    assert_int_equal(resolve_with(f->path, env, &c, err), 0);
    assert_string_equal(c.api_key, "sk-file"); /* the key saved with its server */
    assert_string_equal(c.key_source, "the config file");
    assert_true(shc_model_config_enabled(&c));
    shc_model_config_free(&c);

    shc_config_set b[] = {{"api_key_env", "MINE"}};
    assert_int_equal(shc_config_write(f->path, b, 1, err, sizeof err), 0);
    assert_int_equal(resolve_with(f->path, env, &c, err), 0);
    assert_string_equal(c.api_key, "sk-mine"); /* named explicitly: wins */
    shc_model_config_free(&c);

    shc_config_set d[] = {{"api_key_env", NULL}, {"api_key", NULL}, {"base_url", NULL}};
    assert_int_equal(shc_config_write(f->path, d, 3, err, sizeof err), 0);
    assert_int_equal(resolve_with(f->path, env, &c, err), 0);
    assert_string_equal(c.api_key, "sk-env"); /* nothing saved: the variable, as before */
    shc_model_config_free(&c);

    shc_config_set e[] = {{"shell", "yes"}};
    assert_int_equal(shc_config_write(f->path, e, 1, err, sizeof err), 0);
    assert_int_equal(resolve_with(f->path, env, &c, err), 0);
    assert_true(c.force_shell); /* shell mode chosen: even with a key */
    assert_false(shc_model_config_enabled(&c));
    shc_model_config_free(&c);

    shc_config_set g[] = {{"shell", "maybe"}};
    assert_int_equal(shc_config_write(f->path, g, 1, err, sizeof err), 0);
    assert_int_equal(resolve_with(f->path, env, &c, err), SHC_E_USAGE);
    assert_non_null(strstr(err, "expected yes or no"));
    shc_model_config_free(&c);

    /* the path: --config, else SHCARD_CONFIG, else XDG_CONFIG_HOME, else HOME */
    char path[256];
    bool named;
    shc_model_config_init(&c);
    static const char *const e1[] = {"XDG_CONFIG_HOME", "/x", "HOME", "/h", NULL};
    fake = e1;
    assert_int_equal(shc_model_config_path(&c, fake_get, path, sizeof path, &named), 0);
    assert_string_equal(path, "/x/shcard/config");
    assert_false(named);
    static const char *const e2[] = {"HOME", "/h", "SHCARD_CONFIG", "", NULL};
    fake = e2;
    assert_int_equal(shc_model_config_path(&c, fake_get, path, sizeof path, &named), 0);
    assert_string_equal(path, "/h/.config/shcard/config");
    static const char *const e3[] = {"SHCARD_CONFIG", "/s/c", "HOME", "/h", NULL};
    fake = e3;
    assert_int_equal(shc_model_config_path(&c, fake_get, path, sizeof path, &named), 0);
    assert_string_equal(path, "/s/c");
    assert_true(named);
    static const char *const e4[] = {NULL};
    fake = e4;
    assert_int_equal(shc_model_config_path(&c, fake_get, path, sizeof path, &named), SHC_E_IO);
    shc_model_config_free(&c);
}

/* The writer and the reader see the same lines: a key written with a CR after it, or hidden
 * after a comment longer than any line buffer, is one line for both. */
static void test_reader_and_writer_agree(void **state)
{
    fixture *f = *state;
    char err[256] = "";
    shc_config_set mk[] = {{"model", "m"}};
    assert_int_equal(shc_config_write(f->path, mk, 1, err, sizeof err), 0);
    put(f->path, "api_key_env\r= SECRET_VAR\r\nmodel = m\r\n", 0600);
    shc_config_set set[] = {{"api_key_env", NULL}, {"api_key", "sk-typed"}};
    assert_int_equal(shc_config_write(f->path, set, 2, err, sizeof err), 0);
    assert_null(strstr(slurp(f->path), "SECRET_VAR"));
    static const char *const env[] = {"SECRET_VAR", "sk-other", NULL};
    shc_model_config c;
    assert_int_equal(resolve_with(f->path, env, &c, err), 0);
    assert_string_equal(c.api_key, "sk-typed");
    shc_model_config_free(&c);

    /* a 2000-byte comment: the reader does not see its tail as a line of its own */
    static char text[4096];
    memset(text, 'x', 2000);
    text[0] = '#';
    snprintf(text + 2000, sizeof text - 2000, "api_key_env = SECRET_VAR\nmodel = m\n");
    put(f->path, text, 0600);
    assert_int_equal(resolve_with(f->path, env, &c, err), 0);
    assert_null(c.api_key_env);
    shc_model_config_free(&c);
}

/* The reader refuses what it must not trust or cannot read without blocking, and never
 * echoes a line that may hold a key. */
static void test_reader_refuses(void **state)
{
    fixture *f = *state;
    char err[256] = "";
    shc_config_set mk[] = {{"model", "m"}};
    assert_int_equal(shc_config_write(f->path, mk, 1, err, sizeof err), 0);
    shc_model_config c;
    assert_int_equal(chmod(f->path, 0666), 0); /* no key in it, still refused */
    assert_int_equal(resolve_with(f->path, NULL, &c, err), SHC_E_USAGE);
    assert_non_null(strstr(err, "can be changed by others"));
    shc_model_config_free(&c);
    assert_int_equal(chmod(f->path, 0600), 0);

    put(f->path, "api_key: c2stU0VDUkVULVRPS0VO=\n", 0600);
    assert_int_equal(resolve_with(f->path, NULL, &c, err), SHC_E_USAGE);
    assert_non_null(strstr(err, ":1: unknown key"));
    assert_null(strstr(err, "c2stU0VD"));
    shc_model_config_free(&c);

    unlink(f->path);
    assert_int_equal(mkfifo(f->path, 0600), 0); /* would block a plain open */
    assert_int_equal(resolve_with(f->path, NULL, &c, err), SHC_E_USAGE);
    assert_non_null(strstr(err, "not a regular file"));
    shc_model_config_free(&c);
    shc_config_set set[] = {{"api_key", "sk-x"}};
    assert_int_equal(shc_config_write(f->path, set, 1, err, sizeof err), SHC_E_USAGE);
    assert_non_null(strstr(err, "not a regular file"));
    struct stat st;
    assert_int_equal(lstat(f->path, &st), 0);
    assert_true(S_ISFIFO(st.st_mode)); /* not replaced */
    unlink(f->path);

    /* a symlink is read through, never replaced by the writer */
    char target[160];
    snprintf(target, sizeof target, "%s/target", f->dir);
    put(target, "model = linked\n", 0600);
    assert_int_equal(symlink(target, f->path), 0);
    assert_int_equal(resolve_with(f->path, NULL, &c, err), 0);
    assert_string_equal(c.model, "linked");
    shc_model_config_free(&c);
    assert_int_equal(shc_config_write(f->path, set, 1, err, sizeof err), SHC_E_USAGE);
    assert_non_null(strstr(err, "symbolic link"));
    assert_int_equal(lstat(f->path, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_null(strstr(slurp(target), "sk-x"));
}

/* Two writers at once keep both keys; a file size limit fails the write and leaves no
 * temporary file (nor kills the writer). */
static void test_concurrent_and_size_limit(void **state)
{
    fixture *f = *state;
    char err[256] = "";
    for (int round = 0; round < 15; round++) {
        shc_config_set base[] = {{"model", "m"}, {"api_key", NULL}, {"system_prompt_file", NULL}};
        assert_int_equal(shc_config_write(f->path, base, 3, err, sizeof err), 0);
        pid_t kids[2];
        for (int k = 0; k < 2; k++) {
            kids[k] = fork();
            assert_true(kids[k] >= 0);
            if (kids[k] == 0) {
                shc_config_set one[] = {{k ? "api_key" : "system_prompt_file",
                                         k ? "sk-A" : "/x"}};
                _exit(shc_config_write(f->path, one, 1, err, sizeof err) == 0 ? 0 : 1);
            }
        }
        for (int k = 0; k < 2; k++) {
            int st;
            assert_int_equal(waitpid(kids[k], &st, 0), kids[k]);
            assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        }
        const char *text = slurp(f->path);
        assert_non_null(strstr(text, "api_key = sk-A"));
        assert_non_null(strstr(text, "system_prompt_file = /x"));
    }
    char dir[160];
    snprintf(dir, sizeof dir, "%s/a/b/shcard", f->dir);
    int before = entries(dir);
    pid_t kid = fork();
    assert_true(kid >= 0);
    if (kid == 0) {
        struct rlimit rl = {1, 1};
        setrlimit(RLIMIT_FSIZE, &rl);
        shc_config_set big[] = {{"model", "a-model-name-longer-than-one-byte"}};
        int rc = shc_config_write(f->path, big, 1, err, sizeof err);
        _exit(rc == SHC_E_IO && strstr(err, "too large") ? 0 : 1);
    }
    int st;
    assert_int_equal(waitpid(kid, &st, 0), kid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    assert_int_equal(entries(dir), before); /* no temporary file left */
    assert_non_null(strstr(slurp(f->path), "model = m"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_creates_private_file_and_dirs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_keeps_other_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replaced_not_rewritten, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_values_change_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_key_only_from_private_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_key_precedence_and_shell, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reader_and_writer_agree, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reader_refuses, setup, teardown),
        cmocka_unit_test_setup_teardown(test_concurrent_and_size_limit, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
