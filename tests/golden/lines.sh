ls -la \
  src # list it
rg x &
! true |& cat;