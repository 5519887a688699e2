/* Model backend settings.  Each key has one table row so flags, file keys and help agree. */
#include "model/config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/config_file.h"
#include "shcard.h"

enum key {
    K_MODEL,
    K_BASE_URL,
    K_API_KEY_ENV,
    K_MAX_TURN_REQUESTS,
    K_TIMEOUT,
    K_REQUEST_TIMEOUT,
    K_MODEL_DEADLINE,
    K_SYSTEM_PROMPT_FILE,
    K_TOOL_OUTPUT_LIMIT,
    K_CONTEXT_WINDOW,
    K_IMAGES,
    K_STORE_DIR,
    K_STORE_MAX_MB,
    K_CONFIG,
    K_SHELL,
    K_API_KEY,
    K_COUNT
};

static const struct {
    const char *flag, *file_key;
} keys[K_COUNT] = {
    [K_MODEL] = {"--model", "model"},
    [K_BASE_URL] = {"--base-url", "base_url"},
    [K_API_KEY_ENV] = {"--api-key-env", "api_key_env"},
    [K_MAX_TURN_REQUESTS] = {"--max-turn-requests", "max_turn_requests"},
    [K_TIMEOUT] = {"--timeout", "timeout"},
    [K_REQUEST_TIMEOUT] = {"--request-timeout", "request_timeout"},
    [K_MODEL_DEADLINE] = {"--model-deadline", "model_deadline"},
    [K_SYSTEM_PROMPT_FILE] = {"--system-prompt-file", "system_prompt_file"},
    [K_TOOL_OUTPUT_LIMIT] = {"--tool-output-limit", "tool_output_limit"},
    [K_CONTEXT_WINDOW] = {"--context-window", "context_window"},
    [K_IMAGES] = {"--images", "images"},
    [K_STORE_DIR] = {"--store", "store_dir"},
    [K_STORE_MAX_MB] = {"--store-max-mb", "store_max_mb"},
    [K_CONFIG] = {"--config", NULL},
    [K_SHELL] = {"--shell", "shell"},
    [K_API_KEY] = {NULL, "api_key"}, /* never a flag: argv is visible to every user */
};

void shc_model_config_init(shc_model_config *c)
{
    memset(c, 0, sizeof *c);
    c->max_turn_requests = SHC_MODEL_DEFAULT_MAX_TURN_REQUESTS;
    c->request_timeout_s = SHC_MODEL_DEFAULT_REQUEST_TIMEOUT;
    c->model_deadline_s = SHC_MODEL_DEFAULT_MODEL_DEADLINE;
    c->tool_output_limit = SHC_MODEL_DEFAULT_TOOL_OUTPUT_LIMIT;
}

void shc__redact(const char *key, char *s)
{
    if (!key || !*key || !s)
        return;
    size_t kl = strlen(key);
    char *p;
    while ((p = strstr(s, key)))
        memset(p, '*', kl);
}

void shc__wipe_free(char *s)
{
    if (!s)
        return;
    volatile char *p = s;
    while (*p)
        *p++ = '\0';
    free(s);
}

void shc_model_config_free(shc_model_config *c)
{
    if (!c)
        return;
    free(c->model);
    free(c->base_url);
    free(c->file_base_url);
    free(c->api_key_env);
    shc__wipe_free(c->api_key);
    shc__wipe_free(c->file_key);
    free(c->system_prompt_file);
    free(c->system_prompt);
    free(c->config_path);
    free(c->config_used);
    free(c->store_dir);
    memset(c, 0, sizeof *c);
}

static int set_str(char **dst, const char *v)
{
    char *s = strdup(v);
    if (!s)
        return SHC_E_NOMEM;
    free(*dst);
    *dst = s;
    return 0;
}

static int parse_long(const char *v, long lo, long hi, long *out)
{
    errno = 0;
    char *end;
    long n = strtol(v, &end, 10);
    if (errno || end == v || *end || n < lo || n > hi)
        return -1;
    *out = n;
    return 0;
}

