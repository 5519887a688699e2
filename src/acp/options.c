/* A session's settings as the editor sees them: approval as session modes (`ask`, `all`) and as
 * the "mode" config option, the sandbox's "sandbox" and "network" selects (docs/sandbox.md),
 * and with a model backend a "model" select (the configured model
 * plus what the server lists at GET /models).  A change applies to the next command or request,
 * is journaled, and is announced with current_mode_update / config_option_update.  ACP v2 has
 * the config options alone (their key is `configId`). */
#include "acp/bridge_int.h"

#include <stdlib.h>
#include <string.h>

static const struct {
    const char *id, *name, *description;
    shc_approve approve;
} modes[] = {
    {"ask", "Ask", "Ask before each command runs", SHC_APPROVE_ASK},
    {"all", "Run all", "Run every command without asking", SHC_APPROVE_ALL},
};

static const char *mode_id(shc_approve a)
{
    return a == SHC_APPROVE_ASK ? "ask" : "all";
}

json_t *shc__opt_modes(const br_session *s)
{
    json_t *avail = json_array();
    for (size_t i = 0; avail && i < sizeof modes / sizeof modes[0]; i++)
        json_array_append_new(avail, json_pack("{s:s,s:s,s:s}", "id", modes[i].id, "name",
                                               modes[i].name, "description",
                                               modes[i].description));
    return json_pack("{s:s,s:o}", "currentModeId", mode_id(s->approve), "availableModes", avail);
}

static const char *model_of(const br_bridge *br, const br_session *s)
{
    (void)br;
    return s->model ? s->model : s->be->model;
}

json_t *shc__opt_config(const br_bridge *br, const br_session *s)
{
    const char *key = br->version == 2 ? "configId" : "id"; /* v2 renamed it */
    json_t *mopts = json_array();
    for (size_t i = 0; mopts && i < sizeof modes / sizeof modes[0]; i++)
        json_array_append_new(mopts, json_pack("{s:s,s:s,s:s}", "value", modes[i].id, "name",
                                               modes[i].name, "description",
                                               modes[i].description));
    json_t *out = json_pack("[{s:s,s:s,s:s,s:s,s:s,s:s,s:o}]", key, "mode", "name", "Approval",
                            "description", "Whether shcard asks before running a command",
                            "category", "mode", "type", "select", "currentValue",
                            mode_id(s->approve), "options", mopts);
    json_t *sb = json_array();
    for (unsigned m = SHC_SANDBOX_OFF; sb && m <= SHC_SANDBOX_WORKSPACE; m++)
        json_array_append_new(sb, json_pack("{s:s,s:s}", "value", shc_sandbox_name(m), "name",
                                            shc_sandbox_name(m)));
    json_array_append_new(out, json_pack("{s:s,s:s,s:s,s:s,s:s,s:o}", key, "sandbox", "name",
                                         "Sandbox",
                                         "description",
                                         "Where commands may write: off, read-only (nowhere but "
                                         "the terminal), workspace (the session's directory and "
                                         "its TMPDIR)",
                                         "type", "select", "currentValue",
                                         shc_sandbox_name(s->sandbox), "options", sb));
    json_array_append_new(out, json_pack("{s:s,s:s,s:s,s:s,s:s,s:[{s:s,s:s},{s:s,s:s}]}", key,
                                         "network", "name", "Network", "description",
                                         "Whether sandboxed commands may use the network",
                                         "type", "select", "currentValue",
                                         s->network ? "on" : "off", "options", "value", "off",
                                         "name", "off", "value", "on", "name", "on"));
    const char *cur = model_of(br, s);
    if (!out || !cur)
        return out;
    /* the model in use first, then the server's list */
    json_t *list = json_array();
    json_array_append_new(list, json_pack("{s:s,s:s}", "value", cur, "name", cur));
    size_t i;
    json_t *m;
    json_t *models = s->be == br->be ? br->models : NULL; /* a replaced backend: its own only */
    json_array_foreach(models, i, m)
    {
        if (strcmp(json_string_value(m), cur))
            json_array_append_new(list, json_pack("{s:O,s:O}", "value", m, "name", m));
    }
    json_array_append_new(out, json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:o}", key, "model", "name",
                                         "Model", "description",
                                         "The model that answers the next prompt", "category",
                                         "model", "type", "select", "currentValue", cur,
                                         "options", list));
    return out;
}

