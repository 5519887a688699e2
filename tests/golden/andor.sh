a && b || c | d
