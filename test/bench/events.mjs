// Event stream benchmark: a burst of 10,000 events published through the emulator
// (POST /_emulator/events { count }) and read by `vap events tail --json` (the built
// binary), beside a baseline measured in the same run: a bare SSE reader in plain Node
// (node:http, split on blank lines, print each data line) reading the same burst.
// The emulator produces the burst 20 events per turn of its event loop (frames reach the socket
// while the rest is produced). Latency is from the event's emission (its real append time in the
// emulator, returned by the control path with stamps: true) to the line arriving on the reader's
// stdout.
// RSS of the vap process is sampled across the burst (it should stay flat).
// Usage: npm run build && node test/bench/events.mjs [--count 10000] [--rounds 3]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator as startLib } from './lib.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/vap.js');
const countArg = process.argv.indexOf('--count');
const COUNT = countArg > 0 ? Number(process.argv[countArg + 1]) : 10_000;
const KEY = 'key_bench_events';
const roundsArg = process.argv.indexOf('--rounds');
const ROUNDS = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 3;

const startEmulator = () => startLib(['--time-scale', '1', '--org', `bench:${KEY}`]);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function control(url, method, path, body) {
  const res = await fetch(`${url}/_emulator${path}`, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** The baseline reader: the least a Node program can do to print each event's data line. */
const BASELINE = `
const http = require('node:http');
const u = new URL(process.env.STREAM_URL);
http.get({ hostname: u.hostname, port: u.port, path: u.pathname, headers: { authorization: 'Bearer ' + process.env.KEY, accept: 'text/event-stream' } }, (res) => {
  let buf = '';
  res.setEncoding('utf8');
  res.on('data', (chunk) => {
    buf += chunk;
    let i;
    let out = '';
    while ((i = buf.indexOf('\\n\\n')) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      const line = block.split('\\n').find((l) => l.startsWith('data:'));
      if (line) out += line.slice(5).trim() + '\\n';
    }
    if (out) process.stdout.write(out);
  });
});
`;

function rssKb(pid) {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Runs one reader against one burst; returns throughput, latency percentiles and RSS samples. */
async function measure(emu, name, cmd, args, env) {
  const child = spawn(cmd, args, { env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const arrivals = [];
  let lastRecv = 0;
  let received = 0;
  let done;
  const finished = new Promise((r) => (done = r));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const now = Date.now();
    let ev;
    try {
      ev = JSON.parse(line);
    } catch {
      return;
    }
    if (ev.type !== 'call.status.updated' || ev.data?.bench !== name) return;
    arrivals.push([ev.data.n, now]);
    lastRecv = now;
    if (++received === COUNT) done();
  });
  // Connected and live: the emulator counts the open stream.
  for (let i = 0; (await control(emu.url, 'GET', '/streams')).open < 1; i++) {
    if (i > 400) throw new Error(`${name}: the stream did not open: ${stderr}`);
    await sleep(25);
  }
  await sleep(200);
  const rss = [rssKb(child.pid)];
  const sampler = setInterval(() => rss.push(rssKb(child.pid)), 20);
  const { stamps } = await control(emu.url, 'POST', '/events', {
    type: 'call.status.updated',
    callId: 'call_bench',
    data: { status: 'ringing', previousStatus: 'initiated', bench: name },
    count: COUNT,
    stamps: true,
  });
  const timeout = setTimeout(() => done(), 60_000);
  await finished;
  clearTimeout(timeout);
  clearInterval(sampler);
  rss.push(rssKb(child.pid));
  child.kill('SIGINT');
  await new Promise((r) => child.once('exit', r));
  for (let i = 0; (await control(emu.url, 'GET', '/streams')).open > 0 && i < 200; i++) await sleep(25);
  if (received < COUNT) throw new Error(`${name}: received ${received} of ${COUNT} events: ${stderr}`);
  // Emission is the event's real append time in the emulator (same host, same clock).
  const latencies = arrivals.map(([n, at]) => at - stamps[n - 1]).sort((a, b) => a - b);
  const firstEmit = stamps[0];
  const valid = rss.filter(Number.isFinite);
  return {
    name,
    perSecond: COUNT / (Math.max(1, lastRecv - firstEmit) / 1000),
    p50: pct(latencies, 50),
    p99: pct(latencies, 99),
    rssStartMb: valid[0] / 1024,
    rssPeakMb: Math.max(...valid) / 1024,
    rssEndMb: valid[valid.length - 1] / 1024,
  };
}

const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function benchEvents() {
  const emu = await startEmulator();
  try {
    const env = { VAP_BASE_URL: emu.url, VAP_API_KEY: KEY };
    const runs = { baseline: [], vap: [] };
    // Alternate the two readers so that drift in machine load hits both alike.
    for (let round = 0; round < ROUNDS; round++) {
      runs.baseline.push(await measure(emu, 'baseline', process.execPath, ['-e', BASELINE], { STREAM_URL: `${emu.url}/api/v1/events`, KEY }));
      runs.vap.push(await measure(emu, 'vap', process.execPath, [BIN, 'events', 'tail', '--json'], env));
    }
    const summary = (rs) => ({
      perSecond: med(rs.map((r) => r.perSecond)),
      p50: med(rs.map((r) => r.p50)),
      p99: med(rs.map((r) => r.p99)),
      rssStartMb: med(rs.map((r) => r.rssStartMb)),
      rssPeakMb: Math.max(...rs.map((r) => r.rssPeakMb)),
      rssEndMb: med(rs.map((r) => r.rssEndMb)),
    });
    const base = summary(runs.baseline);
    const tail = summary(runs.vap);
    const row = (name, r, ref) => ({
      reader: name,
      'events/s': Math.round(r.perSecond),
      'p50 ms': r.p50,
      'p99 ms': r.p99,
      'p99 ratio': `${(r.p99 / Math.max(1, ref.p99)).toFixed(2)}x`,
      'rate ratio': `${(r.perSecond / ref.perSecond).toFixed(2)}x`,
      'RSS MB start/peak/end': `${r.rssStartMb.toFixed(0)}/${r.rssPeakMb.toFixed(0)}/${r.rssEndMb.toFixed(0)}`,
      target: name.startsWith('vap') ? 'p99 < 50 ms' : '',
      ok: name.startsWith('vap') ? (r.p99 < 50 ? 'yes' : 'NO') : '',
    });
    console.log(
      `\nEvent stream: bursts of ${COUNT} events, emission to printed line (medians of ${ROUNDS} rounds, readers alternated; baseline: a bare node:http SSE reader)`,
    );
    const rows = [row('bare SSE reader (node:http)', base, base), row('vap events tail --json', tail, base)];
    console.table(rows);
    return rows;
  } finally {
    emu.child.kill('SIGTERM');
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await benchEvents();
}
