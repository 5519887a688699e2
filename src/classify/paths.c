/* Paths the classifier judges, after lexical normalisation: every file a rule reads, every
 * search root and listed directory, every `cd DIR`, every file-valued option value, joined onto
 * the `cd` prefix (and onto the real directory when the caller knows it).
 *
 * Normalisation is lexical, as the kernel would walk the name if no component were a symlink:
 * empty and `.` components vanish, `..` removes the previous one (and stays at `/` at the root).
 * The kernel resolves `..` after the link, so a `..` that removes a component of the path (not
 * of the `cd` prefix: bash's `cd` is itself lexical) marks the path SHC_PATH_LINKUP: without the
 * real directory it is terminal; with it, the caller judges the path the kernel resolves.
 * A relative path that climbs above its starting directory (`../..`) may end anywhere, the root
 * included, so it is judged as if the climb reached `/`: `../../proc` may be /proc, `..` may be
 * the whole filesystem.  Symlinks cannot be seen in the text; with a real directory the caller
 * also stat()s the files (shc__path_stat). */
#include "classify/policy.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#ifndef SHC_WASM_HOST_H
#include <unistd.h>
#endif

/* The directories whose files may block, never end, or are not files at all. */
#define SHC_HUGE_FILE (1LL << 30)

static const char *const special_dirs[] = {"dev", "proc", "sys", "run"};

static bool seg_is(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && !memcmp(s, w, n);
}

/* Appends the components of p to out[0..*len) (a "/a/b" string, "" for none).  A `..` that
 * removes a component sets *linkup when linkup is not NULL: the kernel resolves it after that
 * component, which may be a symbolic link (`usrlink/..` is `/` when usrlink -> /usr).  Returns
 * -1 when out would overflow. */
static int walk(char *out, size_t cap, size_t *len, unsigned *climb, bool absolute, const char *p,
                bool *linkup)
{
    while (*p) {
        while (*p == '/')
            p++;
        const char *s = p;
        while (*p && *p != '/')
            p++;
        size_t n = (size_t)(p - s);
        if (n == 0 || seg_is(s, n, "."))
            continue;
        if (seg_is(s, n, "..")) {
            if (*len > 0) {
                if (linkup)
                    *linkup = true;
                while (*len > 0 && out[*len - 1] != '/')
                    (*len)--;
                (*len)--; /* the '/' itself */
            } else if (!absolute) {
                (*climb)++;
            }
            continue;
        }
        if (*len + 1 + n + 1 > cap)
            return -1;
        out[(*len)++] = '/';
        memcpy(out + *len, s, n);
        *len += n;
    }
    out[*len] = '\0';
    return 0;
}

int shc__path_norm(shc_path *out, const char *base, const char *p)
{
    size_t len = 0;
    out->climb = 0;
    out->linkup = false;
    out->norm[0] = '\0';
    out->absolute = p[0] == '/' || (base && base[0] == '/');
    if (p[0] != '/' && base && walk(out->norm, sizeof out->norm, &len, &out->climb,
                                    out->absolute, base, NULL) < 0)
        return -1;
    if (walk(out->norm, sizeof out->norm, &len, &out->climb, out->absolute, p, &out->linkup) < 0)
        return -1;
    return 0;
}

unsigned shc__path_judge(const shc_path *np)
{
    unsigned up = np->linkup ? SHC_PATH_LINKUP : 0;
    if (!np->absolute && np->climb == 0)
        return up; /* below the starting directory */
    /* absolute, or climbing out: judged from the root */
    const char *s = np->norm;
    if (s[0] == '\0')
        return SHC_PATH_ROOT | up;
    s++;
    const char *e = strchr(s, '/');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    for (size_t i = 0; i < sizeof special_dirs / sizeof special_dirs[0]; i++)
        if (seg_is(s, n, special_dirs[i]))
            return SHC_PATH_SPECIAL | up;
    if (seg_is(s, n, "var") && e) { /* /var/run is a link to /run */
        const char *t = e + 1;
        const char *f = strchr(t, '/');
        if (seg_is(t, f ? (size_t)(f - t) : strlen(t), "run"))
            return SHC_PATH_SPECIAL | up;
    }
    return up;
}

