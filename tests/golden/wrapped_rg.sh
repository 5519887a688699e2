bash -lc "rg -n 'shc_parse' src || true"
