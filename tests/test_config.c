/* Model backend settings: flags, config file, environment, precedence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/config.h"
#include "shcard.h"

/* A fake environment: NAME=value pairs. */
static const char *const *fake_env;

static const char *env_get(const char *name)
{
    for (size_t i = 0; fake_env && fake_env[i]; i += 2)
        if (!strcmp(fake_env[i], name))
            return fake_env[i + 1];
    return NULL;
}

/* Owned copies of string literals, since the parser takes main's argv (char **). */
static char **args(const char *const *src, int n)
{
    static char *store[32];
    for (int i = 0; i < 32; i++) {
        free(store[i]);
        store[i] = NULL;
    }
    for (int i = 0; i < n; i++)
        store[i] = src[i] ? strdup(src[i]) : NULL;
    return store;
}

static int parse(shc_model_config *c, int argc, const char *const *src, char *err)
{
    char **argv = args(src, argc);
    int i = 0;
    while (i < argc) {
        int rc = shc_model_config_flag(c, argc, argv, &i, err, 256);
        if (rc < 0)
            return rc;
        if (rc == 0)
            i++; /* not ours: the bridge's */
    }
    return 0;
}

static void test_defaults_and_env_key(void **state)
{
    (void)state;
    static const char *const env[] = {"HOME", "/nonexistent", "OPENAI_API_KEY", "sk-openai", NULL};
    fake_env = env;
    shc_model_config c;
    shc_model_config_init(&c);
    char err[256] = "";
    assert_int_equal(shc_model_config_resolve(&c, env_get, err, sizeof err), 0);
    assert_string_equal(c.model, "deepseek-chat");
    assert_string_equal(c.base_url, "https://api.deepseek.com");
    assert_int_equal(c.max_turn_requests, 50);
    assert_string_equal(c.api_key, "sk-openai");
    assert_string_equal(c.key_source, "OPENAI_API_KEY");
    assert_true(shc_model_config_enabled(&c));
    assert_null(c.config_used);
    shc_model_config_free(&c);

    /* DEEPSEEK_API_KEY first */
    static const char *const env2[] = {"DEEPSEEK_API_KEY", "sk-ds", "OPENAI_API_KEY", "sk-o", NULL};
    fake_env = env2;
    shc_model_config_init(&c);
    assert_int_equal(shc_model_config_resolve(&c, env_get, err, sizeof err), 0);
    assert_string_equal(c.api_key, "sk-ds");
    shc_model_config_free(&c);
}

static void test_no_key_no_base_url_is_shell_mode(void **state)
{
    (void)state;
    static const char *const env[] = {"DEEPSEEK_API_KEY", "", NULL};
    fake_env = env;
    shc_model_config c;
    shc_model_config_init(&c);
    char err[256] = "";
    assert_int_equal(shc_model_config_resolve(&c, env_get, err, sizeof err), 0);
    assert_null(c.api_key);
    assert_false(shc_model_config_enabled(&c));
    shc_model_config_free(&c);

    /* a base URL alone is enough (a local server needs no key) */
    shc_model_config_init(&c);
    const char *argv[] = {"--base-url", "http://127.0.0.1:8080/v1"};
    assert_int_equal(parse(&c, 2, argv, err), 0);
    assert_int_equal(shc_model_config_resolve(&c, env_get, err, sizeof err), 0);
    assert_true(shc_model_config_enabled(&c));
    assert_null(c.api_key);
    shc_model_config_free(&c);

    /* --shell wins over a key */
    static const char *const env2[] = {"DEEPSEEK_API_KEY", "sk-x", NULL};
    fake_env = env2;
    shc_model_config_init(&c);
    const char *argv2[] = {"--shell"};
    assert_int_equal(parse(&c, 1, argv2, err), 0);
    assert_int_equal(shc_model_config_resolve(&c, env_get, err, sizeof err), 0);
    assert_non_null(c.api_key);
    assert_false(shc_model_config_enabled(&c));
    shc_model_config_free(&c);
}

