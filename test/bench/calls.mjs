// Benchmark of `vap calls list --all`: speed and memory over 100,000 calls, against a
// baseline measured in the same run.
//
//   npm run build && node test/bench/calls.mjs [--count 100000] [--runs 3]
//
// A local emulator (the built binary, time scale 1000) gets `count` ended calls through
// POST /_emulator/calls/seed. Then, each in its own child process with stdout counted
// line by line and thrown away:
//   baseline  node bin/vap.js calls list --limit 1000 -o ndjson     (the first 1,000 rows, 10 pages)
//   all       node bin/vap.js calls list --all -o ndjson            (every row, 100 per page)
// For each: wall time, rows per second, peak RSS (by /usr/bin/time -f %M when present,
// else by polling VmHWM in /proc/<pid>/status). The runs alternate (the machine may be
// shared); the fastest wall time and the highest RSS of each are kept.
// Target: the peak RSS of --all within 20% of the baseline's (the listing streams page by
// page: memory does not grow with the number of calls). Nothing here is asserted by tests.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { machineLine, mb, measureChild, table } from './lib.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/vap.js');
const KEY = 'key_bench_calls';

/** Runs a child; resolves with wall time, peak RSS (KB), exit code, stdout line count and stderr. */
async function measure(args, { env = {} } = {}) {
  let lines = 0;
  let firstLine;
  let partial = '';
  const onStdout = (c) => {
    const s = c.toString('utf8');
    if (firstLine === undefined) {
      partial += s;
      const nl = partial.indexOf('\n');
      if (nl >= 0) firstLine = partial.slice(0, nl);
      if (partial.length > 65536 || nl >= 0) partial = '';
    }
    for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) lines++;
  };
  const r = await measureChild(args, { env, cwd: ROOT, onStdout });
  return { ...r, lines, firstLine };
}

function startEmulator() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'emulator', 'start', '--port', '0', '--json', '--time-scale', '1000', '--org', `bench:${KEY}`], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ child, url: JSON.parse(line).url }));
    child.once('exit', (code) => reject(new Error(`the emulator exited (${code})`)));
  });
}

async function seed(url, count) {
  const res = await fetch(`${url}/_emulator/calls/seed`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ org: 'bench', count }) });
  if (!res.ok) throw new Error(`seed: ${res.status} ${await res.text()}`);
  return res.json();
}

const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;
const rate = (rows, ms) => `${Math.round((rows * 1000) / ms).toLocaleString('en-US')}/s`;


export async function benchCalls({ count = 100_000, runs = 3, log = (s) => process.stdout.write(`${s}\n`) } = {}) {
  if (!existsSync(join(ROOT, 'dist/cli.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  log(`\ncalls list benchmark (${machineLine()})`);
  const emu = await startEmulator();
  try {
    const t = performance.now();
    const seeded = await seed(emu.url, count);
    log(`seeded ${seeded.inserted.toLocaleString('en-US')} calls in ${secs(performance.now() - t)} (${seeded.totalCalls.toLocaleString('en-US')} in the organization)`);
    const env = { VAP_BASE_URL: emu.url, VAP_API_KEY: KEY };
    const baseArgs = [BIN, 'calls', 'list', '--limit', '1000', '-o', 'ndjson'];
    const allArgs = [BIN, 'calls', 'list', '--all', '-o', 'ndjson'];
    const base = [];
    const all = [];
    for (let i = 0; i < runs; i++) {
      base.push(await measure(baseArgs, { env }));
      all.push(await measure(allArgs, { env }));
    }
    for (const r of [...base, ...all]) if (r.code !== 0) throw new Error(`vap calls list exited ${r.code}: ${r.stderr.slice(-500)}`);
    const wantAll = seeded.totalCalls;
    if (all.some((r) => r.lines !== wantAll)) throw new Error(`--all printed ${all.map((r) => r.lines).join(', ')} rows, not ${wantAll}`);
    if (base.some((r) => r.lines !== Math.min(1000, wantAll))) throw new Error(`--limit 1000 printed ${base.map((r) => r.lines).join(', ')} rows`);
    JSON.parse(all[0].firstLine);
    const best = (rs) => ({ ...rs.reduce((a, b) => (b.wallMs < a.wallMs ? b : a)), walls: rs.map((r) => r.wallMs), rssKb: Math.max(...rs.map((r) => r.rssKb)) });
    const b = best(base);
    const a = best(all);
    log(
      `\n${table([
        ['command', 'rows', 'wall', 'rows/s', 'peak RSS'],
        ['vap calls list --limit 1000 -o ndjson (baseline)', b.lines.toLocaleString('en-US'), secs(b.wallMs), rate(b.lines, b.wallMs), mb(b.rssKb)],
        ['vap calls list --all -o ndjson', a.lines.toLocaleString('en-US'), secs(a.wallMs), rate(a.lines, a.wallMs), mb(a.rssKb)],
      ])}`,
    );
    const ratio = a.rssKb / b.rssKb;
    log(`\npeak RSS --all / baseline: ${ratio.toFixed(2)}x (${ratio <= 1.2 ? 'within' : 'NOT within'} the 20% target); rows/s --all / baseline: ${((a.lines / a.wallMs) / (b.lines / b.wallMs)).toFixed(2)}x`);
    const spread = (ws) => ws.map((w) => (w / 1000).toFixed(2)).join(', ');
    log(`every run (s): baseline ${spread(b.walls)}; --all ${spread(a.walls)} (fastest of ${runs} kept; RSS is the highest seen)`);
    return { baseline: b, all: a, ratio };
  } finally {
    emu.child.kill('SIGTERM');
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const c = process.argv.indexOf('--count');
  const r = process.argv.indexOf('--runs');
  await benchCalls({ count: c > 0 ? Number(process.argv[c + 1]) : undefined, runs: r > 0 ? Number(process.argv[r + 1]) : undefined });
}
