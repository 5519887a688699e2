nl -ba src/parse.c | sed -n '1,80p'
