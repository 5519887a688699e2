/* shcard run [OPTION]... SCRIPT | [--] CMD ARG...: prints the classifier's card for the command
 * on stderr, runs it through the PTY executor, streams its output to stdout (raw, or one JSON
 * event per line) and exits with its status: the exit code, 128+N for signal N (130 after a
 * Ctrl-C, which is passed on to the command as SIGINT), 124 for a timeout, 127 when it could not
 * start.  One operand is a script (bash -c SCRIPT); after `--`, or with several operands, each
 * word is one argument, quoted (shc_shell_quote), so `run -- echo 'a  b'` prints "a  b".
 * Options come before the command (the command's own options are its own).
 *
 * --verify runs a read, search or list card's command under the watch the bridge uses
 * (confine.h) and says whether the card held: the verdict, what was observed (system calls, still
 * running after the grace, waiting for terminal input) and, with --json, a last line
 * {"event":"verify","held":B,"events":[...],...}.  --as takes the card another classifier gave.
 * --sandbox runs it in the sandbox (run_sandbox.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/quote.h"
#include "base/strbuf.h"
#include "cli/argv.h"
#include "cli/cmd.h"
#include "cli/run_sandbox.h"
#include "acp/findings.h"
#include "base/loop.h"
#include "classify/programs.h"
#include "exec/pty.h"
#include "shcard.h"

enum { MAX_EVENTS = 64, DEFAULT_GRACE_MS = 3000 };

typedef struct run_ctx {
    bool json;
    bool out_broken; /* stdout went away: keep running, stop writing */
    bool finished;
    bool interrupted; /* a SIGINT was passed on; the next one cancels */
    shc_pty_status st;
    shc_pty *pty;
    /* --verify */
    bool verify;
    const char *as;      /* --as, or NULL: the classifier's own card */
    uint64_t grace_ms;   /* --grace */
    json_t *events;      /* what the watch saw, up to MAX_EVENTS */
    size_t nevents;      /* all of them, counted */
    bool slow, waited, profile;
} run_ctx;

