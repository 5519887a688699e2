#!/usr/bin/env python3
"""session/list at scale: a store of LIST_N sessions (default 100,000; written directly in the
store's format, distinct times) and, as the anchor, one of 1,000, measured in the same run.
For each store:
  - the cold first list (no index file yet: every session is read once, the index written);
  - then a fresh agent, as after a restart: start-up (spawn to the initialize answer), the first
    page (from the index file) and later pages (cursor): mean and worst over LIST_PAGES pages;
  - a readdir of the store (os.scandir: every name once), the anchor for the first page.
Prints the figures and the ratios.  It fails when, at LIST_N, the first page takes longer than
a readdir of the store (the index file is read instead of the directory's names, let alone the
files), start-up grows more than 3x from 1,000 sessions (it must not depend on the number of
sessions), a later page costs more than 5x one at 1,000, or the restarted agent read every
session again."""
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
SCAN = b"session store: every session read to index it"


def readdir_s(store):
    best = None
    for _ in range(3):
        t0 = time.monotonic()
        with os.scandir(store) as it:
            sum(1 for _ in it)
        t = time.monotonic() - t0
        best = t if best is None else min(best, t)
    return best


def measure(n):
    d = tempfile.mkdtemp(prefix="shc-listbench-")
    store = os.path.join(d, "st")
    try:
        a, _ = rel.start_seeded(store)
        rel.write_sessions(store, n - 1, [os.path.join(d, "p0"), os.path.join(d, "p1")])
        t0 = time.monotonic()
        r = a.call("session/list", {}, timeout=600)
        cold = time.monotonic() - t0
        assert r and "result" in r, r
        a.close_stdin()
        a.wait_exit(30)
        a.close()
        readdir = readdir_s(store)
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
            scans = a.stderr_text().count(SCAN)
            return dict(cold=cold, readdir=readdir, start=start, first=first,
                        mean=sum(times) / max(1, len(times)), worst=max(times or [0]), scans=scans)
        finally:
            a.close()
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    anchor = measure(1000)
    big = measure(N)
    ms = lambda v: f"{v * 1000:.1f} ms"
    for label, m in (("1,000 (anchor)", anchor), (f"{N:,}", big)):
        print(f"list: {label} sessions: cold first list {ms(m['cold'])} (every session read once); "
              f"restarted agent: start-up {ms(m['start'])}, first page {ms(m['first'])}, later pages "
              f"mean {ms(m['mean'])}, worst {ms(m['worst'])}, scans {m['scans']}; readdir of the store "
              f"{ms(m['readdir'])}")
    r_first = big["first"] / big["readdir"]
    r_start = big["start"] / anchor["start"]
    r_page = big["mean"] / max(anchor["mean"], 1e-4)
    print(f"list: ratios at {N:,}: first page / readdir of the store {r_first:.2f} (gate 1.0); "
          f"start-up / start-up at 1,000 {r_start:.2f} (gate 3.0); later page / later page at 1,000 "
          f"{r_page:.2f} (gate 5.0); cold first list / first page {big['cold'] / big['first']:.0f}x")
    ok = r_first <= 1.0 and r_start <= 3.0 and r_page <= 5.0 and big["scans"] == 0
    print("list: " + ("OK" if ok else "NOT OK"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
