x=1 y+=2 > out 3<>f 4>&- <<<"hi" cmd
