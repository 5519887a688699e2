/* Settings of the model backend of `shcard acp`: flags, a small config file, environment.
 *
 * Precedence: flags, then the config file, then built-in defaults.  The config file is
 * $SHCARD_CONFIG, else $XDG_CONFIG_HOME/shcard/config, else ~/.config/shcard/config
 * (`--config PATH` names another); lines are `key = value`, `#` starts a comment; keys are the
 * flag names without dashes and with '_' (model, base_url, api_key_env, max_turn_requests,
 * timeout, request_timeout, model_deadline, system_prompt_file, tool_output_limit, context_window, images; and
 * the session store's store_dir and store_max_mb, which the CLI hands to the bridge; shell).
 * The API key, bound to the server it was given for:
 *   - the variable --api-key-env / api_key_env names: with whatever base_url is configured (the
 *     user paired them by naming it);
 *   - else the file's api_key (what `shcard login` saves with its base_url; read only from a file
 *     of the user's that no one else may read): only with the file's base_url (the default URL
 *     when the file has none); a --base-url flag naming another server gets no key;
 *   - else DEEPSEEK_API_KEY, else OPENAI_API_KEY: only with the default URL or a --base-url
 *     flag (the launcher that set the environment gave both), never with a base_url read from
 *     the config file (login saved that URL without this key).
 * A key held back is reported in key_held_back.  config_write.c changes the file.
 *
 * Ownership: every string in shc_model_config is owned by it (shc_model_config_free). */
#ifndef SHC_CONFIG_H
#define SHC_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#define SHC_MODEL_DEFAULT_BASE_URL          "https://api.deepseek.com"
#define SHC_MODEL_DEFAULT_MODEL             "deepseek-chat"
#define SHC_MODEL_DEFAULT_MAX_TURN_REQUESTS 50
#define SHC_MODEL_DEFAULT_REQUEST_TIMEOUT   120   /* s without progress from the model server */
#define SHC_MODEL_DEFAULT_MODEL_DEADLINE    600   /* s for one whole model request */
#define SHC_MODEL_DEFAULT_TOOL_OUTPUT_LIMIT 65536 /* bytes of command output for the model */
#define SHC_MODEL_MAX_PROMPT_FILE           (256u * 1024u)
#define SHC_MODEL_MIN_CONTEXT_WINDOW        1024
#define SHC_MODEL_MAX_CONTEXT_WINDOW        (64L * 1024 * 1024)
#define SHC_MODEL_MAX_COMMAND_TIMEOUT       (365L * 86400) /* `timeout`: 0 (none) to a year */

typedef struct shc_model_config {
    char *model;
    char *base_url;
    char *api_key_env;        /* the variable named by --api-key-env, or NULL */
    char *api_key;            /* the key (never print it), or NULL */
    char *file_key;           /* the config file's api_key (never print it), or NULL */
    char *file_base_url;      /* the config file's base_url (even when a flag overrides it) */
    const char *key_source;   /* name of the variable the key came from, or NULL */
    const char *key_held_back; /* why a key that exists was not used for base_url, or NULL */
    char *system_prompt_file; /* path, or NULL */
    char *system_prompt;      /* its text, or NULL for the built-in prompt */
    char *config_path;        /* an explicit --config, or NULL */
    char *config_used;        /* the file that was read, or NULL */
    long max_turn_requests;
    long timeout_s;         /* per command, when timeout_set; 0 = none */
    bool timeout_set;       /* `timeout` was given (else the bridge's default) */
    long request_timeout_s; /* model stream idle timeout (no event, comments do not count) */
    long model_deadline_s;  /* one model request, start to end */
    long tool_output_limit; /* bytes of model text per tool result (head + tail) */
    long context_window;    /* tokens; 0 = what the server says, else known models, else 32768 */
    bool images;            /* the model takes images: advertise and pass image blocks */
    char *store_dir;        /* the session store (NULL: $XDG_STATE_HOME/shcard/sessions) */
    long store_max_mb;      /* the store's total cap in MiB (0: the default) */
    bool no_store;          /* --no-store: keep sessions in memory only */
    bool base_url_set;      /* from a flag or the file: the backend is wanted */
    bool force_shell;       /* --shell: shell mode even with a key */
    unsigned set_by_flag;   /* bit per key: flags win over the file */
} shc_model_config;

/* Reads the environment: a function like getenv (tests pass their own). */
typedef const char *(*shc_getenv_fn)(const char *name);

void shc_model_config_init(shc_model_config *c);
void shc_model_config_free(shc_model_config *c);

/* Looks at argv[*i].  Returns 1 when it was a model flag (consumed, *i advanced past its value),
 * 0 when it is not one of ours, or SHC_E_USAGE with a message in err. */
int shc_model_config_flag(
    shc_model_config *c, int argc, char **argv, int *i, char *err, size_t errlen);

/* Sets the setting of one flag ("--model", "--shell", ...; value NULL for a flag without one),
 * checked as the same key in the config file is.  0, or SHC_E_USAGE with a message in err. */
int shc_model_config_set(shc_model_config *c, const char *flag, const char *v, char *err,
                         size_t errlen);

/* Reads one config file (keys not set by flags).  SHC_E_IO when it cannot be read,
 * SHC_E_USAGE on a bad line (err names file and line). */
int shc_model_config_file(shc_model_config *c, const char *path, char *err, size_t errlen);

/* The config file resolve reads: --config, else $SHCARD_CONFIG, else $XDG_CONFIG_HOME/shcard/config,
 * else $HOME/.config/shcard/config; *explicit_out says it was named (it must then exist).
 * SHC_E_IO when neither XDG_CONFIG_HOME nor HOME is set, SHC_E_LIMIT when len is too short. */
int shc_model_config_path(
    const shc_model_config *c, shc_getenv_fn env, char *out, size_t len, bool *explicit_out);

/* After the flags: reads the config file (if any), the key from the environment and the system
 * prompt file, and fills defaults.  Returns 0 or a negative SHC_E_* with a message in err. */
int shc_model_config_resolve(shc_model_config *c, shc_getenv_fn env, char *err, size_t errlen);

/* True when the model backend should run: a key was found or a base URL was given, and no
 * --shell. */
bool shc_model_config_enabled(const shc_model_config *c);

/* Overwrites a secret (the API key, the Authorization header) before freeing it; NULL-safe. */
void shc__wipe_free(char *s);

/* Replaces every occurrence of key (when non-empty) in s, in place, with '*': every message that
 * may carry server text goes through here before it is logged or sent. */
void shc__redact(const char *key, char *s);

#endif
