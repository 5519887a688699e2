# Red-team probe (tests/suite_rt_confine.sh, finding RC8).
# In the sandbox: a child leaves the command's session (setsid), opens another terminal that has
# no session for reading (which makes it the child's controlling terminal), then turns its echo
# off through /dev/tty, which the sandbox grants whatever terminal it names.  Prints what it got.
import os, sys, termios
pid = os.fork()
if pid:
    os.waitpid(pid, 0)
    sys.exit(0)
try:
    os.setsid()
    os.close(os.open(sys.argv[1], os.O_RDONLY))
    fd = os.open("/dev/tty", os.O_WRONLY)
    a = termios.tcgetattr(fd)
    a[3] &= ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSANOW, a)
    print("stolen", flush=True)
except OSError as e:
    print("refused:", e, flush=True)
