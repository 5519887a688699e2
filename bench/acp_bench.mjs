// Benchmarks of `shcard acp` (run by bench/bench_acp.sh):
//  throughput  streaming a 50 MB output into _meta.terminal_output updates (MB/s of data bytes)
//  peak memory the bridge's VmHWM right after that turn, and its own CPU time for the turn
//  latency     from a line leaving the command (its $EPOCHREALTIME stamp) to the arrival of the
//              terminal_output notification that carries it (median, p99)
// BENCH_LAT_N=0 skips the latency part.  Raw NDJSON client (no SDK) so the client is not the bottleneck.  Prints one JSON object.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";

const SHCARD = process.argv[2];
const MB = Number(process.env.BENCH_MB || 50);

function start() {
  const child = spawn(SHCARD, ["acp"], { stdio: ["pipe", "pipe", "inherit"] });
  let buf = "";
  let nextId = 1;
  const pending = new Map();
  const listeners = [];
  child.stdout.on("data", (d) => {
    const now = performance.timeOrigin + performance.now();
    buf += d.toString("utf8");
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      const msg = JSON.parse(line);
      if (msg.id !== undefined && pending.has(msg.id)) {
        pending.get(msg.id)(msg);
        pending.delete(msg.id);
      } else {
        for (const l of listeners) l(msg, now);
      }
    }
  });
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  return { child, request, listeners };
}

async function session(a) {
  await a.request("initialize", { protocolVersion: 1, clientCapabilities: { terminal: true, _meta: { terminal_output: true } } });
  return (await a.request("session/new", { cwd: process.cwd(), mcpServers: [] })).result.sessionId;
}

// the bridge's own CPU time (user + system, not its children's), from /proc/PID/stat
function cpuSeconds(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  // utime, stime, cutime, cstime in clock ticks (USER_HZ = 100); the children are the commands
  return { self: (Number(f[11]) + Number(f[12])) / 100, children: (Number(f[13]) + Number(f[14])) / 100 };
}

function hwmKiB(pid) {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) : -1;
}

// ---------------------------------------------------------------- throughput + memory
const a = start();
const sid = await session(a);
let bytes = 0;
let updates = 0;
a.listeners.push((msg) => {
  const d = msg.params?.update?._meta?.terminal_output?.data;
  if (d !== undefined) {
    bytes += Buffer.byteLength(d);
    updates++;
  }
});
const cmd = `yes 'some line of output text abcdefghij' | head -c ${MB * 1000 * 1000}`;
const t0 = performance.now();
const c0 = process.cpuUsage();
const r = await a.request("session/prompt", { sessionId: sid, prompt: [{ type: "text", text: cmd }] });
const secs = (performance.now() - t0) / 1000;
const hwm = hwmKiB(a.child.pid);
const cpu = cpuSeconds(a.child.pid);
const c1 = process.cpuUsage(c0);
a.child.stdin.end();
await new Promise((res) => a.child.on("exit", res));

// ---------------------------------------------------------------- latency
const lat = [];
if (process.env.BENCH_LAT_N !== "0") {
  const b = start();
  const sid2 = await session(b);
  b.listeners.push((msg, now) => {
    const d = msg.params?.update?._meta?.terminal_output?.data;
    if (!d) return;
    for (const line of d.split("\r\n")) {
      if (/^\d+\.\d+$/.test(line)) lat.push(now - Number(line) * 1000);
    }
  });
  const N = Number(process.env.BENCH_LAT_N || 300);
  await b.request("session/prompt", {
    sessionId: sid2,
    prompt: [{ type: "text", text: `for i in $(seq ${N}); do echo "$EPOCHREALTIME"; sleep 0.01; done` }],
  });
  b.child.stdin.end();
  await new Promise((res) => b.child.on("exit", res));
}
lat.sort((x, y) => x - y);
const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))];

console.log(JSON.stringify({
  stop: r.result?.stopReason,
  data_bytes: bytes,
  updates,
  seconds: secs,
  mb_per_s: bytes / 1e6 / secs,
  peak_rss_mib: hwm / 1024,
  bridge_cpu_s: cpu.self,
  command_cpu_s: cpu.children,
  client_cpu_s: (c1.user + c1.system) / 1e6,
  latency_samples: lat.length,
  latency_median_ms: q(0.5),
  latency_p99_ms: q(0.99),
}));
