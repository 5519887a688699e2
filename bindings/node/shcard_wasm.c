/* The WebAssembly build's glue (make npm): what index.js calls, over the same core files as
 * libshcard (Makefile CORE_SRC), compiled with clang --target=wasm32-wasi against Debian's
 * wasi-libc.  The module imports no file system: the stat() and realpath() the classifier does
 * with a cwd (classify/paths.c, classify/classify.c, classify/repo.c) are this file's, answered by the host
 * through env.shcard_stat and env.shcard_realpath, which index.js implements with Node's fs (a
 * browser has none: no cwd there). */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "shcard.h"

#define EXPORT(name) __attribute__((export_name(name), visibility("default")))

char *shcw_classify(const char *cmd, size_t len, int no_unwrap, const char *cwd, int context,
                    size_t *out_len);
void *shcw_alloc(size_t n);
void shcw_free(void *p);
const char *shcw_version(void);

/* The host's stat(2), following symbolic links: the S_IFMT bits of the file's mode, or 0 when
 * it cannot be stat()ed (missing, no permission). */
__attribute__((import_module("env"), import_name("shcard_stat"))) extern unsigned
shcard_stat(const char *path, size_t len);

/* The host's realpath(3) of path into out[0..cap): the length, or -1 when it fails (missing,
 * a loop, no permission); a length >= cap means it did not fit. */
__attribute__((import_module("env"), import_name("shcard_realpath"))) extern long
shcard_realpath(const char *path, size_t len, char *out, size_t cap);

char *realpath(const char *restrict path, char *restrict resolved)
{
    char *out = resolved ? resolved : malloc(PATH_MAX);
    if (!out)
        return NULL;
    long n = shcard_realpath(path, strlen(path), out, PATH_MAX);
    if (n < 0 || n >= PATH_MAX) {
        if (!resolved)
            free(out);
        errno = n < 0 ? ENOENT : ENAMETOOLONG;
        return NULL;
    }
    out[n] = '\0';
    return out;
}

int stat(const char *restrict path, struct stat *restrict st)
{
    unsigned mode = shcard_stat(path, strlen(path));
    if (!mode) {
        errno = ENOENT;
        return -1;
    }
    memset(st, 0, sizeof *st);
    st->st_mode = (mode_t)mode;
    return 0;
}

/* The host has no lstat: a symbolic link is judged by what it leads to (classify/repo.c then
 * sees the target's type; a file it cannot open, such as a git config, is refused). */
int lstat(const char *restrict path, struct stat *restrict st)
{
    return stat(path, st);
}

/* shc_classify_ex + shc_verdict_to_json in one call: the verdict's JSON (NUL-terminated, owned
 * by the caller: shc_free), its length in *out_len; NULL when out of memory or for a context
 * that is none. */
EXPORT("shcw_classify")
char *shcw_classify(const char *cmd, size_t len, int no_unwrap, const char *cwd, int context,
                    size_t *out_len)
{
    shc_classify_opts o = SHC_CLASSIFY_OPTS_INIT;
    o.no_unwrap = no_unwrap != 0;
    o.cwd = cwd;
    o.context = (shc_context)context;
    shc_verdict *v = NULL;
    if (shc_classify_ex(&v, cmd, len, &o) != 0)
        return NULL;
    char *json = shc_verdict_to_json(v, cmd, len, out_len);
    shc_verdict_free(v);
    return json;
}

EXPORT("shcw_alloc") void *shcw_alloc(size_t n)
{
    return malloc(n ? n : 1);
}

EXPORT("shcw_free") void shcw_free(void *p)
{
    free(p);
}

EXPORT("shcw_version") const char *shcw_version(void)
{
    return shc_version();
}
