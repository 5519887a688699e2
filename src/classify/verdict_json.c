/* shc_verdict_to_json(): the bytes `shcard explain --json` prints (jansson's compact, ASCII-only,
 * insertion-ordered form of shc_verdict_json_n, verdict_jansson.c), written in one pass by the
 * writer `explain --batch` uses (verdict_write.c).  The library and the WebAssembly build use
 * this; the bindings' suites and suite_batch hold it byte-identical to the jansson path. */
#include <stdlib.h>

#include "classify/verdict_write.h"
#include "shcard.h"

char *shc_verdict_to_json(const shc_verdict *v, const char *cmd, size_t len, size_t *out_len)
{
    if (!v)
        return NULL;
    shc_strbuf b = {0};
    shc_verdict_write(&b, v, cmd, len, SHC_JW_ASCII);
    size_t n = b.n;
    char *s = shc_strbuf_take(&b);
    if (s && out_len)
        *out_len = n;
    return s;
}

void shc_free(void *p)
{
    free(p);
}