unsigned shc__path_check(const char *base, const char *p, shc_path *np)
{
    if (!strcmp(p, "-"))
        return SHC_PATH_STDIN;
    if (shc__path_norm(np, base, p) < 0)
        return SHC_PATH_TOOLONG;
    return shc__path_judge(np);
}

/* Whether w holds "dev", "proc", "sys" or "run" (a piece naming a special directory holds one
 * as its first component, and so does every match of the textual rule), or is long enough to
 * be judged too long: otherwise neither rule below can fire, and most paths skip them. */
static bool may_name_special(const char *w)
{
    size_t i = 0;
    for (; w[i]; i++) {
        const char *p = w + i;
        switch (p[0]) {
        case 'd': if (p[1] == 'e' && p[2] == 'v') return true; break;
        case 'p': if (p[1] == 'r' && p[2] == 'o' && p[3] == 'c') return true; break;
        case 's': if (p[1] == 'y' && p[2] == 's') return true; break;
        case 'r': if (p[1] == 'u' && p[2] == 'n') return true; break;
        default: break;
        }
    }
    return i + 2 >= sizeof(((shc_path *)NULL)->norm);
}

bool shc__word_names_special(const char *w)
{
    /* both rules below need a '/': most words have none (-name, f, 2) */
    if (!strchr(w, '/') || !may_name_special(w))
        return false;
    /* any piece after '=', ':' or ',' may be a path an option opens (--ignore-file=/dev/tty) */
    shc_path np;
    const char *s = w;
    for (;;) {
        size_t n = strcspn(s, "=:,");
        if (memchr(s, '/', n)) {
            char piece[sizeof np.norm];
            if (n >= sizeof piece)
                return true; /* too long to judge: assume the worst */
            memcpy(piece, s, n);
            piece[n] = '\0';
            if (shc__path_check(NULL, piece, &np) & (SHC_PATH_SPECIAL | SHC_PATH_TOOLONG))
                return true;
        }
        if (!s[n])
            break;
        s += n + 1;
    }
    /* and the old textual rule, a superset for names inside longer words: "x/dev/y" */
    for (const char *p = strchr(w, '/'); p; p = strchr(p + 1, '/'))
        if (!strncmp(p + 1, "dev/", 4) || !strncmp(p + 1, "proc/", 5) ||
            !strncmp(p + 1, "sys/", 4))
            return true;
    return false;
}

const char *shc__path_stat(const char *abs_path)
{
    struct stat st;
    if (stat(abs_path, &st) != 0)
        return NULL; /* missing or unreadable: the tool reports it */
    if (S_ISFIFO(st.st_mode))
        return "a FIFO (reading it waits for a writer)";
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
        return "a device";
    if (S_ISSOCK(st.st_mode))
        return "a socket";
    /* a huge (often sparse) file: `head -n 1 big` over 2 TiB of zeros did not end */
    if (S_ISREG(st.st_mode) && st.st_size > SHC_HUGE_FILE)
        return "a file over 1 GiB (reading it may not end)";
    return NULL;
}

/* ls without -R opens only the directories it names (shallow: no -R, no `~` word): `/` and a
 * top system directory (/dev, /proc, /sys, /run) may be listed.  Deeper paths there keep the
 * rule (the oracle counts opening /dev/pts or /proc/self/ as touching a device or a process). */
unsigned shc__path_shallow(const char *base, const char *p, bool shallow, unsigned bad)
{
    if (!shallow || strstr(p, "..") || (base && strstr(base, "..")))
        return bad; /* `ls /usr/..` and `ls ../..` keep the rule: written as what they are */
    shc_path np;
    if (!strcmp(p, "-") || shc__path_norm(&np, base, p) < 0)
        return bad; /* "-" is not normalised; a path too long to judge keeps the rule */
    unsigned j = shc__path_judge(&np);
    if (j & SHC_PATH_ROOT)
        return bad & ~(unsigned)SHC_PATH_ROOT;
    if ((j & SHC_PATH_SPECIAL) && !strchr(np.norm + 1, '/'))
        return bad & ~(unsigned)SHC_PATH_SPECIAL;
    return bad;
}

