for f in *.c; do echo $f; done
