/* shcard public API (libshcard): parse a shell command into an AST, classify it into a card.
 *
 *     #include <shcard.h>          cc prog.c $(pkg-config --cflags --libs shcard)
 *
 *     shc_verdict *v;
 *     if (shc_classify(&v, cmd, strlen(cmd), true) == 0) {
 *         printf("%s: %s\n", shc_kind_name(v->kind), v->title);   // "read: Read file 'a.c'"
 *         shc_verdict_free(v);
 *     }
 *
 * The library is the classifier core: parse, classify, the verdict as JSON.  It links nothing
 * but libc (no jansson, no libcurl, no executor).  Classification is display-only: a verdict
 * names the card a command gets; it never decides whether or how the command runs.  Everything
 * it does not positively recognise is SHC_KIND_TERMINAL with a reason (it fails closed).
 * shcard(3) is the manual page.
 *
 * ABI: the shared library is libshcard.so.0 (SONAME), symbols versioned SHCARD_0.  Adding a
 * function keeps the SONAME; changing or removing an exported function, a public struct's
 * layout or an enum value bumps it (README, "Library ABI").  Options structs carry a version
 * and grow only at the end.
 *
 * Ownership: a parse owns one arena (shc_ast); every node, word and string reachable from it
 * is borrowed and lives until shc_ast_free().  Spans are byte offsets into the parsed text
 * (for a wrapped command, the decoded inner script: see shc_ast.script).  A verdict is a
 * heap object owned by the caller and freed with shc_verdict_free().  No function keeps
 * global mutable state; every call is reentrant.
 */
#ifndef SHC_H
#define SHC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHC_VERSION "0.1.0"

/* What the library exports: every function declared here, nothing else (the rest is built with
 * -fvisibility=hidden and the linker's version script lib/libshcard.map). */
#if defined(__GNUC__) || defined(__clang__)
#define SHC_API __attribute__((visibility("default")))
#else
#define SHC_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version, SHC_VERSION of the build that made it (the header a program was
 * compiled with may be older). */
SHC_API const char *shc_version(void);

/* ------------------------------------------------------------------ spans and diagnostics */

typedef struct shc_span {
    uint32_t start; /* byte offset of the first byte */
    uint32_t end;   /* byte offset one past the last byte */
} shc_span;

typedef enum shc_err {
    SHC_OK = 0,
    SHC_E_SYNTAX = -1,      /* malformed shell */
    SHC_E_UNSUPPORTED = -2, /* valid shell outside the supported subset */
    SHC_E_LIMIT = -3,       /* input length, nesting depth or arena size */
    SHC_E_NOMEM = -4,
    SHC_E_IO = -5,
    SHC_E_USAGE = -6,
} shc_err;

/* First error wins: once code != 0, later reports are ignored.  No allocation. */
typedef struct shc_diag {
    int code;        /* shc_err */
    shc_span span;   /* where, in the parsed text */
    bool incomplete; /* more input could make it valid (unterminated quote, trailing |) */
    char text[160];  /* the message, e.g. "command substitution `$(` is outside the supported subset" */
} shc_diag;

/* "syntax", "unsupported", "limit", "nomem", "io", "usage" or "ok" */
SHC_API const char *shc_err_kind(int code);

/* ------------------------------------------------------------------ words */

typedef enum shc_part_kind {
    SHC_PART_LIT,       /* unquoted literal text (value is the text, escapes already removed) */
    SHC_PART_ESC,       /* unquoted backslash escape: value is the escaped character */
    SHC_PART_SGL,       /* '...': value is the contents */
    SHC_PART_DBL,       /* "...": parts holds its own parts (LIT, ESC, PARAM) */
    SHC_PART_ANSIC,     /* $'...': value is the decoded string */
    SHC_PART_LOCALE,    /* $"...": treated like "..." (parts) */
    SHC_PART_PARAM,     /* $name, $1, $@, ${...}: value is the raw text; an expansion */
} shc_part_kind;

