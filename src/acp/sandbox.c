/* The bridge's side of the sandbox (docs/sandbox.md; the mechanism is src/confine/): which mode
 * a session's commands run in (the model's: `workspace`, network off; shell mode's, which the
 * user types: `off`; both unless configured, and the `sandbox` / `network` config options), the
 * spec a call's command gets, the notice when this kernel has no Landlock (once per session) and
 * the user's fallback, the card's `_meta.sandbox`, and the note the model reads when a sandboxed
 * command failed the way the sandbox makes commands fail. */
#define _GNU_SOURCE
#include "acp/bridge_int.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <sys/stat.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

unsigned shc__sandbox_default(const shc_bridge_config *cfg, const char *backend)
{
    int m = cfg->sandbox ? shc_sandbox_parse(cfg->sandbox) : -1;
    if (m >= 0)
        return (unsigned)m;
    return !strcmp(backend, "shell") ? SHC_SANDBOX_OFF : SHC_SANDBOX_WORKSPACE;
}

void shc__sandbox_meta(const br_call *c, json_t *update)
{
    if (!update || c->info.card != SHC_CARD_TERMINAL)
        return;
    json_t *meta = json_object_get(update, "_meta");
    if (!meta) {
        meta = json_object();
        json_object_set_new(update, "_meta", meta);
    }
    json_object_set_new(meta, "sandbox",
                        json_pack("{s:s,s:b}", "mode", shc_sandbox_name(c->sandbox), "network",
                                  c->sandbox == SHC_SANDBOX_OFF || c->network));
}

int shc__sandbox_opts(br_call *c, shc_pty_opts *o, const char **why)
{
    br_bridge *br = c->turn->br;
    br_session *s = c->turn->sess;
    *why = NULL;
    if (c->sandbox == SHC_SANDBOX_OFF)
        return 0;
    if (br->landlock_abi < 0) {
        const char *w = NULL;
        br->landlock_abi = shc_sandbox_abi(&w);
        br->landlock_why = w;
    }
    if (!br->landlock_abi) {
        bool run = br->cfg.sandbox_fallback_off;
        if (!s->sandbox_told) {
            s->sandbox_told = true;
            char text[400];
            snprintf(text, sizeof text,
                     "shcard: no sandbox on this system (%s): %s",
                     br->landlock_why ? br->landlock_why : "no Landlock",
                     run ? "commands run unsandboxed (sandbox fallback: off)."
                         : "commands are not run (start shcard acp with --sandbox-fallback off "
                           "to run them unsandboxed, or set the session's sandbox option to "
                           "off).");
            shc__journal_notice(c->turn, text);
        }
        c->sandbox = SHC_SANDBOX_OFF;
        if (run)
            return 0;
        *why = "the sandbox is not available on this system (no Landlock); the command was not "
               "run";
        return -1;
    }
    c->spec = o->confine ? *o->confine : (shc_confine_spec){.flags = 0};
    c->spec.sandbox = c->sandbox;
    if (c->sandbox == SHC_SANDBOX_WORKSPACE && !c->tmpdir && !o->env) {
        /* compilers, heredocs and most tools write temporary files: a private TMPDIR */
        const char *base = getenv("TMPDIR");
        char tmpl[PATH_MAX];
        int n = snprintf(tmpl, sizeof tmpl, "%s/shcard-sandbox-%d-XXXXXX",
                         base && base[0] == '/' ? base : "/tmp", (int)getpid());
        if (n > 0 && (size_t)n < sizeof tmpl && mkdtemp(tmpl)) {
            c->tmpdir = strdup(tmpl);
            if (c->tmpdir && asprintf(&c->env[0], "TMPDIR=%s", tmpl) < 0)
                c->env[0] = NULL;
            if (!c->tmpdir || !c->env[0])
                rmdir(tmpl);
        }
        if (!c->env[0]) {
            free(c->tmpdir);
            c->tmpdir = NULL;
            *why = "cannot create the command's private TMPDIR";
            return -1;
        }
    }
    if (c->tmpdir) {
        c->spec.writable = c->tmpdir;
        c->spec.writable_len = strlen(c->tmpdir) + 1;
        o->env = (const char *const *)c->env;
    }
    if (c->network)
        c->spec.flags |= SHC_CONFINE_NETWORK;
    if (c->sandbox == SHC_SANDBOX_WORKSPACE && !c->git)
        c->git = shc_gitsnap_take_reuse(o->cwd, &s->git_last);
    o->confine = &c->spec;
    return 0;
}

/* What the sandbox makes commands print when it stops them (a heuristic: the same words come
 * from ordinary permission and network failures too, so the note says "may"). */