/* The system directories whose trees hold most of the file system: walking one (or naming
 * several, `grep -r foo /usr /var /etc ...`) is walking `/` but for the pseudo file systems. */
static const char *const system_tops[] = {"bin",  "boot", "etc", "home",  "lib", "lib32",
                                          "lib64", "libx32", "media", "mnt", "nix", "opt",
                                          "root", "sbin", "snap", "srv",  "usr", "var"};
static const char *const usr_big[] = {"lib", "lib32", "lib64", "libexec", "local", "share", "src"};

static bool in_list(const char *s, size_t n, const char *const *list, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (seg_is(s, n, list[i]))
            return true;
    return false;
}

bool shc__path_system_root(const char *cd, const char *p)
{
    shc_path np;
    if (!strcmp(p, "-") || shc__path_norm(&np, cd, p) < 0)
        return false; /* judged elsewhere */
    if (!np.absolute && np.climb == 0)
        return false; /* below the starting directory */
    const char *s = np.norm[0] ? np.norm + 1 : np.norm, *e = strchr(s, '/');
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if (!in_list(s, n, system_tops, sizeof system_tops / sizeof *system_tops))
        return false;
    if (!e)
        return true;
    if (!seg_is(s, n, "usr"))
        return false;
    const char *t = e + 1, *f = strchr(t, '/');
    return !f && in_list(t, strlen(t), usr_big, sizeof usr_big / sizeof *usr_big);
}

/* Whether the text of a link names a proc, dev, sys or run directory in any component. */
static bool text_names_special(const char *text)
{
    for (const char *c = text; *c;) {
        size_t n = strcspn(c, "/");
        for (size_t i = 0; i < sizeof special_dirs / sizeof special_dirs[0]; i++)
            if (seg_is(c, n, special_dirs[i]))
                return true;
        c += n;
        while (*c == '/')
            c++;
    }
    return false;
}

bool shc__path_magic(const char *abs)
{
#ifdef SHC_WASM_HOST_H /* the WebAssembly build asks its host for stat() and realpath() only */
    (void)abs, (void)text_names_special;
    return false;
#else
    char done[4096] = "", rest[8192], text[4096], tmp[8192];
    size_t dl = 0, ro = 0;
    unsigned links = 0;
    if (abs[0] != '/' || snprintf(rest, sizeof rest, "%s", abs) >= (int)sizeof rest)
        return true;
    for (;;) {
        while (rest[ro] == '/')
            ro++;
        if (!rest[ro])
            return false;
        size_t s = ro;
        while (rest[ro] && rest[ro] != '/')
            ro++;
        size_t n = ro - s;
        if (seg_is(rest + s, n, "."))
            continue;
        if (seg_is(rest + s, n, "..")) { /* done holds no link: `..` is its parent */
            while (dl > 0 && done[dl - 1] != '/')
                dl--;
            dl = dl > 0 ? dl - 1 : 0;
            done[dl] = '\0';
            continue;
        }
        if (dl + 1 + n + 1 > sizeof done)
            return true;
        done[dl] = '/';
        memcpy(done + dl + 1, rest + s, n);
        done[dl + 1 + n] = '\0';
        /* a link led into /proc, /dev, /sys or /run: where the per-process links are */
        if (links > 0 && dl == 0 && text_names_special(done))
            return true;
        struct stat st;
        if (lstat(done, &st) != 0)
            return false; /* missing: nothing further resolves */
        if (!S_ISLNK(st.st_mode)) {
            dl += 1 + n;
            continue;
        }
        ssize_t t = readlink(done, text, sizeof text - 1);
        if (++links > 40 || t <= 0)
            return true;
        text[t] = '\0';
        if (text_names_special(text))
            return true;
        done[dl] = '\0';
        if (text[0] == '/')
            dl = 0, done[0] = '\0';
        int w = snprintf(tmp, sizeof tmp, "%s/%s", text, rest + ro);
        if (w < 0 || (size_t)w >= sizeof rest)
            return true;
        memcpy(rest, tmp, (size_t)w + 1);
        ro = 0;
    }
#endif
}
