/* The sed script grammar the classifier accepts: under -n, one or more `N`, `N,M`, `$` or
 * `N,$` each followed by `p`, separated by `;` (one script, as an operand or a single -e); the
 * first range gives the line.  Used by the read rule
 * (`sed -n 1,40p FILE`) and the pipeline-filter rule (`... | sed -n 5,9p`). */
#include "classify/policy.h"

#include <stdio.h>
#include <string.h>

static size_t skip_ws(const char *s, size_t i)
{
    while (s[i] == ' ' || s[i] == '\t')
        i++;
    return i;
}

/* addr := N | $ ; returns index after it, or 0 */
static size_t sed_addr(const char *s, size_t i, long *n, bool *dollar)
{
    *dollar = false;
    if (s[i] == '$') {
        *dollar = true;
        return i + 1;
    }
    size_t j = i;
    while (s[j] >= '0' && s[j] <= '9')
        j++;
    if (j == i || shc__parse_num(s + i, j - i, n) < 0 || *n == 0)
        return 0;
    return j;
}

/* One `ADDR[,ADDR] p` at s[*i], then `;` or the end.  Returns 0 or -1. */
static int sed_one(const char *s, size_t *ip, long *first, long *end, bool *last)
{
    long a = 0, b = 0;
    bool da, db = false, range = false;
    size_t i = skip_ws(s, *ip);
    i = sed_addr(s, i, &a, &da);
    if (!i)
        return -1;
    i = skip_ws(s, i);
    if (s[i] == ',') {
        range = true;
        i = sed_addr(s, skip_ws(s, i + 1), &b, &db);
        if (!i)
            return -1;
        i = skip_ws(s, i);
    }
    if (s[i] != 'p')
        return -1;
    i = skip_ws(s, i + 1);
    if (s[i] == ';')
        i = skip_ws(s, i + 1);
    if (da && range)
        return -1; /* `$,N p` */
    if (range && !db && b < a)
        return -1; /* `5,3p` prints one line; refuse the odd shape */
    *last = da;
    *first = da ? 0 : a;
    *end = da ? 0 : range ? (db ? 0 : b) : a;
    *ip = i;
    return 0;
}

int shc__sed_range(const char *s, long *first, long *end, bool *last, char *more, size_t morecap)
{
    size_t i = 0, used = 0;
    bool full = false;
    if (morecap)
        more[0] = '\0';
    if (sed_one(s, &i, first, end, last) < 0)
        return -1;
    for (unsigned n = 1; s[i] != '\0'; n++) {
        long a, b;
        bool l;
        if (n >= 16 || sed_one(s, &i, &a, &b, &l) < 0)
            return -1;
        char one[48];
        int w = l ? snprintf(one, sizeof one, ", last line")
                : b == a ? snprintf(one, sizeof one, ", %ld", a)
                : b ? snprintf(one, sizeof one, ", %ld-%ld", a, b)
                    : snprintf(one, sizeof one, ", %ld-", a);
        if (full || w <= 0)
            continue;
        if (used + (size_t)w + sizeof ", ..." <= morecap) {
            memcpy(more + used, one, (size_t)w + 1);
            used += (size_t)w;
        } else if (used + sizeof ", ..." <= morecap) {
            memcpy(more + used, ", ...", sizeof ", ...");
            full = true;
        }
    }
    return 0;
}

/* sed under -n with one N[,M]p script; file operands from index *files on. */
int shc__sed_script(
    shc_rule *r, const shc_optres *res, size_t *files, long *line, long *end, bool *last)
{
    if (!shc__opt_first(res, SHC_ROLE_QUIET))
        return shc__reject(r, 0, "sed: without -n it prints every line");
    size_t ne = shc__opt_count(res, SHC_ROLE_SCRIPT);
    const char *script;
    size_t argi;
    if (ne > 1)
        return shc__reject(r, shc__opt_first(res, SHC_ROLE_SCRIPT)->argi,
                           "sed: several scripts are outside the N[,M]p subset");
    if (ne == 1) {
        const shc_optval *ov = shc__opt_first(res, SHC_ROLE_SCRIPT);
        script = ov->value;
        argi = ov->argi;
        *files = 0;
    } else {
        if (res->nops == 0)
            return shc__reject(r, 0, "sed: no script");
        script = res->ops[0].value;
        argi = res->ops[0].argi;
        *files = 1;
    }
    if (shc__sed_range(script, line, end, last, r->more, sizeof r->more) < 0)
        return shc__reject(r, argi, "sed: script '%s' is not N, N,M or $ with p (; between)",
                           script);
    return 0;
}