static const char *const blocked_by[] = {
    "Permission denied",        "Read-only file system", "Operation not permitted",
    "Network is unreachable",   "Could not resolve",     "Temporary failure in name resolution",
    "Name or service not known", "Connection refused",   "Address family not supported",
};

static bool mentions(const char *text, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; n <= len && i + n <= len; i++)
        if (text[i] == needle[0] && !memcmp(text + i, needle, n))
            return true;
    return false;
}

char *shc__sandbox_note(const br_call *c, const char *text, size_t len, int exit_code,
                        bool ran)
{
    if (c->sandbox == SHC_SANDBOX_OFF || !ran || exit_code == 0 || !text)
        return NULL;
    const char *hit = NULL;
    for (size_t i = 0; !hit && i < sizeof blocked_by / sizeof blocked_by[0]; i++)
        if (mentions(text, len, blocked_by[i]))
            hit = blocked_by[i];
    if (!hit)
        return NULL;
    char *note = NULL;
    int n = asprintf(
        &note,
        "\n[shcard: this command ran in the `%s` sandbox (%s, network %s) and failed with "
        "\"%s\": the sandbox may have blocked it. Do not try to get around the sandbox; tell "
        "the user what needs the access. The user can allow it by setting the session's "
        "`sandbox` option to `off` (or `network` to `on`) and asking again.]\n",
        shc_sandbox_name(c->sandbox),
        c->sandbox == SHC_SANDBOX_WORKSPACE ? "writes only in the workspace and its TMPDIR"
                                            : "no writes",
        c->network ? "on" : "off", hit);
    return n < 0 ? NULL : note;
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (type == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

char *shc__sandbox_git_note(br_call *c)
{
    shc_gitsnap *after = NULL;
    char *what = c->git ? shc_gitsnap_changed_keep(c->git, &after) : NULL;
    c->git = NULL; /* taken: freed, or kept as the session's last */
    if (after) { /* the next command's "before", when nothing changes meanwhile */
        shc_gitsnap_free(c->turn->sess->git_last);
        c->turn->sess->git_last = after;
    }
    if (!what)
        return NULL;
    char *note = NULL;
    int n = asprintf(&note,
                     "\n[shcard: this command, run in the sandbox, changed the repository's "
                     "control files: %s. git runs hooks and configured programs (core.fsmonitor, "
                     "core.hooksPath, aliases, pagers) from these outside any sandbox. Say what "
                     "changed and why; the user should check them before running git "
                     "unsandboxed.]\n",
                     what);
    free(what);
    return n < 0 ? NULL : note;
}

void shc__sandbox_free(br_call *c)
{
    shc_gitsnap_free(c->git);
    c->git = NULL;
    if (c->tmpdir)
        nftw(c->tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    free(c->tmpdir);
    free(c->env[0]);
    c->tmpdir = NULL;
    c->env[0] = NULL;
}

void shc__sandbox_tell(br_bridge *br, const br_session *s)
{
    if (!br->be->ops->set_sandbox)
        return;
    char text[400];
    if (s->sandbox == SHC_SANDBOX_OFF)
        snprintf(text, sizeof text, "Commands run without a sandbox.");
    else
        snprintf(text, sizeof text,
                 "Commands run in the `%s` sandbox: they may read everything but write %s, "
                 "and %s. A command the sandbox stops fails with \"Permission denied\", "
                 "\"Operation not permitted\" or a network error: do not try to get around it; "
                 "say what needs the access (the user can change the session's sandbox).",
                 shc_sandbox_name(s->sandbox),
                 s->sandbox == SHC_SANDBOX_WORKSPACE
                     ? "only under the working directory and $TMPDIR"
                     : "nowhere (only /dev/null and the terminal)",
                 s->network ? "may use the network" : "have no network");
    br->be->ops->set_sandbox(br->be, s->id, text);
}

br_call *shc__sandbox_rerun(br_call *c)
{
    br_call *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->be_call_id = strdup(c->be_call_id);
    r->command = strdup(c->command);
    if (asprintf(&r->description,
                 "Run again without the sandbox: in the `%s` sandbox it failed the way the "
                 "sandbox makes commands fail.",
                 shc_sandbox_name(c->sandbox)) < 0)
        r->description = NULL;
    if (!r->be_call_id || !r->command || !r->description) {
        free(r->be_call_id);
        free(r->command);
        free(r->description);
        free(r);
        return NULL;
    }
    r->turn = c->turn;
    r->state = CALL_QUEUED;
    r->sandbox = SHC_SANDBOX_OFF;
    r->held = c;
    return r;
}