/* Sets key k to v; `where` names the flag or file line for messages. */
static int
set_key(shc_model_config *c, enum key k, const char *v, const char *where, char *err, size_t errlen)
{
    long n;
    switch (k) {
    case K_SHELL:
        if (!strcmp(v, "yes") || !strcmp(v, "true"))
            c->force_shell = true;
        else if (!strcmp(v, "no") || !strcmp(v, "false"))
            c->force_shell = false;
        else {
            snprintf(err, errlen, "%s: expected yes or no, got '%s'", where, v);
            return SHC_E_USAGE;
        }
        return 0;
    case K_API_KEY:
        if (!*v) {
            snprintf(err, errlen, "%s: empty value", where);
            return SHC_E_USAGE;
        }
        shc__wipe_free(c->file_key);
        c->file_key = strdup(v);
        return c->file_key ? 0 : SHC_E_NOMEM;
    case K_IMAGES:
        if (!strcmp(v, "yes") || !strcmp(v, "true"))
            c->images = true;
        else if (!strcmp(v, "no") || !strcmp(v, "false"))
            c->images = false;
        else {
            snprintf(err, errlen, "%s: expected yes or no, got '%s'", where, v);
            return SHC_E_USAGE;
        }
        return 0;
    case K_CONTEXT_WINDOW:
        if (parse_long(v, SHC_MODEL_MIN_CONTEXT_WINDOW, SHC_MODEL_MAX_CONTEXT_WINDOW, &n)) {
            snprintf(err, errlen, "%s: expected tokens from %d to %ld, got '%s'", where,
                     SHC_MODEL_MIN_CONTEXT_WINDOW, SHC_MODEL_MAX_CONTEXT_WINDOW, v);
            return SHC_E_USAGE;
        }
        c->context_window = n;
        return 0;
    case K_STORE_MAX_MB:
        if (parse_long(v, 1, 1024L * 1024, &n)) {
            snprintf(err, errlen, "%s: expected MiB from 1 to 1048576, got '%s'", where, v);
            return SHC_E_USAGE;
        }
        c->store_max_mb = n;
        return 0;
    case K_STORE_DIR:
        if (v[0] != '/') {
            snprintf(err, errlen, "%s: the store must be an absolute path", where);
            return SHC_E_USAGE;
        }
        return set_str(&c->store_dir, v);
    case K_MODEL:
    case K_API_KEY_ENV:
    case K_SYSTEM_PROMPT_FILE:
    case K_CONFIG:
    case K_BASE_URL:
        if (!*v) {
            snprintf(err, errlen, "%s: empty value", where);
            return SHC_E_USAGE;
        }
        if (k == K_BASE_URL && strncmp(v, "http://", 7) && strncmp(v, "https://", 8)) {
            snprintf(err, errlen, "%s: the base URL must start with http:// or https://", where);
            return SHC_E_USAGE;
        }
        if (k == K_BASE_URL)
            c->base_url_set = true;
        return set_str(k == K_MODEL         ? &c->model
                       : k == K_BASE_URL    ? &c->base_url
                       : k == K_API_KEY_ENV ? &c->api_key_env
                       : k == K_CONFIG      ? &c->config_path
                                            : &c->system_prompt_file,
                       v);
    case K_MAX_TURN_REQUESTS:
        if (parse_long(v, 1, 100000, &n)) {
            snprintf(err, errlen, "%s: expected a number from 1 to 100000, got '%s'", where, v);
            return SHC_E_USAGE;
        }
        c->max_turn_requests = n;
        return 0;
    case K_TOOL_OUTPUT_LIMIT:
        if (parse_long(v, 1024, 64L * 1024 * 1024, &n)) {
            snprintf(err, errlen, "%s: expected bytes from 1024 to 67108864, got '%s'", where, v);
            return SHC_E_USAGE;
        }
        c->tool_output_limit = n;
        return 0;
    case K_TIMEOUT: /* the per-command timeout: the range of `shcard acp --timeout` */
        if (parse_long(v, 0, SHC_MODEL_MAX_COMMAND_TIMEOUT, &n)) {
            snprintf(err, errlen, "%s: expected seconds from 0 (none) to %ld, got '%s'", where,
                     (long)SHC_MODEL_MAX_COMMAND_TIMEOUT, v);
            return SHC_E_USAGE;
        }
        c->timeout_s = n;
        c->timeout_set = true;
        return 0;
    case K_REQUEST_TIMEOUT:
    case K_MODEL_DEADLINE:
        if (parse_long(v, 1, 86400, &n)) {
            snprintf(err, errlen, "%s: expected seconds from 1 to 86400, got '%s'", where, v);
            return SHC_E_USAGE;
        }
        if (k == K_MODEL_DEADLINE)
            c->model_deadline_s = n;
        else
            c->request_timeout_s = n;
        return 0;
    case K_COUNT: break;
    }
    return SHC_E_USAGE;
}

int shc_model_config_set(shc_model_config *c, const char *flag, const char *v, char *err,
                         size_t errlen)
{
    if (!strcmp(flag, "--shell") || !strcmp(flag, "--no-store")) {
        *(flag[2] == 's' ? &c->force_shell : &c->no_store) = true;
        return 0;
    }
    for (int k = 0; k < K_COUNT; k++) {
        if (strcmp(flag, keys[k].flag))
            continue;
        int rc = set_key(c, (enum key)k, v ? v : "", keys[k].flag, err, errlen);
        if (!rc)
            c->set_by_flag |= 1u << k;
        return rc;
    }
    snprintf(err, errlen, "unknown option '%s'", flag);
    return SHC_E_USAGE;
}

