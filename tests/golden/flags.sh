ls *.rs {a,b} ~/x a=~/y [ab] "*"
