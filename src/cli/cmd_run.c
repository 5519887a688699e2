/* shcard run [--cwd DIR] [--timeout SECONDS] [--login] [--json] [--verify [--as KIND] [--grace S]]
 * CMD: prints the classifier's card for CMD on stderr, runs CMD through the PTY executor, streams
 * its output to stdout (raw, or one JSON event per line) and exits with its status: the exit
 * code, 128+N for signal N, 124 for a timeout, 127 when it could not start.
 *
 * --verify runs a read, search or list card's command under the watch the bridge uses
 * (confine.h) and says whether the card held: the verdict, what was observed (system calls, still
 * running after the grace, waiting for terminal input) and, with --json, a last line
 * {"event":"verify","held":B,"events":[...],...}.  --as takes the card another classifier gave.
 *
 * --sandbox read-only|workspace runs CMD in the sandbox the bridge uses (docs/sandbox.md):
 * run_sandbox.c. */
#define _GNU_SOURCE
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static void on_signal(shc_loop *loop, int signo, void *payload)
{
    (void)loop;
    (void)signo;
    run_ctx *c = payload;
    if (c->pty)
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

static int usage(FILE *f)
{
    fprintf(f, "usage: shcard run [--cwd DIR] [--timeout SECONDS] [--login] [--json]\n"
               "                  [--verify [--as read|search|list] [--grace SECONDS]]\n"
               "                  [--sandbox off|read-only|workspace [--allow-network]\n"
               "                   [--writable DIR]... [--sandbox-fallback refuse|off]] CMD\n");
    return f == stdout ? 0 : 2;
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

int shc_cmd_run(int argc, char **argv)
{
    run_ctx c = {0};
    shc_pty_opts o = {0};
    char *joined = NULL;
    shc_run_sandbox sb = {0};
    int i = 0, taken;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            return usage(stdout);
        } else if (!strcmp(a, "--json")) {
            c.json = true;
        } else if (!strcmp(a, "--login")) {
            o.login = true;
        } else if (!strcmp(a, "--verify")) {
            c.verify = true;
        } else if (!strcmp(a, "--as") && i + 1 < argc) {
            c.as = argv[++i];
            if (strcmp(c.as, "read") && strcmp(c.as, "search") && strcmp(c.as, "list") &&
                strcmp(c.as, "terminal")) {
                fprintf(stderr, "shcard run: bad --as '%s' (read, search, list or terminal)\n",
                        c.as);
                return 2;
            }
        } else if (!strcmp(a, "--grace") && i + 1 < argc) {
            char *end;
            double t = strtod(argv[++i], &end);
            if (*end || !(t > 0) || t > 1e6) {
                fprintf(stderr, "shcard run: bad --grace '%s' (seconds, e.g. 3)\n", argv[i]);
                return 2;
            }
            c.grace_ms = (uint64_t)(t * 1000.0 + 0.5);
        } else if ((taken = shc__run_sandbox_opt(&sb, argc, argv, &i)) != 0) {
            if (taken < 0)
                return 2;
        } else if (!strcmp(a, "--cwd") && i + 1 < argc) {
            o.cwd = argv[++i];
        } else if (!strcmp(a, "--timeout") && i + 1 < argc) {
            char *end;
            double t = strtod(argv[++i], &end);
            if (*end || !(t >= 0) || t > 1e9) {
                fprintf(stderr, "shcard run: bad --timeout '%s' (seconds, e.g. 2.5)\n", argv[i]);
                return 2;
            }
            o.timeout_ms = (uint64_t)(t * 1000.0 + 0.5);
            if (t > 0 && !o.timeout_ms)
                o.timeout_ms = 1;
        } else if (a[0] == '-' && a[1] == '-') {
            fprintf(stderr, "shcard run: unknown option '%s'\n", a);
            return usage(stderr);
        } else {
            break;
        }
    }
    if (i >= argc)
        return usage(stderr);
    if (argc - i == 1) {
        o.command = argv[i];
    } else { /* several words: run them as one command line */
        size_t n = 0;
        for (int k = i; k < argc; k++)
            n += strlen(argv[k]) + 1;
        joined = malloc(n);
        if (!joined)
            return 127;
        joined[0] = 0;
        for (int k = i; k < argc; k++) {
            strcat(joined, argv[k]);
            if (k + 1 < argc)
                strcat(joined, " ");
        }
        o.command = joined;
    }
    o.on_output = on_output;
    o.on_exit = on_exit_cb;
    o.payload = &c;

    if (c.as && !c.verify) {
        fprintf(stderr, "shcard run: --as needs --verify\n");
        free(joined);
        return 2;
    }
    char *reason = NULL, *programs = NULL;
    shc_kind kind = print_card(o.command, o.cwd, &reason);
    const char *card = c.as ? c.as : shc_kind_name(kind);
    bool watch = c.verify && strcmp(card, "terminal") != 0; /* terminal cards: never watched */
    size_t plen = 0;
    shc_confine_spec spec = {.flags = 0};
    if (watch) {
        spec.flags |= SHC_CONFINE_WATCH;
        bool login = false;
        programs = shc__programs(o.command, strlen(o.command), &plen, &login);
        if (login || o.login)
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
    int status = shc__run_sandbox_prepare(&sb, &spec, &o.env);
    if (status)
        goto done;
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
    if (shc_pty_spawn(&c.pty, ex, &o, &err) != 0) {
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
    if (c.verify && c.finished)
        report(&c, o.command, o.cwd, kind, card, reason, watched);
done:
    shc_pty_free(c.pty);
    shc_exec_free(ex);
    shc_loop_free(loop);
    free(joined);
    free(reason);
    free(programs);
    json_decref(c.events);
    shc__run_sandbox_done(&sb);
    return status;
}
