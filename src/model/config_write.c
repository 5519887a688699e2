/* Changing the config file that config.c reads (what `shcard login` saves).  The file is
 * rewritten whole, never in place: a temporary file beside it (mode 0600 from its creation, since
 * it may hold the key), written, flushed to disk and renamed over the old one, so that a reader
 * (an agent that is running) sees the old file or the new one, never half of one.  Lines that
 * are not the keys being set (comments, blank lines, other settings) are kept as they were. */
#include "model/config_write.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "model/config.h"
#include "model/config_file.h"
#include "shcard.h"

/* The key of a `key = value` line (its bytes in line[*start, *end)), or false for a comment,
 * a blank line or anything else: config.c's tokenizer, so both agree on every line. */
static bool line_key(const char *line, size_t len, size_t *start, size_t *end)
{
    size_t vs, ve;
    return shc__config_line(line, len, start, end, &vs, &ve) == SHC_LINE_KV;
}

static const shc_config_set *find_set(const shc_config_set *set, size_t n, const char *k, size_t kl)
{
    for (size_t j = 0; j < n; j++)
        if (strlen(set[j].key) == kl && !memcmp(set[j].key, k, kl))
            return &set[j];
    return NULL;
}

/* What config.c reads back unchanged: no line break, no '#' (a comment), nothing the reader
 * trims, no control character. */
static int check_value(const shc_config_set *e, char *err, size_t errlen)
{
    const char *v = e->value;
    size_t n = strlen(v);
    if (n == 0 || n > SHC_CONFIG_MAX_VALUE) {
        snprintf(err, errlen, "%s: the value must have 1 to %d bytes", e->key,
                 SHC_CONFIG_MAX_VALUE);
        return SHC_E_USAGE;
    }
    if (v[0] == ' ' || v[0] == '\t' || v[n - 1] == ' ' || v[n - 1] == '\t') {
        snprintf(err, errlen, "%s: the value must not start or end with a space", e->key);
        return SHC_E_USAGE;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)v[i];
        if (ch < 0x20 || ch == 0x7f || ch == '#') {
            snprintf(err, errlen, "%s: the value must not hold '#' or a control character",
                     e->key);
            return SHC_E_USAGE;
        }
    }
    return 0;
}

/* The old file's text (empty when there is none).  Owned by the caller.  Only a regular file
 * of the user's is replaced: a symlink, a device, a FIFO or a directory at path is refused. */
static int read_old(const char *path, shc_strbuf *out, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return SHC_E_IO;
    }
    if (S_ISLNK(st.st_mode)) {
        snprintf(err, errlen,
                 "%s is a symbolic link: not replaced (give its target with --config, or remove "
                 "the link)",
                 path);
        return SHC_E_USAGE;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s is not a regular file: not replaced", path);
        return SHC_E_USAGE;
    }
    bool exists;
    unsigned mode;
    return shc__config_slurp(path, false, out, &exists, &mode, err, errlen);
}

/* The new text: the old lines with the keys in set replaced (the first line of a key) or
 * dropped (its later lines, or every line when its value is NULL), then the keys not seen. */
static void merge(const shc_strbuf *old, const shc_config_set *set, size_t n, shc_strbuf *out)
{
    bool seen[SHC_CONFIG_MAX_SET] = {false};
    size_t pos = 0;
    while (pos < old->n) {
        const char *line = old->p + pos;
        const char *nl = memchr(line, '\n', old->n - pos);
        size_t len = nl ? (size_t)(nl - line) : old->n - pos;
        pos += len + (nl ? 1 : 0);
        size_t ks, ke;
        const shc_config_set *e =
            line_key(line, len, &ks, &ke) ? find_set(set, n, line + ks, ke - ks) : NULL;
        if (!e) {
            shc_strbuf_put(out, line, len);
            shc_strbuf_putc(out, '\n');
            continue;
        }
        size_t j = (size_t)(e - set);
        if (!seen[j] && e->value)
            shc_strbuf_printf(out, "%s = %s\n", e->key, e->value);
        seen[j] = true;
    }
    for (size_t j = 0; j < n; j++)
        if (!seen[j] && set[j].value)
            shc_strbuf_printf(out, "%s = %s\n", set[j].key, set[j].value);
}

