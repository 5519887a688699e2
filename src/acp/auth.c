/* Authentication: the authMethods initialize advertises, authenticate, and the backend a new
 * session gets when the settings changed while the agent ran (a `shcard login` in another
 * process).  What a usable setup is, and how a backend is made, is the CLI's (shc_bridge_auth):
 * the bridge only asks.
 *
 * Two methods (the ACP auth-methods RFD; the registry's validator reads `type`, then
 * `_meta["terminal-auth"]`):
 *   - terminal: the client runs the agent's own command with `args` appended (`shcard acp
 *     login`) in a terminal; advertised only to a client that can (clientCapabilities.auth.terminal,
 *     or the older clientCapabilities._meta["terminal-auth"]); the older `_meta["terminal-auth"]`
 *     on the method names the full command for the clients that read that.
 *   - env_var: the client starts the agent with DEEPSEEK_API_KEY or OPENAI_API_KEY set.
 * A backend a refresh replaced stays alive while sessions made with it do. */
#define _GNU_SOURCE
#include "acp/bridge_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define AUTH_TERMINAL_ID "shcard-login"
#define AUTH_ENV_ID      "api-key-env"
#define AUTH_KEYS_URL    "https://platform.deepseek.com/api_keys"

/* The terminal method: `args` for the client that appends them to the agent's command, and the
 * full command line in _meta for the clients that run that instead. */
static json_t *terminal_method(void)
{
    json_t *m = json_pack("{s:s,s:s,s:s,s:s,s:[s]}", "id", AUTH_TERMINAL_ID, "name",
                          "Set up shcard in a terminal", "description",
                          "Choose DeepSeek, another OpenAI-compatible server or shell mode, and "
                          "type the API key (shcard login)",
                          "type", "terminal", "args", "login");
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (m && n > 0 && (size_t)n < sizeof exe - 1) {
        exe[n] = '\0';
        /* the binary was replaced (an upgrade) while this agent runs: the path names the new
         * one, without the kernel's marker */
        static const char deleted[] = " (deleted)";
        size_t dl = sizeof deleted - 1;
        if ((size_t)n > dl && !strcmp(exe + (size_t)n - dl, deleted))
            exe[(size_t)n - dl] = '\0';
        json_object_set_new(m, "_meta",
                            json_pack("{s:{s:s,s:[s],s:s}}", "terminal-auth", "command", exe,
                                      "args", "login", "label", "shcard login"));
    }
    return m;
}

static json_t *env_method(void)
{
    return json_pack(
        "{s:s,s:s,s:s,s:s,s:[{s:s,s:s,s:b,s:b},{s:s,s:s,s:b,s:b}],s:s}", "id", AUTH_ENV_ID,
        "name", "API key in the environment", "description",
        "Start shcard with DEEPSEEK_API_KEY (DeepSeek) or OPENAI_API_KEY (the server base_url "
        "names) set; one of them is enough",
        "type", "env_var", "vars", "name", "DEEPSEEK_API_KEY", "label", "DeepSeek API key",
        "secret", 1, "optional", 1, "name", "OPENAI_API_KEY", "label",
        "OpenAI-compatible API key", "secret", 1, "optional", 1, "link", AUTH_KEYS_URL);
}

json_t *shc__auth_methods(br_bridge *br, json_t *cc)
{
    json_t *list = json_array();
    br->auth_terminal = false;
    if (!br->cfg.auth.check)
        return list;
    json_t *auth = json_object_get(cc, "auth"), *meta = json_object_get(cc, "_meta");
    if (json_is_true(json_object_get(auth, "terminal")) ||
        json_is_true(json_object_get(meta, "terminal-auth"))) {
        br->auth_terminal = true;
        json_array_append_new(list, terminal_method());
    }
    json_array_append_new(list, env_method());
    return list;
}

void shc__auth_authenticate(br_bridge *br, json_t *id, json_t *params)
{
    json_t *mid = json_object_get(params, "methodId");
    const char *m = shc_rpc_str(mid); /* NULL for a string holding NUL: never a prefix match */
    if (!br->cfg.auth.check) { /* nothing advertised: nothing to do */
        shc_rpc_respond(br->rpc, id, json_object());
        return;
    }
    bool terminal = m && br->auth_terminal && !strcmp(m, AUTH_TERMINAL_ID);
    bool env = m && !strcmp(m, AUTH_ENV_ID);
    if (!terminal && !env) {
        char msg[200];
        snprintf(msg, sizeof msg, "authenticate: methodId must be one of the authMethods "
                                  "initialize advertised (%s%s)",
                 br->auth_terminal ? AUTH_TERMINAL_ID ", " : "", AUTH_ENV_ID);
        shc_rpc_error(br->rpc, id, SHC_RPC_INVALID_PARAMS, msg, NULL);
        return;
    }
    char why[600] = "";
    if (br->cfg.auth.check(br->cfg.auth.payload, env, why, sizeof why) != 0) {
        shc_log_info(br->log, "authenticate %s: %s", m, why);
        shc_rpc_error(br->rpc, id, SHC_RPC_AUTH_REQUIRED, why, NULL);
        return;
    }
    shc_log_info(br->log, "authenticate %s: ready", m);
    shc__auth_refresh(br); /* the next session uses it */
    shc_rpc_respond(br->rpc, id, json_object());
}

static bool in_use(const br_bridge *br, const shc_backend *be)
{
    for (const br_session *s = br->sessions; s; s = s->next)
        if (s->be == be)
            return true;
    return false;
}

void shc__auth_release(br_bridge *br, shc_backend *be)
{
    if (be == br->be || in_use(br, be))
        return;
    for (size_t i = 0; i < br->nretired; i++)
        if (br->retired[i] == be) {
            br->retired[i] = br->retired[--br->nretired];
            be->ops->free(be);
            return;
        }
}

void shc__auth_refresh(br_bridge *br)
{
    if (!br->cfg.auth.refresh || br->tearing)
        return;
    shc_backend *be = br->cfg.auth.refresh(br->cfg.auth.payload);
    if (!be)
        return;
    if (in_use(br, br->be)) {
        shc_backend **r = realloc(br->retired, (br->nretired + 1) * sizeof *r);
        if (!r) {
            shc_log_error(br->log, "out of memory: the new settings are not used");
            be->ops->free(be);
            return;
        }
        br->retired = r;
        br->retired[br->nretired++] = br->be;
    } else {
        br->be->ops->free(br->be);
    }
    br->be = be;
    if (br->cfg.approve == SHC_APPROVE_DEFAULT)
        br->approve = !strcmp(be->ops->name, "shell") ? SHC_APPROVE_ALL : SHC_APPROVE_ASK;
    json_decref(br->models);
    br->models = NULL;
    shc_log_info(br->log, "settings changed: new sessions use the %s backend%s%s", be->ops->name,
                 be->model ? ", model " : "", be->model ? be->model : "");
    if (be->ops->list_models)
        be->ops->list_models(be, br->loop, br->hooks.models, br);
}

void shc__auth_free(br_bridge *br)
{
    for (size_t i = 0; i < br->nretired; i++)
        br->retired[i]->ops->free(br->retired[i]);
    free(br->retired);
    br->retired = NULL;
    br->nretired = 0;
}
