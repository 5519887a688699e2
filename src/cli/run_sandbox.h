/* shcard run's sandbox options (--sandbox, --allow-network, --writable, --sandbox-fallback) and
 * what they set up around the command: the spec, a private TMPDIR in workspace mode, the notice
 * when the kernel has no Landlock.  Internal to src/cli/. */
#ifndef SHC_CLI_RUN_SANDBOX_H
#define SHC_CLI_RUN_SANDBOX_H

#include <stdbool.h>
#include <stddef.h>

#include "confine/confine.h"

typedef struct shc_run_sandbox {
    int mode;          /* SHC_SANDBOX_* */
    bool network;      /* --allow-network */
    bool fallback_off; /* --sandbox-fallback off: run unsandboxed where Landlock is missing */
    const char *roots[32]; /* --writable, borrowed from argv */
    size_t nroots;
    char *writable;    /* owned: the roots, each NUL-terminated (absolute, resolved) */
    size_t writable_len;
    char *tmpdir;      /* owned: the private TMPDIR (workspace mode), removed by done */
    char *env[2];      /* {"TMPDIR=...", NULL} for shc_pty_opts.env */
    int abi;           /* the Landlock ABI found by prepare */
    shc_gitsnap *git;  /* owned (workspace mode): the repository's control files before */
} shc_run_sandbox;

/* Takes argv[*i] (and its value) when it is a sandbox option: 1 taken (*i on its last word),
 * 0 not one, -1 bad (said on stderr).  Allocates nothing. */
int shc__run_sandbox_opt(shc_run_sandbox *sb, int argc, char **argv, int *i);
/* Fills spec's sandbox fields and, in workspace mode, the private TMPDIR (*env set to it, else
 * left alone).  0, or 127 when the command must not run (said on stderr). */
int shc__run_sandbox_prepare(shc_run_sandbox *sb, shc_confine_spec *spec,
                             const char *const **env, const char *cwd);
/* After the command (workspace mode): says on stderr which of the repository's files that make
 * git run programs it changed (in `.git`: config, hooks ...), if any. */
void shc__run_sandbox_after(shc_run_sandbox *sb);
/* Removes the private TMPDIR and frees. */
void shc__run_sandbox_done(shc_run_sandbox *sb);

#endif