static void test_flags(void **state)
{
    (void)state;
    static const char *const env[] = {"MY_KEY", "sk-mine", "DEEPSEEK_API_KEY", "sk-ds", NULL};
    fake_env = env;
    shc_model_config c;
    shc_model_config_init(&c);
    char err[256] = "";
    const char *argv[] = {"--approve",
                          "all", /* the bridge's: skipped */
                          "--model",
                          "m1",
                          "--base-url=https://example.test/v1",
                          "--api-key-env",
                          "MY_KEY",
                          "--max-turn-requests",
                          "3",
                          "--timeout=30",
                          "--request-timeout",
                          "9"};
    assert_int_equal(parse(&c, 12, argv, err), 0);
    assert_int_equal(shc_model_config_resolve(&c, env_get, err, sizeof err), 0);
    assert_string_equal(c.model, "m1");
    assert_string_equal(c.base_url, "https://example.test/v1");
    assert_string_equal(c.api_key, "sk-mine");
    assert_string_equal(c.key_source, "MY_KEY");
    assert_int_equal(c.max_turn_requests, 3);
    assert_int_equal(c.timeout_s, 30);
    assert_int_equal(c.request_timeout_s, 9);
    shc_model_config_free(&c);
}

static void test_bad_flags(void **state)
{
    (void)state;
    static const struct {
        const char *a, *b;
        const char *msg;
    } cases[] = {
        {"--max-turn-requests", "0", "from 1 to"},
        {"--max-turn-requests", "x", "got 'x'"},
        {"--timeout", "-1", "seconds"},
        {"--base-url", "ftp://x", "http://"},
        {"--model", "", "empty value"},
        {"--model", NULL, "needs a value"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        shc_model_config c;
        shc_model_config_init(&c);
        char err[256] = "";
        const char *src[] = {cases[k].a, cases[k].b};
        int i = 0;
        int rc = shc_model_config_flag(&c, cases[k].b ? 2 : 1, args(src, 2), &i, err, sizeof err);
        if (rc != SHC_E_USAGE || !strstr(err, cases[k].msg))
            fail_msg("case %zu: rc %d err '%s'", k, rc, err);
        shc_model_config_free(&c);
    }
}

static char *write_file(const char *text)
{
    char *path = strdup("/tmp/shc-config-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

/* A key goes only to the server it was given for: the file's api_key to the file's base_url,
 * DEEPSEEK_API_KEY / OPENAI_API_KEY never to a base_url read from the config file. */
static void test_key_bound_to_its_server(void **state)
{
    (void)state;
    shc_model_config c;
    char err[256] = "";
    /* login chose another server and saved no key: the environment's key stays home */
    char *nokey = write_file("base_url = http://127.0.0.1:9/v1\nmodel = m\n");
    static const char *const env[] = {"DEEPSEEK_API_KEY", "sk-ds", "OPENAI_API_KEY", "sk-o", NULL};
    fake_env = env;
    shc_model_config_init(&c);
    const char *a1[] = {"--config", nokey};
    assert_int_equal(parse(&c, 2, a1, err), 0);
    assert_int_equal(shc_model_config_resolve(&c, env_get, err, sizeof err), 0);
    assert_null(c.api_key);
    assert_null(c.key_source);
    assert_non_null(c.key_held_back);
    assert_true(shc_model_config_enabled(&c)); /* the model, without a key */
    shc_model_config_free(&c);

    /* ... unless the file pairs a variable with its URL */
    char *paired = write_file("base_url = http://127.0.0.1:9/v1\napi_key_env = DEEPSEEK_API_KEY\n");
    shc_model_config_init(&c);
    const char *a2[] = {"--config", paired};
    assert_int_equal(parse(&c, 2, a2, err), 0);
    assert_int_equal(shc_model_config_resolve(&c, env_get, err, sizeof err), 0);
    assert_string_equal(c.api_key, "sk-ds");
    shc_model_config_free(&c);

    /* the file's saved key never goes to a --base-url naming another server */
    char *withkey = write_file("base_url = https://api.deepseek.com\napi_key = sk-saved\n");
    chmod(withkey, 0600);
    shc_model_config_init(&c);
    const char *a3[] = {"--config", withkey, "--base-url", "http://other.test/v1"};
    assert_int_equal(parse(&c, 4, a3, err), 0);
    assert_int_equal(shc_model_config_resolve(&c, env_get, err, sizeof err), 0);
    assert_null(c.api_key);
    assert_non_null(c.key_held_back);
    shc_model_config_free(&c);

    /* the same URL given again as a flag (a trailing slash aside) keeps it */
    shc_model_config_init(&c);
    const char *a4[] = {"--config", withkey, "--base-url", "https://api.deepseek.com/"};
    assert_int_equal(parse(&c, 4, a4, err), 0);
    assert_int_equal(shc_model_config_resolve(&c, env_get, err, sizeof err), 0);
    assert_string_equal(c.api_key, "sk-saved");
    assert_null(c.key_held_back);
    shc_model_config_free(&c);
    /* a key with a control character (a CR/LF would add HTTP headers) is refused */
    static const char *const bad[] = {"OPENAI_API_KEY", "k\r\nX-Injected: 1", NULL};
    fake_env = bad;
    shc_model_config_init(&c);
    const char *a5[] = {"--base-url", "http://127.0.0.1:9/v1"};
    assert_int_equal(parse(&c, 2, a5, err), 0);
    assert_int_equal(shc_model_config_resolve(&c, env_get, err, sizeof err), SHC_E_USAGE);
    assert_non_null(strstr(err, "OPENAI_API_KEY holds a control character"));
    assert_null(strstr(err, "Injected"));
    shc_model_config_free(&c);
    unlink(nokey);
    unlink(paired);
    unlink(withkey);
    free(nokey);
    free(paired);
    free(withkey);
}

static void test_file_and_precedence(void **state)
{
    (void)state;
    char *prompt = write_file("Be brief.\n");
    char text[512];
    snprintf(text, sizeof text,
             "# comment\n\n  model = from-file  # trailing comment\nbase_url=http://h:1/v1\n"
             "max_turn_requests = 9\nsystem_prompt_file = %s\napi_key_env = FILE_KEY\n",
             prompt);
    char *cfgpath = write_file(text);
    static const char *const env[] = {"FILE_KEY", "sk-file", NULL};
    fake_env = env;
    shc_model_config c;
    shc_model_config_init(&c);
    char err[256] = "";
    const char *argv[] = {"--config", cfgpath, "--max-turn-requests", "4"};
    assert_int_equal(parse(&c, 4, argv, err), 0);
    assert_int_equal(shc_model_config_resolve(&c, env_get, err, sizeof err), 0);
    assert_string_equal(c.model, "from-file");
    assert_string_equal(c.base_url, "http://h:1/v1");
    assert_int_equal(c.max_turn_requests, 4); /* the flag wins */
    assert_string_equal(c.system_prompt, "Be brief.\n");
    assert_string_equal(c.api_key, "sk-file");
    assert_string_equal(c.config_used, cfgpath);
    assert_true(c.base_url_set);
    shc_model_config_free(&c);

    /* SHCARD_CONFIG names the file when there is no --config */
    const char *e2[] = {"SHCARD_CONFIG", cfgpath, NULL};
    fake_env = e2;
    shc_model_config_init(&c);
    assert_int_equal(shc_model_config_resolve(&c, env_get, err, sizeof err), 0);
    assert_string_equal(c.model, "from-file");
    shc_model_config_free(&c);
    unlink(cfgpath);
    unlink(prompt);
    free(cfgpath);
    free(prompt);
}

static void test_bad_files(void **state)
{
    (void)state;
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {"model deepseek\n", ":1: expected 'key = value'"},
        {"\nfoo = 1\n", ":2: unknown key 'foo'"},
        {"max_turn_requests = lots\n", ":1: expected a number"},
        {"system_prompt_file = /nonexistent/p\n", "cannot read system prompt file"},
    };
    static const char *const env[] = {NULL};
    fake_env = env;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *path = write_file(cases[k].text);
        shc_model_config c;
        shc_model_config_init(&c);
        char err[256] = "";
        const char *argv[] = {"--config", path};
        assert_int_equal(parse(&c, 2, argv, err), 0);
        int rc = shc_model_config_resolve(&c, env_get, err, sizeof err);
        if (rc == 0 || !strstr(err, cases[k].msg))
            fail_msg("case %zu: rc %d err '%s'", k, rc, err);
        assert_null(strstr(err, "sk-123"));
        shc_model_config_free(&c);
        unlink(path);
        free(path);
    }
    /* an explicit file that does not exist is an error; the default one is optional */
    shc_model_config c;
    shc_model_config_init(&c);
    char err[256] = "";
    const char *argv[] = {"--config", "/nonexistent/shcard.conf"};
    assert_int_equal(parse(&c, 2, argv, err), 0);
    assert_int_equal(shc_model_config_resolve(&c, env_get, err, sizeof err), SHC_E_IO);
    assert_non_null(strstr(err, "cannot read config file"));
    shc_model_config_free(&c);
    shc_model_config_free(NULL);
    args(NULL, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults_and_env_key),
        cmocka_unit_test(test_no_key_no_base_url_is_shell_mode),
        cmocka_unit_test(test_flags),
        cmocka_unit_test(test_bad_flags),
        cmocka_unit_test(test_file_and_precedence),
        cmocka_unit_test(test_key_bound_to_its_server),
        cmocka_unit_test(test_bad_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
