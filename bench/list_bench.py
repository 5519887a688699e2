#!/usr/bin/env python3
"""session/list at scale: a store of LIST_N sessions (default 100,000; files copied from one real
session, distinct times).  Measures, against anchors in the same run (a store of 1,000):
  - start-up: spawn to the initialize answer;
  - the first page (it builds the index: one scan of the store);
  - every later page (cursor, index kept): mean and worst over LIST_PAGES pages (default 200).
Prints the figures and the ratios; fails when a later page at LIST_N takes over 50 ms on
average, or more than 3 scans happened."""
import os
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import reliability as rel  # noqa: E402

N = int(os.environ.get("LIST_N", "100000"))
PAGES = int(os.environ.get("LIST_PAGES", "200"))


def measure(n):
    d = tempfile.mkdtemp(prefix="shc-listbench-")
    store = os.path.join(d, "st")
    try:
        a = rel.Agent(args=["--store", store])
        a.init(rel.PLAIN_CAPS)
        sid = a.new_session()
        a.response(a.prompt(sid, "echo seed"), 15)
        a.close_stdin()
        a.wait_exit(10)
        a.close()
        rel.make_sessions(store, n - 1, sid)
        t0 = time.monotonic()
        a = rel.Agent(args=["--store", store], log_level="debug")
        try:
            a.init(rel.PLAIN_CAPS)
            start = time.monotonic() - t0
            t0 = time.monotonic()
            r = a.call("session/list", {}, timeout=120)
            first = time.monotonic() - t0
            cursor = r["result"].get("nextCursor")
            times = []
            while cursor and len(times) < PAGES:
                t0 = time.monotonic()
                r = a.call("session/list", {"cursor": cursor}, timeout=60)
                times.append(time.monotonic() - t0)
                cursor = r["result"].get("nextCursor")
            scans = a.stderr_text().count(b"session store: every session read to index it")
            return start, first, sum(times) / max(1, len(times)), max(times or [0]), scans
        finally:
            a.close()
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    anchor = measure(1000)
    big = measure(N)
    ms = lambda v: f"{v * 1000:.1f} ms"
    for label, (start, first, mean, worst, scans) in (("1,000 (anchor)", anchor), (f"{N:,}", big)):
        print(f"list: {label} sessions: start-up {ms(start)}, first page {ms(first)} (one scan), "
              f"later pages mean {ms(mean)}, worst {ms(worst)}, scans {scans}")
    print(f"list: ratios {N:,} / 1,000: start-up {big[0] / anchor[0]:.2f}x, later page "
          f"{big[2] / anchor[2]:.2f}x (a rescan per page would be ~{N / 1000:.0f}x), "
          f"later page / first page {big[2] / big[1]:.4f}")
    ok = big[2] <= 0.050 and big[4] <= 3
    print("list: " + ("OK" if ok else "NOT OK"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
