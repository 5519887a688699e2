grep "a\b" "\$x" "\\" "\"" "\q\n" '\a' x"\ "y "\`" a\ b
