cat $(ls *.md)