int shc_model_config_flag(
    shc_model_config *c, int argc, char **argv, int *i, char *err, size_t errlen)
{
    const char *a = argv[*i];
    if (!strcmp(a, "--shell")) {
        c->force_shell = true;
        c->set_by_flag |= 1u << K_SHELL;
        *i += 1;
        return 1;
    }
    if (!strcmp(a, "--no-store")) {
        c->no_store = true;
        *i += 1;
        return 1;
    }
    for (int k = 0; k < K_COUNT; k++) {
        if (!keys[k].flag)
            continue;
        size_t fl = strlen(keys[k].flag);
        const char *v;
        int used;
        if (!strcmp(a, keys[k].flag)) {
            if (*i + 1 >= argc) {
                snprintf(err, errlen, "%s needs a value", keys[k].flag);
                return SHC_E_USAGE;
            }
            v = argv[*i + 1];
            used = 2;
        } else if (!strncmp(a, keys[k].flag, fl) && a[fl] == '=') {
            v = a + fl + 1;
            used = 1;
        } else {
            continue;
        }
        int rc = set_key(c, (enum key)k, v, keys[k].flag, err, errlen);
        if (rc)
            return rc;
        c->set_by_flag |= 1u << k;
        *i += used;
        return 1;
    }
    return 0;
}

/* The name of an unknown key, for an error: only when it looks like a key (letters, digits,
 * '_', at most 40 bytes), never anything that could be a value or a secret. */
static bool key_like(const char *k, size_t n)
{
    if (n == 0 || n > 40)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= 'A' && k[i] <= 'Z') ||
              (k[i] >= '0' && k[i] <= '9') || k[i] == '_'))
            return false;
    return true;
}

/* One `key = value` line (already split by shc__config_line).  rc 0 or an error in err. */
static int file_line(shc_model_config *c, const char *path, unsigned mode, int lineno, char *key,
                     char *val, char *err, size_t errlen)
{
    char where[300];
    snprintf(where, sizeof where, "%s:%d", path, lineno);
    /* A key must be the user's and readable by no one else (as ssh asks of its keys). */
    if (!strcmp(key, "api_key") && (mode & 077)) {
        snprintf(err, errlen,
                 "%s holds api_key but others can read it (mode %03o): run chmod 600 on it, or "
                 "shcard login again",
                 path, mode & 0777);
        return SHC_E_USAGE;
    }
    int k = 0;
    while (k < K_COUNT && !(keys[k].file_key && !strcmp(keys[k].file_key, key)))
        k++;
    if (k == K_COUNT) {
        if (key_like(key, strlen(key)))
            snprintf(err, errlen, "%s: unknown key '%s'", where, key);
        else
            snprintf(err, errlen, "%s: unknown key (not shown: it is not a key name)", where);
        return SHC_E_USAGE;
    }
    int rc = 0;
    if (k == K_BASE_URL && (rc = set_str(&c->file_base_url, val)))
        return rc; /* remembered even when a flag wins: the file's key belongs to it */
    if (c->set_by_flag & (1u << k))
        return 0; /* flags win */
    return set_key(c, (enum key)k, val, where, err, errlen);
}

static int read_config(shc_model_config *c, const char *path, bool must_exist, char *err,
                       size_t errlen)
{
    shc_strbuf text = {0};
    bool exists;
    unsigned mode;
    int rc = shc__config_slurp(path, true, &text, &exists, &mode, err, errlen);
    if (!rc && !exists && !must_exist)
        return 0;
    if (!rc && !exists) {
        snprintf(err, errlen, "cannot read config file %s: %s", path, strerror(ENOENT));
        rc = SHC_E_IO;
    }
    int lineno = 0;
    for (size_t pos = 0; !rc && pos < text.n;) {
        char *line = text.p + pos;
        char *nl = memchr(line, '\n', text.n - pos);
        size_t len = nl ? (size_t)(nl - line) : text.n - pos;
        pos += len + (nl ? 1 : 0);
        lineno++;
        size_t ks, ke, vs, ve;
        shc_line_kind kind = shc__config_line(line, len, &ks, &ke, &vs, &ve);
        if (kind == SHC_LINE_BLANK)
            continue;
        if (kind == SHC_LINE_BAD) {
            snprintf(err, errlen, "%s:%d: expected 'key = value'", path, lineno);
            rc = SHC_E_USAGE;
            break;
        }
        line[ke] = '\0';
        line[ve] = '\0';
        rc = file_line(c, path, mode, lineno, line + ks, line + vs, err, errlen);
    }
    if (text.p)
        memset(text.p, 0, text.n); /* it may hold the key */
    shc_strbuf_free(&text);
    if (!rc)
        rc = set_str(&c->config_used, path);
    return rc;
}

