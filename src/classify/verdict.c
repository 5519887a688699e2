/* The verdict object: names, free, the library's version.  Its JSON is in verdict_json.c (the
 * library's, no jansson) and verdict_jansson.c (the json_t the CLI and the bridge build on). */
#include <stdlib.h>

#include "shcard.h"

const char *shc_version(void)
{
    return SHC_VERSION;
}

const char *shc_kind_name(shc_kind kind)
{
    switch (kind) {
    case SHC_KIND_TERMINAL: return "terminal";
    case SHC_KIND_READ: return "read";
    case SHC_KIND_SEARCH: return "search";
    case SHC_KIND_LIST: return "list";
    }
    return "terminal";
}

/* One allocation holds the verdict and everything it points to (verdict_build.c). */
void shc_verdict_free(shc_verdict *v)
{
    free(v);
}
