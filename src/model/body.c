/* The request body of a chat completion: the system prompt (with the session's directory),
 * the `bash` tool (then the session's other tools: its MCP servers'), and the conversation; usage is asked for (stream_options.include_usage). */
#include "model/openai_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    json_t *req =
        json_pack("{s:s, s:b, s:{s:b}, s:o, s:[{s:s, s:{s:s, s:s, s:{s:s, s:{s:{s:s, s:s}, "
                  "s:{s:s, s:s}}, s:[s]}}}]}",
                  "model", model, "stream", 1, "stream_options", "include_usage", 1, "messages",
                  msgs, "tools", "type", "function",
                  "function", "name", "bash", "description", tdesc, "parameters", "type",
                  "object", "properties", "command", "type", "string", "description",
                  "The command line to run, for example `rg -n shc_parse src`.", "description",
                  "type", "string", "description",
                  "A few words for the user saying what the command does.", "required", "command");
    if (!req)
        goto done;
    if (tools && json_array_extend(json_object_get(req, "tools"), tools))
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