int shc_model_config_file(shc_model_config *c, const char *path, char *err, size_t errlen)
{
    return read_config(c, path, true, err, errlen);
}

static int read_prompt_file(shc_model_config *c, char *err, size_t errlen)
{
    shc_strbuf text = {0};
    int rc = shc__read_regular(c->system_prompt_file, SHC_MODEL_MAX_PROMPT_FILE, &text,
                               "system prompt file", err, errlen);
    if (rc) {
        shc_strbuf_free(&text);
        return rc;
    }
    char *p = shc_strbuf_take(&text);
    if (!p)
        return SHC_E_NOMEM;
    free(c->system_prompt);
    c->system_prompt = p;
    return 0;
}

int shc_model_config_path(
    const shc_model_config *c, shc_getenv_fn env, char *out, size_t len, bool *explicit_out)
{
    const char *p = c->config_path, *xdg = env("XDG_CONFIG_HOME"), *home = env("HOME");
    const char *sc = env("SHCARD_CONFIG");
    int n;
    *explicit_out = p || (sc && *sc);
    if (!p && sc && *sc)
        p = sc;
    if (p)
        n = snprintf(out, len, "%s", p);
    else if (xdg && *xdg)
        n = snprintf(out, len, "%s/shcard/config", xdg);
    else if (home && *home)
        n = snprintf(out, len, "%s/.config/shcard/config", home);
    else
        return SHC_E_IO;
    return n < 0 || (size_t)n >= len ? SHC_E_LIMIT : 0;
}

/* Two base URLs name the same server and path, up to trailing slashes. */
static bool same_url(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    while (na && a[na - 1] == '/')
        na--;
    while (nb && b[nb - 1] == '/')
        nb--;
    return na == nb && !memcmp(a, b, na);
}

int shc_model_config_resolve(shc_model_config *c, shc_getenv_fn env, char *err, size_t errlen)
{
    int rc;
    char path[4096];
    bool must_exist = false;
    const char *p = shc_model_config_path(c, env, path, sizeof path, &must_exist) ? NULL : path;
    if (p) {
        if ((rc = read_config(c, p, must_exist, err, errlen)))
            return rc;
    }
    if (!c->model && (rc = set_str(&c->model, SHC_MODEL_DEFAULT_MODEL)))
        return rc;
    if (!c->base_url && (rc = set_str(&c->base_url, SHC_MODEL_DEFAULT_BASE_URL)))
        return rc;
    const char *names[] = {"DEEPSEEK_API_KEY", "OPENAI_API_KEY"};
    const char *key = NULL;
    bool url_flag = c->set_by_flag & (1u << K_BASE_URL);
    const char *key_url = c->file_base_url ? c->file_base_url : SHC_MODEL_DEFAULT_BASE_URL;
    c->key_held_back = NULL;
    if (c->api_key_env) { /* named by the user: paired with the configured URL */
        key = env(c->api_key_env);
        c->key_source = c->api_key_env;
    } else if (c->file_key && (!url_flag || same_url(key_url, c->base_url))) {
        key = c->file_key; /* saved with its server (shcard login): before the variables */
        c->key_source = "the config file";
    } else if (c->file_key) {
        c->key_held_back = "the config file's api_key belongs to its base_url, not to the "
                           "--base-url given: no key is sent (use --api-key-env VAR to pair one)";
    } else if (!url_flag && c->file_base_url) {
        for (size_t i = 0; i < 2 && !c->key_held_back; i++) {
            const char *v = env(names[i]);
            if (v && *v)
                c->key_held_back = i == 0 ? "DEEPSEEK_API_KEY is not sent to the config file's "
                                            "base_url: save a key with shcard login, or set "
                                            "api_key_env = DEEPSEEK_API_KEY in the file"
                                          : "OPENAI_API_KEY is not sent to the config file's "
                                            "base_url: save a key with shcard login, or set "
                                            "api_key_env = OPENAI_API_KEY in the file";
        }
    } else {
        for (size_t i = 0; i < 2 && !(key && *key); i++) {
            key = env(names[i]);
            c->key_source = names[i];
        }
    }
    for (const char *q = key && *key ? key : ""; *q; q++)
        if ((unsigned char)*q < 0x20 || *q == 0x7f) { /* a CR/LF would add HTTP headers */
            snprintf(err, errlen, "the API key from %s holds a control character: refused",
                     c->key_source);
            return SHC_E_USAGE;
        }
    if (key && *key) {
        if ((rc = set_str(&c->api_key, key)))
            return rc;
    } else {
        c->key_source = NULL;
    }
    if (c->system_prompt_file && (rc = read_prompt_file(c, err, errlen)))
        return rc;
    return 0;
}

bool shc_model_config_enabled(const shc_model_config *c)
{
    return !c->force_shell && (c->api_key || c->base_url_set);
}
