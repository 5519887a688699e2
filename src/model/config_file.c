/* The config file's bytes and lines for both config.c (reading) and config_write.c (writing):
 * one way to open it safely and one tokenizer, so that what the writer removes is gone for the
 * reader too. */
#include "model/config_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shcard.h"

/* The settings decide where keys go: a file (or its directory) another user could change is
 * not trusted, whatever it holds. */
static int trusted(int fd, const char *path, const struct stat *st, char *err, size_t errlen)
{
    (void)fd;
    if (st->st_uid != geteuid()) {
        snprintf(err, errlen, "config file %s belongs to another user: not used", path);
        return SHC_E_USAGE;
    }
    if (st->st_mode & 022) {
        snprintf(err, errlen,
                 "config file %s can be changed by others (mode %03o): run chmod go-w on it",
                 path, (unsigned)(st->st_mode & 0777));
        return SHC_E_USAGE;
    }
    char dir[4096];
    int n = snprintf(dir, sizeof dir, "%s", path);
    if (n < 0 || (size_t)n >= sizeof dir) {
        snprintf(err, errlen, "the config path is too long");
        return SHC_E_LIMIT;
    }
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    struct stat ds;
    if (stat(dir, &ds) != 0) {
        snprintf(err, errlen, "cannot stat %s: %s", dir, strerror(errno));
        return SHC_E_IO;
    }
    if ((ds.st_mode & 022) && !(ds.st_mode & 01000) /* sticky, as /tmp */) {
        snprintf(err, errlen,
                 "the directory of config file %s can be changed by others (mode %03o): run "
                 "chmod go-w %s",
                 path, (unsigned)(ds.st_mode & 0777), dir);
        return SHC_E_USAGE;
    }
    if (ds.st_uid != geteuid() && ds.st_uid != 0) {
        snprintf(err, errlen, "the directory of config file %s belongs to another user: not used",
                 path);
        return SHC_E_USAGE;
    }
    return 0;
}

static int slurp_fd(int fd, const char *path, size_t max, shc_strbuf *out, char *err,
                    size_t errlen)
{
    char buf[8192];
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
            return SHC_E_IO;
        }
        if (out->n + (size_t)r > max) {
            snprintf(err, errlen, "%s is larger than %zu bytes: refused", path, max);
            return SHC_E_LIMIT;
        }
        shc_strbuf_put(out, buf, (size_t)r);
    }
    if (out->err) {
        snprintf(err, errlen, "out of memory");
        return SHC_E_NOMEM;
    }
    if (out->n && memchr(out->p, '\0', out->n)) {
        snprintf(err, errlen, "%s holds a NUL byte: refused", path);
        return SHC_E_USAGE;
    }
    return 0;
}

/* Opens path for reading without blocking and checks it is a regular file. */
static int open_regular(const char *path, bool follow, struct stat *st, const char *what,
                        char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | (follow ? 0 : O_NOFOLLOW));
    if (fd < 0) {
        int e = errno;
        if (e == ELOOP && !follow)
            snprintf(err, errlen, "%s %s is a symbolic link: not replaced (write to its target "
                                  "with --config TARGET, or remove the link)", what, path);
        else
            snprintf(err, errlen, "cannot read %s %s: %s", what, path, strerror(e));
        errno = e;
        return -1;
    }
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        snprintf(err, errlen, "%s %s is not a regular file: refused", what, path);
        close(fd);
        errno = EINVAL;
        return -1;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

int shc__config_slurp(const char *path, bool follow, shc_strbuf *out, bool *exists,
                      unsigned *mode, char *err, size_t errlen)
{
    *exists = true;
    *mode = 0;
    struct stat st;
    int fd = open_regular(path, follow, &st, "config file", err, errlen);
    if (fd < 0) {
        if (errno == ENOENT) {
            *exists = false;
            return 0;
        }
        return errno == EINVAL || errno == ELOOP ? SHC_E_USAGE : SHC_E_IO;
    }
    *mode = (unsigned)(st.st_mode & 07777);
    int rc = trusted(fd, path, &st, err, errlen);
    if (!rc)
        rc = slurp_fd(fd, path, SHC_CONFIG_MAX_FILE, out, err, errlen);
    close(fd);
    return rc;
}

int shc__read_regular(const char *path, size_t max, shc_strbuf *out, const char *what, char *err,
                      size_t errlen)
{
    struct stat st;
    int fd = open_regular(path, true, &st, what, err, errlen);
    if (fd < 0)
        return errno == EINVAL ? SHC_E_USAGE : SHC_E_IO;
    int rc = slurp_fd(fd, path, max, out, err, errlen);
    close(fd);
    return rc;
}

static bool space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

shc_line_kind shc__config_line(const char *line, size_t len, size_t *ks, size_t *ke, size_t *vs,
                               size_t *ve)
{
    const char *hash = memchr(line, '#', len);
    if (hash)
        len = (size_t)(hash - line);
    size_t i = 0;
    while (i < len && space(line[i]))
        i++;
    while (len > i && space(line[len - 1]))
        len--;
    if (i == len)
        return SHC_LINE_BLANK;
    const char *eq = memchr(line + i, '=', len - i);
    if (!eq)
        return SHC_LINE_BAD;
    size_t e = (size_t)(eq - line), k = e;
    while (k > i && space(line[k - 1]))
        k--;
    size_t v = e + 1;
    while (v < len && space(line[v]))
        v++;
    *ks = i;
    *ke = k;
    *vs = v;
    *ve = len;
    return SHC_LINE_KV;
}
