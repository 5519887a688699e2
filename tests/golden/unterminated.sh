echo 'oops
