cd src && FOO=1 cat 'a b'"c"$'\t'd 2>/dev/null >&2 <in