typedef struct shc_part shc_part;
struct shc_part {
    shc_part_kind kind;
    shc_span span;    /* the part's source text, quotes included */
    const char *value; /* decoded text (arena), NUL-terminated; may contain NUL only for ANSIC */
    size_t len;        /* bytes in value */
    shc_part *parts;   /* DBL / LOCALE: nested parts */
    size_t nparts;
};

/* Facts the lexer computes once per word. */
enum {
    SHC_WORD_QUOTED = 1u << 0,    /* some part is quoted or escaped */
    SHC_WORD_GLOB = 1u << 1,      /* an unquoted * ? or [ */
    SHC_WORD_BRACE = 1u << 2,     /* an unquoted brace expansion {a,b} or {1..3} */
    SHC_WORD_TILDE = 1u << 3,     /* an unquoted leading ~ (tilde expansion) */
    SHC_WORD_EXPANSION = 1u << 4, /* a parameter expansion ($x, ${x}) anywhere */
    SHC_WORD_ESCAPED = 1u << 5,   /* an unquoted backslash escape */
    SHC_WORD_ASSIGN_TILDE = 1u << 6, /* assignment value with an unquoted ~ after = or : */
};

typedef struct shc_word {
    shc_span span;
    unsigned flags;    /* SHC_WORD_* */
    shc_part *parts;
    size_t nparts;
    const char *value; /* decoded static value (quote removal), or NULL when EXPANSION is set */
    size_t len;
} shc_word;

/* ------------------------------------------------------------------ commands */

typedef enum shc_redir_op {
    SHC_REDIR_IN,          /* [n]<   */
    SHC_REDIR_OUT,         /* [n]>   */
    SHC_REDIR_APPEND,      /* [n]>>  */
    SHC_REDIR_CLOBBER,     /* [n]>|  */
    SHC_REDIR_RDWR,        /* [n]<>  */
    SHC_REDIR_DUP_OUT,     /* [n]>&  */
    SHC_REDIR_DUP_IN,      /* [n]<&  */
    SHC_REDIR_ALL,         /* &>     */
    SHC_REDIR_ALL_APPEND,  /* &>>    */
    SHC_REDIR_HERESTRING,  /* [n]<<< */
} shc_redir_op;

typedef struct shc_redir {
    shc_span span;     /* operator through target */
    int fd;            /* the explicit [n], or -1 when none was written */
    shc_redir_op op;
    shc_word target;   /* file name, fd number, or "-" */
} shc_redir;

typedef struct shc_assign {
    shc_span span;
    const char *name; /* NUL-terminated, arena */
    bool append;      /* NAME+=value */
    shc_word value;   /* possibly empty (no parts) */
} shc_assign;

typedef enum shc_node_kind {
    SHC_NODE_LIST, /* items separated by ; & or newline */
    SHC_NODE_AND,  /* left && right */
    SHC_NODE_OR,   /* left || right */
    SHC_NODE_PIPE, /* cmd | cmd |& cmd ..., optionally negated with ! */
    SHC_NODE_CALL, /* a simple command */
} shc_node_kind;

typedef enum shc_sep {
    SHC_SEP_NONE,    /* last item, nothing after it */
    SHC_SEP_SEMI,    /* ; */
    SHC_SEP_AMP,     /* & (runs in the background) */
    SHC_SEP_NEWLINE, /* newline */
} shc_sep;

typedef struct shc_node shc_node;

typedef struct shc_list {
    shc_node **items;
    shc_sep *seps; /* seps[i] follows items[i] */
    size_t n;
} shc_list;

typedef struct shc_binary {
    shc_node *left, *right;
    shc_span op; /* the && or || */
} shc_binary;

typedef struct shc_pipeline {
    shc_node **cmds; /* each a SHC_NODE_CALL */
    bool *stderr_too; /* stderr_too[i]: the pipe after cmds[i] is |& */
    size_t n;
    bool negated; /* leading ! */
} shc_pipeline;

typedef struct shc_call {
    shc_assign *assigns;
    size_t nassigns;
    shc_word *words; /* words[0] is the command name */
    size_t nwords;
    shc_redir *redirs; /* in source order, wherever they appear */
    size_t nredirs;
} shc_call;

