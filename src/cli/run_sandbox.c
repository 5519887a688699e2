/* shcard run's sandbox options (run_sandbox.h). */
#define _GNU_SOURCE
#include "cli/run_sandbox.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int add_root(shc_run_sandbox *sb, const char *dir)
{
    char *real = realpath(dir, NULL);
    if (!real) {
        fprintf(stderr, "shcard run: --writable '%s': %s\n", dir, strerror(errno));
        return -1;
    }
    size_t n = strlen(real) + 1;
    char *w = realloc(sb->writable, sb->writable_len + n);
    if (!w) {
        free(real);
        return -1;
    }
    memcpy(w + sb->writable_len, real, n);
    sb->writable = w;
    sb->writable_len += n;
    free(real);
    return 0;
}

int shc__run_sandbox_opt(shc_run_sandbox *sb, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    bool has_value = *i + 1 < argc;
    if (!strcmp(a, "--allow-network")) {
        sb->network = true;
        return 1;
    }
    if (!strcmp(a, "--sandbox") && has_value) {
        int m = shc_sandbox_parse(argv[++*i]);
        if (m < 0) {
            fprintf(stderr, "shcard run: bad --sandbox '%s' (off, read-only or workspace)\n",
                    argv[*i]);
            return -1;
        }
        sb->mode = m;
        return 1;
    }
    if (!strcmp(a, "--writable") && has_value) {
        if (sb->nroots == sizeof sb->roots / sizeof sb->roots[0]) {
            fprintf(stderr, "shcard run: at most %zu --writable\n", sb->nroots);
            return -1;
        }
        sb->roots[sb->nroots++] = argv[++*i];
        return 1;
    }
    if (!strcmp(a, "--sandbox-fallback") && has_value) {
        const char *v = argv[++*i];
        if (strcmp(v, "refuse") && strcmp(v, "off")) {
            fprintf(stderr, "shcard run: bad --sandbox-fallback '%s' (refuse or off)\n", v);
            return -1;
        }
        sb->fallback_off = !strcmp(v, "off");
        return 1;
    }
    return 0;
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

int shc__run_sandbox_prepare(shc_run_sandbox *sb, shc_confine_spec *spec,
                             const char *const **env, const char *cwd)
{
    if (sb->mode == SHC_SANDBOX_OFF)
        return 0;
    for (size_t k = 0; k < sb->nroots; k++)
        if (add_root(sb, sb->roots[k]) != 0)
            return 127;
    const char *why = NULL;
    sb->abi = shc_sandbox_abi(&why);
    if (!sb->abi) {
        fprintf(stderr, "shcard run: no sandbox: %s; %s\n", why,
                sb->fallback_off ? "running unsandboxed (--sandbox-fallback off)"
                                 : "not running the command (--sandbox-fallback off runs it "
                                   "unsandboxed)");
        if (!sb->fallback_off)
            return 127;
        sb->mode = SHC_SANDBOX_OFF;
        return 0;
    }
    if (sb->mode == SHC_SANDBOX_WORKSPACE) {
        const char *base = getenv("TMPDIR");
        char tmpl[PATH_MAX];
        shc_sandbox_sweep(); /* what a `shcard run` killed with SIGKILL left */
        int n = snprintf(tmpl, sizeof tmpl, "%s/shcard-sandbox-%d-XXXXXX",
                         base && base[0] == '/' ? base : "/tmp", (int)getpid());
        if (n < 0 || (size_t)n >= sizeof tmpl || !mkdtemp(tmpl)) {
            fprintf(stderr, "shcard run: cannot create the command's TMPDIR: %s\n",
                    strerror(errno));
            return 127;
        }
        sb->tmpdir = strdup(tmpl);
        size_t len = strlen(tmpl) + sizeof "TMPDIR=";
        sb->env[0] = malloc(len);
        if (!sb->tmpdir || !sb->env[0] || add_root(sb, tmpl) != 0) {
            fprintf(stderr, "shcard run: out of memory\n");
            return 127;
        }
        snprintf(sb->env[0], len, "TMPDIR=%s", tmpl);
        *env = (const char *const *)sb->env;
        sb->git = shc_gitsnap_take(cwd);
    }
    spec->sandbox = (unsigned)sb->mode;
    if (sb->network)
        spec->flags |= SHC_CONFINE_NETWORK;
    spec->writable = sb->writable;
    spec->writable_len = sb->writable_len;
    return 0;
}

void shc__run_sandbox_after(shc_run_sandbox *sb)
{
    shc_gitsnap *after = NULL; /* a stat pass first: no second scan when nothing changed */
    char *what = sb->git ? shc_gitsnap_changed_keep(sb->git, &after) : NULL;
    sb->git = after;
    if (what)
        fprintf(stderr,
                "shcard run: the sandboxed command changed the repository's control files: %s. "
                "git runs hooks and configured programs outside any sandbox: check them before "
                "running git here unsandboxed.\n",
                what);
    free(what);
}

void shc__run_sandbox_done(shc_run_sandbox *sb)
{
    shc_gitsnap_free(sb->git);
    if (sb->tmpdir)
        nftw(sb->tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    free(sb->tmpdir);
    free(sb->env[0]);
    free(sb->writable);
    memset(sb, 0, sizeof *sb);
}
