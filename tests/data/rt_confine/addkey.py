# Red-team probe (tests/suite_rt_confine.sh, finding RC3): add_key to the user keyring (no file).
import ctypes, sys
l = ctypes.CDLL(None, use_errno=True)
# add_key("user", desc, payload, len, KEY_SPEC_USER_KEYRING=-4)
r = l.syscall(248, b"user", sys.argv[1].encode(), b"planted", 7, -4)
print("add_key", r, ctypes.get_errno())
