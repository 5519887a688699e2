/* The request body of a chat completion: the system prompt (with the session's directory),
 * the `bash` tool (then the session's other tools: its MCP servers'), and the conversation; usage is asked for (stream_options.include_usage). */
#include "model/openai_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "model/config.h"
#include "shcard.h"

/* ------------------------------------------------------------------ text helpers */

static const char default_prompt[] =
    "You are a coding agent working in the user's project. You act by running shell commands "
    "with the `bash` tool and then answer the user. Inspect before you change anything: prefer "
    "read-only commands (cat, sed -n, head, rg, grep, ls, find, git status, git diff). Keep "
    "commands short and non-interactive (no editors, pagers or prompts); add flags such as "
    "--no-pager where needed. The user sees every command as a card and may reject it; if a "
    "command is rejected, do not retry it: ask or take another way. Answer in Markdown, "
    "concisely. When you are done, reply without calling any tool.";

static const char tool_description[] =
    "Run a shell command with bash in the session's working directory on a "
    "pseudo-terminal, and return its output (ANSI escapes stripped; long output keeps its head "
    "and tail) followed by a last line `[exit code: N]`, `[killed by signal: S]` or "
    "`[timed out]`. Each call starts a fresh shell: `cd` and variables do not carry over, so "
    "chain steps with && in one command. Commands run with a time limit and without a terminal "
    "user, so never start interactive programs. The user sees each command and may reject it.";

/* ------------------------------------------------------------------ the API's limits */

/* UTF-16 code units of the character starting at p (an invalid byte: U+FFFD, one). */
static size_t units_at(const unsigned char *p, size_t n, size_t *adv)
{
    int r = shc_utf8_dec(p, n, adv);
    return r == SHC_UTF8_OK && *adv == 4 ? 2 : 1;
}

char *shc_openai_fn_desc(const char *s, size_t n)
{
    static const char ellipsis[] = "\xE2\x80\xA6"; /* U+2026, one unit */
    const unsigned char *u = (const unsigned char *)s;
    size_t units = 0, keep = 0, adv = 1;
    for (size_t i = 0; i < n; i += adv) {
        units += units_at(u + i, n - i, &adv);
        if (units <= SHC_OPENAI_FN_DESC_MAX - 1)
            keep = i + adv; /* the longest prefix that leaves room for the ellipsis */
    }
    if (units <= SHC_OPENAI_FN_DESC_MAX)
        return shc_utf8_dup(s, n, n * 3); /* each invalid byte may become 3 */
    char *head = shc_utf8_dup(s, keep, keep * 3);
    char *out = head ? malloc(strlen(head) + sizeof ellipsis) : NULL;
    if (out)
        snprintf(out, strlen(head) + sizeof ellipsis, "%s%s", head, ellipsis);
    free(head);
    return out;
}

bool shc_openai_fn_name_ok(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > SHC_OPENAI_FN_NAME_MAX)
        return false;
    return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == n;
}

/* e ({"type":"function","function":{...}}) onto dst within the API's limits: left out past
 * SHC_OPENAI_FN_MAX or with a name the API refuses, its description cut in a copy (e is the
 * session's, borrowed).  0, or -1 out of memory. */
static int add_function(json_t *dst, json_t *e)
{
    json_t *fn = json_object_get(e, "function");
    if (json_array_size(dst) >= SHC_OPENAI_FN_MAX ||
        !shc_openai_fn_name_ok(json_string_value(json_object_get(fn, "name"))))
        return 0;
    json_t *d = json_object_get(fn, "description");
    char *cut = json_is_string(d) ? shc_openai_fn_desc(json_string_value(d), json_string_length(d))
                                  : NULL;
    if (json_is_string(d) && !cut)
        return -1;
    if (!cut || !strcmp(cut, json_string_value(d))) {
        free(cut);
        return json_array_append(dst, e);
    }
    json_t *copy = json_deep_copy(e);
    json_t *cd = json_string(cut);
    free(cut);
    if (!copy || !cd || json_object_set_new(json_object_get(copy, "function"), "description", cd)) {
        json_decref(copy);
        return -1;
    }
    return json_array_append_new(dst, copy);
}

/* ------------------------------------------------------------------ request body */

char *shc_openai_request_body(const char *model,
                              const char *system_prompt,
                              const char *cwd,
                              json_t *history,
                              const char *note)
{
    return shc_openai_request_body_tool(model, system_prompt, cwd, history, note, NULL);
}

char *shc_openai_request_body_tool(const char *model, const char *system_prompt, const char *cwd,
                                   json_t *history, const char *note, const char *tool_note)
{
    return shc_openai_request_body_ex(model, system_prompt, cwd, history, note, tool_note, NULL);
}

char *shc_openai_request_body_ex(const char *model, const char *system_prompt, const char *cwd,
                                 json_t *history, const char *note, const char *tool_note,
                                 json_t *tools)
{
    char *sys = NULL, *out = NULL, *tdesc = NULL;
    const char *base = system_prompt ? system_prompt : default_prompt;
    size_t n = strlen(base) + (cwd ? strlen(cwd) : 0) + (note ? strlen(note) : 0) + 64;
    sys = malloc(n);
    if (!sys)
        return NULL;
    snprintf(sys, n, "%s\n\nThe working directory is %s.%s%s", base, cwd ? cwd : "(unknown)",
             note ? "\n\n" : "", note ? note : "");
    size_t tn = sizeof tool_description + (tool_note ? strlen(tool_note) + 1 : 0);
    tdesc = malloc(tn);
    if (!tdesc) {
        free(sys);
        return NULL;
    }
    snprintf(tdesc, tn, "%s%s%s", tool_description, tool_note ? " " : "",
             tool_note ? tool_note : "");
    json_t *msgs = json_array();
    json_t *fns = json_array();
    json_t *req = json_pack("{s:s, s:b, s:{s:b}, s:o, s:o}", "model", model, "stream", 1,
                            "stream_options", "include_usage", 1, "messages", msgs, "tools", fns);
    json_t *bash =
        json_pack("{s:s, s:{s:s, s:s, s:{s:s, s:{s:{s:s, s:s}, s:{s:s, s:s}}, s:[s]}}}", "type",
                  "function", "function", "name", "bash", "description", tdesc, "parameters",
                  "type", "object", "properties", "command", "type", "string", "description",
                  "The command line to run, for example `rg -n shc_parse src`.", "description",
                  "type", "string", "description",
                  "A few words for the user saying what the command does.", "required", "command");
    int bad = !req || !bash || add_function(fns, bash) != 0; /* no req: fns went with it */
    json_decref(bash);
    size_t i;
    json_t *e;
    json_array_foreach(bad ? NULL : tools, i, e)
    {
        bad |= add_function(fns, e) != 0;
    }
    if (bad)
        goto done;
    if (json_array_append_new(msgs, json_pack("{s:s, s:s}", "role", "system", "content", sys)))
        goto done;
    if (history && json_array_extend(msgs, history))
        goto done;
    out = json_dumps(req, JSON_COMPACT);
done:
    json_decref(req);
    free(sys);
    free(tdesc);
    return out;
}
