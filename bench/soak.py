#!/usr/bin/env python3
"""Soak benchmark for `shcard acp` (issue 11): SOAK_S seconds (default 600) of random prompts,
cancels, floods, escaping children, commands waiting for terminal input and client stalls
across 4 sessions.  Reports the agent's RSS at start, peak and end, its open fds at start and
end, and the processes left behind.  Uses the reliability suite's raw client."""
import os
import random
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import reliability as rel  # noqa: E402

SOAK_S = float(os.environ.get("SOAK_S", "600"))
SEED = int(os.environ.get("SOAK_SEED", "11"))

PROMPTS = [
    ("quick", "echo hello; ls -la; true"),
    ("read", "cat /etc/hostname"),
    ("search", "grep -rn root /etc/passwd"),
    ("lines", "seq 1 20000"),
    ("flood", "head -c 8000000 /dev/zero | tr '\\0' y"),
    ("flood2", "yes soak | head -n 300000\nseq 1 100000"),
    ("fail", "exit 3"),
    ("sleep", "sleep 0.7; echo slept"),
    ("escapers", "setsid sleep 60 & nohup sleep 61 >/dev/null 2>&1 & (trap '' TERM HUP; exec sleep 62) & echo bg"),
    ("ignore-term", "trap '' TERM; sleep 3"),
    ("tty", "read x < /dev/tty"),
    ("utf8", "printf '\\xe2\\x82\\xac %.0s' $(seq 1 5000); printf '\\xff\\xfe\\n'"),
    ("ansi", "for i in $(seq 1 300); do printf '\\r\\x1b[K%d%%' $i; done; echo"),
    ("multi", "echo one\necho two\nfalse\necho four"),
    # escapes that drop every marker (found by their arguments), and a command that stops its
    # guardian: both must leave nothing behind and hang nothing
    ("unmarked", "setsid env -i sleep 59.0011 & setsid -f env -u SHCARD_CMD_ID -u SHCARD_RELIAB_MARK sleep 59.0012; "
                 "( setsid env -i bash -c 'sleep 59.0013 & exit 0' & ); echo bg"),
    ("guard-stop", "kill -STOP $PPID; echo after-stop"),
    ("guard-stop-sleep", "kill -STOP $PPID; setsid env -i sleep 59.0014 & sleep 1; echo done"),
]
UNMARKED = ("59.0011", "59.0012", "59.0013", "59.0014")


def main():
    rnd = random.Random(SEED)
    a = rel.Agent()
    stats = {"prompts": 0, "cancels": 0, "answered": 0, "stalls": 0, "errors": 0}
    kinds = {}
    try:
        if not a.init():
            print("soak: initialize failed")
            return 1
        sids = [a.new_session() for _ in range(4)]
        time.sleep(0.3)
        rss0 = rel.rss_kb(a.pid)
        fds0 = rel.fd_count(a.pid)
        pending = {}  # sid -> (request id, started)
        t0 = time.monotonic()
        next_stall = t0 + rnd.uniform(20, 40)
        while time.monotonic() - t0 < SOAK_S:
            now = time.monotonic()
            for sid in sids:
                if sid in pending:
                    rid, started, cancel_at = pending[sid]
                    r = a.responses(rid)
                    if r:
                        stats["answered"] += 1
                        if "error" in r[0]:
                            stats["errors"] += 1
                        del pending[sid]
                    elif cancel_at and now >= cancel_at:
                        a.cancel(sid)
                        stats["cancels"] += 1
                        pending[sid] = (rid, started, None)
                    elif now - started > 120:
                        print(f"soak: a prompt in {sid} was not answered within 120 s")
                        return 1
                    continue
                kind, text = rnd.choice(PROMPTS)
                kinds[kind] = kinds.get(kind, 0) + 1
                rid = a.prompt(sid, text)
                stats["prompts"] += 1
                cancel_at = now + rnd.uniform(0.05, 2.0) if rnd.random() < 0.3 else None
                pending[sid] = (rid, now, cancel_at)
            if now >= next_stall:
                # the client stops reading for a while
                a.stop_reading()
                time.sleep(rnd.uniform(2, 8))
                a.resume_reading()
                stats["stalls"] += 1
                next_stall = time.monotonic() + rnd.uniform(20, 40)
            # keep the driver's own memory flat: drop frames nobody will look at again
            with a.cv:
                if len(a.frames) > 200000:
                    keep = {rid for rid, _, _ in pending.values()}
                    a.frames = [f for f in a.frames if "method" not in f and f.get("id") in keep]
                a.tout.clear()
                a.tout_tail.clear()
            time.sleep(0.05)
        # let everything finish, then look
        for sid, (rid, _, _) in list(pending.items()):
            a.cancel(sid)
            if a.response(rid, 30):
                stats["answered"] += 1
        time.sleep(1.0)
        hwm = rel.rss_kb(a.pid, "VmHWM")
        rss1 = rel.rss_kb(a.pid)
        fds1 = rel.fd_count(a.pid)
        left = rel.marked(a.mark, exclude=(a.pid,))
        helpers = [p for p in left if b"shcard" in open(f"/proc/{p}/cmdline", "rb").read()]
        strays = [p for p in left if p not in helpers]
        time.sleep(0.5)
        strays += rel.procs_with_args(*UNMARKED)  # escapes of finished commands, without a mark
        a.close_stdin()
        rc = a.wait_exit(15)
        after_exit = rel.wait_until(lambda: not rel.marked(a.mark) and not rel.procs_with_args(*UNMARKED), 5.0)
        dur = time.monotonic() - t0
        print(f"soak: {dur:.0f} s, {stats['prompts']} prompts ({stats['answered']} answered, "
              f"{stats['errors']} errors), {stats['cancels']} cancels, {stats['stalls']} client stalls")
        print("soak: prompt mix " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
        print(f"soak: agent RSS start {rss0 / 1024:.1f} MiB, peak {hwm / 1024:.1f} MiB, end {rss1 / 1024:.1f} MiB")
        print(f"soak: agent fds start {fds0}, end {fds1}" + ("" if fds0 == fds1 else "  (LEAK?)"))
        print(f"soak: processes left while idle: {len(strays)} ({', '.join(rel.describe(strays)) or 'none'}); "
              f"helpers of the agent: {len(helpers)}")
        print(f"soak: exit status {rc}, nothing left after exit: {bool(after_exit)}")
        ok = (stats["answered"] == stats["prompts"] and fds0 == fds1 and not strays and rc == 0 and after_exit
              and hwm < 64 * 1024)
        print("soak: " + ("OK" if ok else "NOT OK"))
        return 0 if ok else 1
    finally:
        a.close()
        rel.kill_pids(rel.procs_with_args(*UNMARKED))


if __name__ == "__main__":
    sys.exit(main())