/* mkdir -p for the file's directory: every directory it makes is the user's alone (0700). */
static int make_dirs(const char *path, char *err, size_t errlen)
{
    char dir[4096];
    int n = snprintf(dir, sizeof dir, "%s", path);
    if (n < 0 || (size_t)n >= sizeof dir) {
        snprintf(err, errlen, "the config path is too long");
        return SHC_E_LIMIT;
    }
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
            snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
            return SHC_E_IO;
        }
        *p = '/';
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
        return SHC_E_IO;
    }
    return 0;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Writes text to a temporary file beside path and renames it over path. */
static int replace_file(const char *path, const shc_strbuf *text, char *err, size_t errlen)
{
    char tmp[4200];
    int n = snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    if (n < 0 || (size_t)n >= sizeof tmp) {
        snprintf(err, errlen, "the config path is too long");
        return SHC_E_LIMIT;
    }
    int fd = mkstemp(tmp); /* created 0600 (glibc: whatever the umask) */
    if (fd < 0) {
        snprintf(err, errlen, "cannot create a file beside %s: %s", path, strerror(errno));
        return SHC_E_IO;
    }
    int saved = 0;
    if (fchmod(fd, 0600) != 0 || write_all(fd, text->p ? text->p : "", text->n) != 0 ||
        fsync(fd) != 0)
        saved = errno ? errno : EIO;
    if (close(fd) != 0 && !saved)
        saved = errno;
    if (!saved && rename(tmp, path) != 0)
        saved = errno;
    if (saved) {
        unlink(tmp);
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(saved));
        return SHC_E_IO;
    }
    return 0;
}

/* Read-merge-rename under a lock: two logins at once (two editor windows) would each keep the
 * old file's lines and the last rename would drop the other's key.  The lock is a file beside
 * the config (the config itself is replaced, so it cannot carry the lock); POSIX record locks
 * wait for the other writer and go with the process. */
static int take_lock(const char *path, int *out, char *err, size_t errlen)
{
    char lp[4200];
    int n = snprintf(lp, sizeof lp, "%s.lock", path);
    if (n < 0 || (size_t)n >= sizeof lp) {
        snprintf(err, errlen, "the config path is too long");
        return SHC_E_LIMIT;
    }
    int fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create the lock file %s: %s", lp, strerror(errno));
        return SHC_E_IO;
    }
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    while (fcntl(fd, F_SETLKW, &fl) != 0) {
        if (errno == EINTR)
            continue;
        snprintf(err, errlen, "cannot lock %s: %s", lp, strerror(errno));
        close(fd);
        return SHC_E_IO;
    }
    *out = fd;
    return 0;
}

int shc_config_write(const char *path, const shc_config_set *set, size_t n, char *err,
                     size_t errlen)
{
    if (n > SHC_CONFIG_MAX_SET) {
        snprintf(err, errlen, "too many keys at once");
        return SHC_E_LIMIT;
    }
    for (size_t j = 0; j < n; j++) {
        int rc = set[j].value ? check_value(&set[j], err, errlen) : 0;
        if (rc)
            return rc;
    }
    shc_strbuf old = {0}, text = {0};
    int rc = make_dirs(path, err, errlen);
    int lock = -1;
    if (!rc)
        rc = take_lock(path, &lock, err, errlen);
    /* a file size limit fails the write (EFBIG) instead of killing us with the temp file left */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old_xfsz;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGXFSZ, &ign, &old_xfsz);
    if (!rc)
        rc = read_old(path, &old, err, errlen);
    if (!rc) {
        merge(&old, set, n, &text);
        if (old.err || text.err) {
            snprintf(err, errlen, "out of memory");
            rc = SHC_E_NOMEM;
        }
    }
    if (!rc)
        rc = replace_file(path, &text, err, errlen);
    sigaction(SIGXFSZ, &old_xfsz, NULL);
    if (lock >= 0)
        close(lock); /* releases the lock */
    /* both may hold the key: overwritten before they are freed */
    if (old.p)
        memset(old.p, 0, old.n);
    if (text.p)
        memset(text.p, 0, text.n);
    shc_strbuf_free(&old);
    shc_strbuf_free(&text);
    return rc;
}