struct shc_node {
    shc_node_kind kind;
    shc_span span;
    union {
        shc_list list;
        shc_binary binary;
        shc_pipeline pipe;
        shc_call call;
    } u;
};

/* ------------------------------------------------------------------ parsing */

typedef struct shc_limits {
    size_t max_input; /* bytes; default 64 KiB */
    size_t max_depth; /* nesting (and-or / pipeline / list depth); default 64 */
    size_t max_arena; /* bytes; default 16 MiB (a 64 KiB command of one-letter words needs ~8) */
} shc_limits;

#define SHC_LIMITS_DEFAULT {64u * 1024u, 64u, 16u * 1024u * 1024u}

typedef struct shc_wrapper {
    bool present;      /* the command was [/bin/|/usr/bin/|/usr/local/bin/]bash|sh -c|-lc SCRIPT */
    const char *shell; /* "bash" or "sh" (static; an sh script is parsed as POSIX sh) */
    const char *path;  /* the command word as written, e.g. "/bin/bash" (arena) */
    const char *flag;  /* "-c" or "-lc" (arena) */
} shc_wrapper;

typedef struct shc_arena shc_arena;

typedef struct shc_ast {
    shc_arena *arena;
    const char *script; /* the text the spans refer to: the input, or the decoded SCRIPT */
    size_t script_len;
    shc_node *root;     /* a SHC_NODE_LIST (possibly empty); NULL after an error */
    shc_wrapper wrapper;
} shc_ast;

/* Parses src[0..len) (which may contain NUL bytes; they are rejected with their offset).
 * With unwrap, a command that is exactly `[/bin/|/usr/bin/|/usr/local/bin/]bash|sh -c|-lc
 * SCRIPT` is unwrapped and SCRIPT is parsed instead (ast->wrapper says so); an sh script is held
 * to POSIX sh (bash-only forms such as $'...' and &> are unsupported there).  limits may be NULL for the defaults.
 * On success returns 0 and *out is an owned AST (free with shc_ast_free).  On failure returns
 * a negative shc_err, fills diag (first error wins) and still sets *out (root NULL) when the
 * failure came after the wrapper was recognised, so callers can render against ast->script;
 * *out is NULL only when nothing could be allocated.  src is copied; it need not outlive *out. */
SHC_API int shc_parse(shc_ast **out, const char *src, size_t len, bool unwrap, const shc_limits *limits,
              shc_diag *diag);

SHC_API void shc_ast_free(shc_ast *ast); /* NULL-safe */

/* Calls fn for every simple command, in source order. */
typedef void (*shc_call_fn)(const shc_node *call, void *payload);
SHC_API void shc_ast_each_call(const shc_node *root, shc_call_fn fn, void *payload);

/* Writes the diagnostic for people: "input:1:5: message", the source line, and a caret line.
 * Returns the number of bytes it would write (snprintf-style). */
SHC_API size_t shc_diag_render(char *buf, size_t cap, const shc_diag *diag, const char *src, size_t len);

/* ------------------------------------------------------------------ classification */

typedef enum shc_kind {
    SHC_KIND_TERMINAL = 0, /* the default: run it in a terminal card */
    SHC_KIND_READ,
    SHC_KIND_SEARCH,
    SHC_KIND_LIST,
} shc_kind;

SHC_API const char *shc_kind_name(shc_kind kind); /* "terminal", "read", "search", "list" */

typedef struct shc_location {
    char *path; /* as written, joined onto a preceding cd DIR (owned by the verdict) */
    long line;  /* 1-based first line, or 0 when none */
} shc_location;

typedef struct shc_verdict {
    shc_kind kind;
    char *title;  /* e.g. "Read file 'src/foo.ts' (lines 1-40)"; for terminal, the command */
    char *path;   /* file read, search root or listed directory; NULL when none */
    char *query;  /* search pattern after quote removal; NULL when none */
    long line;    /* first line shown, or 0 */
    shc_location *locations;
    size_t nlocations;
    char *reason;      /* why terminal (or which rule accepted); never NULL */
    shc_span reason_span; /* span in ast script of the word or construct that decided */
    char **argv;       /* the primary command's decoded argv (NULL-terminated), or NULL */
    size_t argc;
    bool wrapped;      /* the bash -lc wrapper was stripped */
    char *script;      /* the text spans refer to (the unwrapped script) */
    int parse_error;   /* 0, or the shc_err of a failed parse */
} shc_verdict;

