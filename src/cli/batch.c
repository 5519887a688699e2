#include "cli/batch.h"

#include <stdlib.h>
#include <string.h>

void shc__print_json_line(const json_t *o)
{
    char *s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_PRESERVE_ORDER);
    if (s) {
        fputs(s, stdout);
        fputc('\n', stdout);
        free(s);
    } else {
        fputs("{\"error\":{\"kind\":\"nomem\",\"message\":\"out of memory\"}}\n", stdout);
    }
    fflush(stdout);
}

static json_t *line_error(const char *kind, const char *msg, size_t lineno)
{
    json_t *o = json_object();
    json_t *e = json_object();
    json_object_set_new(e, "kind", json_string(kind));
    json_object_set_new(e, "message", json_string(msg));
    json_object_set_new(o, "error", e);
    json_object_set_new(o, "line", json_integer((json_int_t)lineno));
    return o;
}

int shc__batch(FILE *in, shc_batch_fn fn, void *payload)
{
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t n;
    int status = 0;
    while ((n = getline(&line, &cap, in)) != -1) {
        lineno++;
        size_t len = (size_t)n;
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            len--;
        if (len == 0)
            continue; /* blank lines are not requests */
        json_error_t err;
        json_t *req = json_loadb(line, len, JSON_ALLOW_NUL, &err);
        json_t *out;
        json_t *cmd = req ? json_object_get(req, "cmd") : NULL;
        if (!req) {
            char msg[256];
            snprintf(msg, sizeof msg, "invalid JSON: %s (column %d)", err.text, err.column);
            out = line_error("json", msg, lineno);
            status = 1;
        } else if (!json_is_string(cmd)) {
            out = line_error("request", "expected an object with a \"cmd\" string", lineno);
            status = 1;
        } else {
            out = fn(json_string_value(cmd), json_string_length(cmd), payload, &status);
        }
        shc__print_json_line(out);
        json_decref(out);
        json_decref(req);
    }
    free(line);
    return status;
}

int shc__run_commands(const char *prog, bool batch, int argc, char **argv, int first,
                      shc_one_fn one, shc_batch_fn each, void *payload, void (*usage)(FILE *))
{
    if (batch) {
        if (first < argc) {
            fprintf(stderr, "shcard %s: --batch reads commands from stdin, not arguments\n", prog);
            return 2;
        }
        return shc__batch(stdin, each, payload);
    }
    if (first >= argc) {
        usage(stderr);
        return 2;
    }
    int status = 0;
    for (int i = first; i < argc; i++)
        if (one(argv[i], strlen(argv[i]), payload))
            status = 1;
    return status;
}
