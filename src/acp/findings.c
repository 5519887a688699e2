/* The findings file and the events' JSON (findings.h). */
#define _GNU_SOURCE
#include "acp/findings.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

json_t *shc_finding_event(const shc_confine_event *ev)
{
    return json_pack("{s:s,s:s,s:s,s:i}", "what", ev->what, "syscall", ev->syscall, "detail",
                     ev->detail, "pid", (int)ev->pid);
}

json_t *shc_finding_fact(const char *what, const char *detail)
{
    return json_pack("{s:s,s:s}", "what", what, "detail", detail);
}

const char *shc_finding_text(json_t *ev, char *buf, size_t cap)
{
    const char *what = json_string_value(json_object_get(ev, "what"));
    const char *detail = json_string_value(json_object_get(ev, "detail"));
    const char *sc = json_string_value(json_object_get(ev, "syscall"));
    if (!what || !detail) {
        snprintf(buf, cap, "it did something a card command must not do");
        return buf;
    }
    if (!sc) { /* slow, input: the detail says it */
        snprintf(buf, cap, "%s", detail);
        return buf;
    }
    shc_confine_event e;
    memset(&e, 0, sizeof e);
    e.what = what;
    e.syscall = sc;
    snprintf(e.detail, sizeof e.detail, "%s", detail);
    return shc_confine_event_text(&e, buf, cap);
}

/* mkdir -p for the directories above path (0700). */
static int make_parents(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        int r = mkdir(path, 0700);
        int e = errno;
        *p = '/';
        if (r != 0 && e != EEXIST)
            return -e;
    }
    return 0;
}

int shc_findings_append(const char *cmd, const char *cwd, const char *card, const char *kind,
                        const char *reason, json_t *events)
{
    char path[4096];
    const char *f = getenv("SHCARD_FINDINGS"), *st = getenv("XDG_STATE_HOME"),
               *home = getenv("HOME");
    if (f && *f)
        snprintf(path, sizeof path, "%s", f);
    else if (st && st[0] == '/')
        snprintf(path, sizeof path, "%s/shcard/findings.jsonl", st);
    else if (home && home[0] == '/')
        snprintf(path, sizeof path, "%s/.local/state/shcard/findings.jsonl", home);
    else
        return -ENOENT;
    int rc = make_parents(path);
    if (rc)
        return rc;
    char at[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
    json_t *o = json_pack("{s:s,s:s,s:s?,s:s,s:s,s:s?,s:O}", "at", at, "cmd", cmd, "cwd", cwd,
                          "card", card, "kind", kind, "reason", reason, "events", events);
    char *line = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    if (!line)
        return -ENOMEM;
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
    rc = fd < 0 ? -errno : 0;
    if (fd >= 0) {
        flock(fd, LOCK_EX); /* several agents may append at once: whole lines */
        size_t n = strlen(line);
        line[n] = '\n';
        if (write(fd, line, n + 1) != (ssize_t)(n + 1))
            rc = -EIO;
        close(fd);
    }
    free(line);
    return rc;
}
