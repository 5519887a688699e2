# Red-team probe (tests/suite_rt_confine.sh, finding RC5).
# A terminal outside the sandbox: opens a pty pair, prints the slave's name, holds it open, and
# after the given seconds prints whether ECHO is still set on it.
import os, pty, sys, termios, time
m, s = pty.openpty()
name = os.ttyname(s)
open(sys.argv[1], "w").write(name)
time.sleep(float(sys.argv[2]))
a = termios.tcgetattr(s)
print("echo" if a[3] & termios.ECHO else "noecho", flush=True)