/* Classifies a command.  unwrap as for shc_parse.  Never fails for bad input: a command that
 * cannot be parsed is a terminal verdict whose reason is the diagnostic.  Returns 0 and an
 * owned *out (free with shc_verdict_free), or SHC_E_NOMEM with *out NULL.  Does no I/O. */
SHC_API int shc_classify(shc_verdict **out, const char *cmd, size_t len, bool unwrap);

/* Where the command will run.  The verdict may depend on it, never on a guess. */
typedef enum shc_context {
    SHC_CONTEXT_ANY = 0, /* unknown: stdin may be a terminal or an open pipe, a pager may start */
    SHC_CONTEXT_BRIDGE,  /* shcard's executor (shcard acp, shcard run): stdin is /dev/null,
                            stdout and stderr a PTY, PAGER/GIT_PAGER/GH_PAGER/MANPAGER=cat,
                            BAT_PAGER empty: nothing pages */
} shc_context;

/* "any" or "bridge"; NULL for a value that is no context. */
SHC_API const char *shc_context_name(shc_context context);

/* Options of shc_classify_ex.  Start from SHC_CLASSIFY_OPTS_INIT: fields may be added at the end
 * (with a new version number, so that the library reads a field only from callers compiled with
 * a header that has it), never moved.  Version 1: no_unwrap, cwd, context. */
typedef struct shc_classify_opts {
    unsigned version; /* SHC_CLASSIFY_OPTS_VERSION */
    bool no_unwrap;   /* classify `bash -lc '...'` as written (as bash: terminal) */
    const char *cwd;  /* the absolute directory the command will run in, or NULL (unknown).  When
                       * set, relative paths are judged from it, and every file the verdict would
                       * read and every directory it would walk is stat()ed: a FIFO, a device or a
                       * socket (also through a symlink) makes the verdict terminal.  This is the
                       * only I/O the classifier does. */
    shc_context context; /* SHC_CONTEXT_ANY unless the caller knows better */
} shc_classify_opts;

#define SHC_CLASSIFY_OPTS_VERSION 1
#define SHC_CLASSIFY_OPTS_INIT {SHC_CLASSIFY_OPTS_VERSION, false, NULL, SHC_CONTEXT_ANY}

/* shc_classify with options (opts NULL: the defaults).  Same contract as shc_classify;
 * SHC_E_USAGE for an unknown opts->version. */
SHC_API int shc_classify_ex(shc_verdict **out, const char *cmd, size_t len, const shc_classify_opts *opts);

SHC_API void shc_verdict_free(shc_verdict *v); /* NULL-safe */

/* The verdict as one line of compact JSON: exactly the bytes `shcard explain --json` prints for
 * the same command, without the newline.  Fields, in this order: cmd, kind ("terminal", "read",
 * "search", "list"), title, path, query, line, locations [{path, line}], reason, span {start,
 * end} (byte offsets into script), script, wrapped, argv; null where there is none (line 0 is
 * null).  ASCII only: other characters are \uXXXX escapes, and invalid UTF-8 is U+FFFD.
 * cmd[0..len) is the command as given (it may hold NUL bytes); with cmd NULL the field is the
 * verdict's script.  Returns a NUL-terminated string owned by the caller (free with shc_free)
 * and, when out_len is not NULL, its length in *out_len; NULL when out of memory. */
SHC_API char *shc_verdict_to_json(const shc_verdict *v, const char *cmd, size_t len,
                                  size_t *out_len);

/* Frees what the library returned as char * (shc_verdict_to_json); NULL-safe.  Callers outside
 * C (ctypes, WebAssembly) need not know which allocator that is. */
SHC_API void shc_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