json_t *shc__opt_state(const br_bridge *br, const br_session *s)
{
    if (br->version == 2) /* v2 has no modes: the approval is a config option only */
        return json_pack("{s:o}", "configOptions", shc__opt_config(br, s));
    return json_pack("{s:o,s:o}", "modes", shc__opt_modes(s), "configOptions",
                     shc__opt_config(br, s));
}

static bool model_known(const br_bridge *br, const br_session *s, const char *v)
{
    if (s->be->model && !strcmp(v, s->be->model))
        return true;
    if (s->be != br->be) /* the list is the server's of the backend new sessions get */
        return false;
    size_t i;
    json_t *m;
    json_array_foreach(br->models, i, m)
    {
        if (!strcmp(json_string_value(m), v))
            return true;
    }
    return false;
}

static void apply(br_session *s, const char *id, const char *value)
{
    if (!strcmp(id, "mode")) {
        s->approve = !strcmp(value, "ask") ? SHC_APPROVE_ASK : SHC_APPROVE_ALL;
        return;
    }
    if (!strcmp(id, "sandbox") || !strcmp(id, "network")) {
        if (!strcmp(id, "sandbox"))
            s->sandbox = (unsigned)shc_sandbox_parse(value);
        else
            s->network = !strcmp(value, "on");
        shc__sandbox_tell(s->br, s);
        return;
    }
    free(s->model);
    bool configured = s->be->model && !strcmp(value, s->be->model);
    s->model = configured ? NULL : strdup(value);
    if (s->be->ops->set_model)
        s->be->ops->set_model(s->be, s->id, s->model);
}

int shc__opt_set(br_bridge *br, br_session *s, const char *id, const char *value,
                 const char **why)
{
    if (!id || !value) {
        *why = "a config option needs a string value";
        return -1;
    }
    bool is_mode = !strcmp(id, "mode");
    if (is_mode && strcmp(value, "ask") && strcmp(value, "all")) {
        *why = "unknown mode (the modes are ask and all)";
        return -1;
    }
    bool is_sandbox = !strcmp(id, "sandbox"), is_network = !strcmp(id, "network");
    if (is_sandbox && shc_sandbox_parse(value) < 0) {
        *why = "unknown sandbox (off, read-only or workspace)";
        return -1;
    }
    if (is_network && strcmp(value, "on") && strcmp(value, "off")) {
        *why = "the network option is on or off";
        return -1;
    }
    if (!is_mode && !is_sandbox && !is_network && strcmp(id, "model")) {
        *why = "unknown config option (the options are mode, sandbox, network and model)";
        return -1;
    }
    if (!is_mode && !is_sandbox && !is_network && (!s->be->model || !model_known(br, s, value))) {
        *why = s->be->model ? "unknown model (not in the model option's list)"
                             : "shell mode has no model";
        return -1;
    }
    apply(s, id, value);
    shc__rec_config(s, id, value);
    shc_log_info(br->log, "%s: %s = %s", s->id, id, value);
    if (is_mode)
        shc__wire_update(br, s, json_pack("{s:s,s:s}", "sessionUpdate", "current_mode_update",
                                          "currentModeId", mode_id(s->approve)));
    shc__wire_update(br, s, json_pack("{s:s,s:o}", "sessionUpdate", "config_option_update",
                                      "configOptions", shc__opt_config(br, s)));
    return 0;
}

void shc__opt_restore(br_bridge *br, br_session *s, const char *id, const char *value)
{
    (void)br; /* the session's own backend says whether it has a model */
    if (!id || !value)
        return;
    if (!strcmp(id, "mode") && (!strcmp(value, "ask") || !strcmp(value, "all")))
        apply(s, id, value);
    else if ((!strcmp(id, "sandbox") && shc_sandbox_parse(value) >= 0) ||
             (!strcmp(id, "network") && (!strcmp(value, "on") || !strcmp(value, "off"))))
        apply(s, id, value);
    else if (!strcmp(id, "model") && s->be->model)
        apply(s, id, value); /* a model the server no longer lists is still tried */
}