static void write_all(run_ctx *c, const char *p, size_t n)
{
    while (n && !c->out_broken) {
        ssize_t w = write(1, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            c->out_broken = true;
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

/* Steals obj; writes it as one line. */
static void emit(run_ctx *c, json_t *obj)
{
    if (!obj)
        return;
    char *s = json_dumps(obj, JSON_COMPACT);
    json_decref(obj);
    if (!s) {
        fprintf(stderr, "shcard run: cannot encode an event\n");
        return;
    }
    size_t n = strlen(s);
    write_all(c, s, n);
    write_all(c, "\n", 1);
    free(s);
}

static void on_output(shc_pty *pty, const char *data, size_t len, void *payload)
{
    (void)pty;
    run_ctx *c = payload;
    if (!c->json) {
        write_all(c, data, len);
        return;
    }
    json_t *o = json_object();
    json_object_set_new(o, "event", json_string("output"));
    json_object_set_new(o, "data", json_stringn(data, len));
    emit(c, o);
}

static void on_exit_cb(shc_pty *pty, const shc_pty_status *st, void *payload)
{
    (void)pty;
    run_ctx *c = payload;
    c->st = *st;
    c->finished = true;
    if (c->json) {
        json_t *o = json_object();
        json_object_set_new(o, "event", json_string("exit"));
        json_object_set_new(o, "exit_code", st->signo ? json_null() : json_integer(st->exit_code));
        json_object_set_new(o, "signal", st->signal ? json_string(st->signal) : json_null());
        json_object_set_new(o, "timed_out", json_boolean(st->timed_out));
        json_object_set_new(o, "cancelled", json_boolean(st->cancelled));
        json_object_set_new(o, "duration_ms", json_integer((json_int_t)st->duration_ms));
        emit(c, o);
    }
}

static void add_event(run_ctx *c, json_t *ev)
{
    c->nevents++;
    if (json_array_size(c->events) < MAX_EVENTS)
        json_array_append(c->events, ev);
    json_decref(ev);
}

static void on_confine(shc_pty *pty, const shc_confine_event *ev, void *payload)
{
    (void)pty;
    add_event(payload, shc_finding_event(ev));
}

static void on_wait(shc_pty *pty, void *payload)
{
    (void)pty;
    run_ctx *c = payload;
    c->waited = true;
    add_event(c, shc_finding_fact("input", "it waited for terminal input"));
}

static void on_grace(shc_loop *loop, void *payload)
{
    run_ctx *c = payload;
    if (c->finished)
        return;
    if (c->pty && shc_pty_in_profile(c->pty)) { /* the grace starts after a login profile */
        c->profile = true;
        shc_loop_timer(loop, 100, on_grace, c);
        return;
    }
    if (c->profile) {
        c->profile = false;
        shc_loop_timer(loop, c->grace_ms, on_grace, c);
        return;
    }
    char d[80];
    snprintf(d, sizeof d, "still running after %.3g s", (double)c->grace_ms / 1000.0);
    c->slow = true;
    add_event(c, shc_finding_fact("slow", d));
}

/* Ctrl-C is the user's: the command gets SIGINT (and dies of it: 130), as it would in the
 * user's shell; a second one, or SIGTERM or SIGHUP, cancels it through the kill ladder. */
static void on_signal(shc_loop *loop, int signo, void *payload)
{
    (void)loop;
    run_ctx *c = payload;
    if (!c->pty)
        return;
    if (signo == SIGINT && !c->interrupted) {
        c->interrupted = true;
        if (shc_pty_signal(c->pty, SIGINT) == 0)
            return;
    }
    shc_pty_cancel(c->pty);
}

/* The card the classifier gives CMD, on stderr: "[read] Read file 'x'".  Control characters in
 * the title (a terminal card's title is the command itself) are shown as spaces. */
static shc_kind print_card(const char *cmd, const char *cwd, char **reason)
{
    shc_kind kind = SHC_KIND_TERMINAL;
    shc_verdict *v = NULL;
    shc_classify_opts copts = SHC_CLASSIFY_OPTS_INIT;
    char *real = realpath(cwd ? cwd : ".", NULL); /* where it runs: files there are stat()ed */
    copts.cwd = real;
    copts.context = SHC_CONTEXT_BRIDGE; /* the same executor as the bridge */
    int rc = shc_classify_ex(&v, cmd, strlen(cmd), &copts);
    free(real);
    if (rc != 0 || !v) {
        fprintf(stderr, "[terminal] (classifier out of memory)\n");
        return kind;
    }
    kind = v->kind;
    *reason = v->reason ? strdup(v->reason) : NULL;
    const char *t = v->title ? v->title : cmd;
    fprintf(stderr, "[%s] ", shc_kind_name(v->kind));
    for (const unsigned char *q = (const unsigned char *)t; *q; q++)
        fputc(*q < 0x20 || *q == 0x7f ? ' ' : *q, stderr);
    fputc('\n', stderr);
    fflush(stderr);
    shc_verdict_free(v);
    return kind;
}

/* The verdict, what was observed, and whether the card held: text on stderr, and with --json a
 * last line on stdout.  A card that did not hold goes to the findings file too. */
static void report(run_ctx *c, const char *cmd, const char *cwd, shc_kind kind, const char *card,
                   const char *reason, bool watched)
{
    bool held = c->nevents == 0;
    fprintf(stderr, "verdict: %s; card: %s; %s\n", shc_kind_name(kind), card,
            !strcmp(card, "terminal") ? "a terminal card is not watched"
            : !watched                ? "UNVERIFIED (no watch on this system)"
            : held                    ? "held: nothing a card command must not do"
                                      : "did NOT hold:");
    char line[700];
    for (size_t i = 0; i < json_array_size(c->events); i++)
        fprintf(stderr, "  - %s\n", shc_finding_text(json_array_get(c->events, i), line,
                                                      sizeof line));
    if (c->nevents > json_array_size(c->events))
        fprintf(stderr, "  - ... %zu more\n", c->nevents - json_array_size(c->events));
    if (!held && watched) {
        char *real = realpath(cwd ? cwd : ".", NULL);
        int rc = shc_findings_append(cmd, real ? real : ".", card, shc_kind_name(kind), reason,
                                     c->events);
        if (rc)
            fprintf(stderr, "shcard run: cannot write the findings file: %s\n", strerror(-rc));
        free(real);
    }
    if (c->json) {
        json_t *o = json_pack("{s:s,s:s,s:s,s:b,s:b,s:O,s:I}", "event", "verify", "verdict",
                              shc_kind_name(kind), "card", card, "watched", watched, "held",
                              held, "events", c->events,
                              "nevents", (json_int_t)c->nevents);
        emit(c, o);
    }
}


static int spawn_error(run_ctx *c, const char *msg)
{
    if (c->json) {
        json_t *o = json_object();
        json_object_set_new(o, "event", json_string("error"));
        json_object_set_new(o, "message", json_string(msg));
        emit(c, o);
    } else {
        fprintf(stderr, "shcard run: %s\n", msg);
    }
    return 127;
}

enum { O_CWD, O_TIMEOUT, O_LOGIN, O_JSON, O_COLOR, O_VERIFY, O_AS, O_GRACE, O_SANDBOX };
enum { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };

static const shc_cli_opt run_opts_table[] = {
    {"cwd", 0, SHC_ARG_STR, "DIR", 0, 0, "the current directory",
     "run the command in DIR (and judge its paths from there)", O_CWD},
    {"timeout", 0, SHC_ARG_NUM, "SECONDS", 0, 1e9, "0: none",
     "end the command after SECONDS (e.g. 2.5): SIGTERM to its group,\nSIGKILL 2 s later; exit status 124", O_TIMEOUT},
    {"login", 0, SHC_ARG_NONE, NULL, 0, 0, NULL, "run bash -lc instead of bash -c", O_LOGIN},
    {"json", 0, SHC_ARG_NONE, NULL, 0, 0, NULL,
     "one JSON event per line (start, output, exit, error) instead\nof the raw output", O_JSON},
    {"color", 0, SHC_ARG_CHOICE, "auto|always|never", 0, 0, "auto",
     "auto: the command gets your TERM when stdout is a terminal,\nelse TERM=dumb NO_COLOR=1; always: your TERM (or\nxterm-256color); never: TERM=dumb NO_COLOR=1", O_COLOR},
    {"verify", 0, SHC_ARG_NONE, NULL, 0, 0, NULL,
     "run a card's command under the watch and say whether the card\nheld (with --json: a last verify event)", O_VERIFY},
    {"as", 0, SHC_ARG_CHOICE, "read|search|list|terminal", 0, 0, "the classifier's own card",
     "with --verify: the card another classifier gave", O_AS},
    {"grace", 0, SHC_ARG_NUM, "SECONDS", 0.001, 1e6, "3",
     "with --verify: a card command still running this long does\nnot hold", O_GRACE},
    {"sandbox", 0, SHC_ARG_CHOICE, "off|read-only|workspace", 0, 0, "off",
     "run the command in the sandbox (Landlock and seccomp)", O_SANDBOX},
    {"allow-network", 0, SHC_ARG_NONE, NULL, 0, 0, NULL,
     "with --sandbox: the command may use the network", O_SANDBOX},
    {"writable", 0, SHC_ARG_STR, "DIR", 0, 0, "none",
     "with --sandbox workspace: DIR is writable too (repeatable)", O_SANDBOX},
    {"sandbox-fallback", 0, SHC_ARG_CHOICE, "refuse|off", 0, 0, "refuse",
     "without Landlock: refuse to run, or run unsandboxed", O_SANDBOX},
};

typedef struct run_args {
    run_ctx *c;
    shc_pty_opts *o;
    shc_run_sandbox *sb;
    int color;
} run_args;

static int set_opt(void *ctx, const shc_cli_opt *opt, const shc_cli_val *v, char *err, size_t n)
{
    (void)err;
    (void)n;
    run_args *a = ctx;
    switch (opt->id) {
    case O_CWD: a->o->cwd = v->str; return 0;
    case O_TIMEOUT:
        a->o->timeout_ms = (uint64_t)(v->num * 1000.0 + 0.5);
        if (v->num > 0 && !a->o->timeout_ms)
            a->o->timeout_ms = 1;
        return 0;
    case O_LOGIN: a->o->login = true; return 0;
    case O_JSON: a->c->json = true; return 0;
    case O_COLOR: a->color = v->choice; return 0;
    case O_VERIFY: a->c->verify = true; return 0;
    case O_AS: a->c->as = v->str; return 0;
    case O_GRACE: a->c->grace_ms = (uint64_t)(v->num * 1000.0 + 0.5); return 0;
    case O_SANDBOX: { /* run_sandbox.c takes the option as argv words */
        char name[32];
        snprintf(name, sizeof name, "--%s", opt->name);
        char *words[2] = {name, (char *)(uintptr_t)v->str};
        int i = 0;
        return shc__run_sandbox_opt(a->sb, v->str ? 2 : 1, words, &i) == 1 ? 0 : -1;
    }
    default: return -1;
    }
}

static const shc_cli_cmd run_cli = {
    "run",
    "[OPTION]... SCRIPT\n[OPTION]... [--] CMD [ARG]...",
    "Print the card the command gets on stderr, run it on a pseudo-terminal (as shcard acp\n"
    "does), stream its output to stdout and exit with its status.  One operand is a script\n"
    "for bash -c; after --, or with several operands, each is one word, quoted (run -- echo\n"
    "'a  b' prints \"a  b\").  Options come before the command.  Ctrl-C is passed on to the\n"
    "command (SIGINT); a second Ctrl-C, SIGTERM or SIGHUP cancels it.",
    run_opts_table,
    sizeof run_opts_table / sizeof run_opts_table[0],
    set_opt,
    NULL,
    "Exit status: the command's; 128+N when signal N ended it (130 after Ctrl-C); 124 after\n"
    "--timeout; 127 when it could not start; 2 for a usage error.\n",
    true,
};

/* The command's TERM for --color (see run_cli): the variables set in o->env (env has room for
 * three and a NULL; the text of TERM and COLORTERM goes into term[] and cterm[]). */
static void color_env(shc_pty_opts *o, int color, const char **env, char *term_kv, char *cterm_kv,
                      size_t n)
{
    const char *term = getenv("TERM");
    bool have_term = term && *term && strcmp(term, "dumb") && strlen(term) < 64;
    if (color == COLOR_NEVER || (color == COLOR_AUTO && (!isatty(STDOUT_FILENO) || !have_term)))
        return; /* the executor's default: TERM=dumb, NO_COLOR=1 */
    o->color = true; /* TERM=xterm-256color, COLORTERM=truecolor, no NO_COLOR */
    if (have_term) {
        const char *ct = getenv("COLORTERM");
        snprintf(term_kv, n, "TERM=%s", term);
        env[0] = term_kv;
        if (ct && *ct && strlen(ct) < 64)
            snprintf(cterm_kv, n, "COLORTERM=%s", ct);
        else
            snprintf(cterm_kv, n, "COLORTERM"); /* unset: the terminal did not say */
        env[1] = cterm_kv;
        o->env = env;
    }
}

int shc_cmd_run(int argc, char **argv)
{
    run_ctx c = {0};
    shc_pty_opts o = {0};
    char *joined = NULL;
    shc_run_sandbox sb = {0};
    run_args a = {&c, &o, &sb, COLOR_AUTO};
    int first = 0;
    bool dashdash = false;
    int prc = shc__cli_parse(&run_cli, argc, argv, &a, &first, &dashdash);
    if (prc)
        return prc == SHC_CLI_DONE ? 0 : prc;
    if (first >= argc)
        return shc__cli_usage_error(&run_cli, "no command given");
    if (argc - first == 1 && !dashdash) {
        o.command = argv[first];
    } else { /* CMD ARG...: each word exactly, as bash words */
        shc_strbuf b = {0};
        for (int k = first; k < argc; k++) {
            if (k > first)
                shc_strbuf_putc(&b, ' ');
            shc_shell_quote(&b, argv[k], strlen(argv[k]));
        }
        joined = b.err ? NULL : shc_strbuf_take(&b);
        shc_strbuf_free(&b);
        if (!joined) {
            fprintf(stderr, "shcard run: out of memory\n");
            return 127;
        }
        o.command = joined;
    }
    o.on_output = on_output;
    o.on_exit = on_exit_cb;
    o.payload = &c;

    if (c.as && !c.verify) {
        free(joined);
        return shc__cli_usage_error(&run_cli, "--as needs --verify");
    }
    char *reason = NULL, *programs = NULL, *script = NULL;
    shc_kind kind = print_card(o.command, o.cwd, &reason);
    const char *card = c.as ? c.as : shc_kind_name(kind);
    bool watch = c.verify && strcmp(card, "terminal") != 0; /* terminal cards: never watched */
    size_t plen = 0;
    shc_confine_spec spec = {.flags = 0};
    if (watch) {
        spec.flags |= SHC_CONFINE_WATCH;
        bool login = false;
        programs = shc__programs(o.command, strlen(o.command), &plen, &login);
        /* bash -lc SCRIPT runs as our own login shell: the watch sees its profile end */
        if (login && (script = shc__login_script(o.command, strlen(o.command))))
            o.login = true;
        if (o.login)
            spec.flags |= SHC_CONFINE_LOGIN;
        spec.programs = programs;
        spec.programs_len = programs ? plen : 0;
        o.on_confine = on_confine;
        o.on_wait = on_wait;
        if (!c.grace_ms)
            c.grace_ms = DEFAULT_GRACE_MS;
    }
    if (c.verify)
        c.events = json_array();
    shc_loop *loop = NULL;
    shc_exec *ex = NULL;
    int status = shc__run_sandbox_prepare(&sb, &spec, &o.env, o.cwd);
    if (status)
        goto done;
    /* the command's variables: the sandbox's TMPDIR, then TERM and COLORTERM for --color */
    const char *env[4] = {o.env ? o.env[0] : NULL, NULL, NULL, NULL};
    char term_kv[80], cterm_kv[80];
    color_env(&o, a.color, env + (env[0] ? 1 : 0), term_kv, cterm_kv, sizeof term_kv);
    if (env[0])
        o.env = env;
    status = 127;
    if (watch || spec.sandbox)
        o.confine = &spec;
    loop = shc_loop_new();
    ex = loop ? shc_exec_new(loop) : NULL;
    if (!ex) {
        fprintf(stderr, "shcard run: out of memory\n");
        goto done;
    }
    signal(SIGPIPE, SIG_IGN);
    /* A shell starts background jobs with SIGINT ignored, and an ignored signal is discarded
     * even while blocked: take the default back so the signalfd sees it. */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    shc_loop_signal(loop, SIGINT, on_signal, &c);
    shc_loop_signal(loop, SIGTERM, on_signal, &c);
    shc_loop_signal(loop, SIGHUP, on_signal, &c);

    shc_pty_error err;
    shc_pty_opts so = o; /* what runs: a bash -lc wrapper's SCRIPT as the login shell's */
    if (script)
        so.command = script;
    if (shc_pty_spawn(&c.pty, ex, &so, &err) != 0) {
        status = spawn_error(&c, err.message);
        goto done;
    }
    if (c.json) {
        json_t *s = json_object();
        json_object_set_new(s, "event", json_string("start"));
        json_object_set_new(s, "pid", json_integer(shc_pty_pid(c.pty)));
        json_object_set_new(s, "sandbox", json_string(shc_sandbox_name(spec.sandbox)));
        json_object_set_new(s, "network", json_boolean(!spec.sandbox || sb.network));
        json_object_set_new(s, "landlock_abi", json_integer(sb.abi));
        emit(&c, s);
    }
    bool watched = watch && shc_pty_watched(c.pty); /* asked while it runs */
    if (watch && !watched) {
        const char *why = NULL;
        shc_confine_available(&why);
        fprintf(stderr, "shcard run: the card is unverified: %s\n",
                why ? why : "the watch could not start");
    }
    if (watch)
        shc_loop_timer(loop, c.grace_ms, on_grace, &c);
    while (!c.finished) {
        int rc = shc_loop_run_once(loop, -1);
        if (rc) {
            fprintf(stderr, "shcard run: event loop failed: %s\n", strerror(-rc));
            break;
        }
    }
    status = c.finished ? shc_pty_status_code(&c.st) : 127;
    if (c.finished)
        shc__run_sandbox_after(&sb);
    if (c.verify && c.finished)
        report(&c, o.command, o.cwd, kind, card, reason, watched);
done:
    shc_pty_free(c.pty);
    shc_exec_free(ex);
    shc_loop_free(loop);
    free(joined);
    free(reason);
    free(programs);
    free(script);
    json_decref(c.events);
    shc__run_sandbox_done(&sb);
    return status;
}
