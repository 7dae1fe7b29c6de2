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
// page: memory does not grow with the number of calls).
//
// Then the client's CPU time (user + system, process.cpuUsage through cpu-usage.cjs) of
// `calls list --all -o ndjson` and `-o tsv` over the same calls, against the baseline build
// (baseline.mjs: the commit before the start-up work, whose listings wrote one row per
// write), with the bytes of both compared (target: NDJSON at most 0.85x); and the V8 flags
// a listing sets (--semi-space-growth-factor here, --liftoff-only at start) with and
// without, on the same build (v8-flags.cjs). Nothing here is asserted by tests.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { baselineBuild } from './baseline.mjs';
import { machineLine, mb, measureChild, table, startEmulator as startLib } from './lib.mjs';

const CPU = fileURLToPath(new URL('./cpu-usage.cjs', import.meta.url));
const FLAGS = fileURLToPath(new URL('./v8-flags.cjs', import.meta.url));

/**
 * Runs `node -r cpu-usage.cjs [-r v8-flags.cjs] <bin> calls list ...`: CPU time (ms), wall,
 * peak RSS, and a hash and the size of stdout (nothing else of it is kept).
 */
async function measureCpu(bin, listArgs, { env = {}, dropFlags } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'vap-bench-cpu-'));
  const cpuFile = join(dir, 'cpu.json');
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    const pre = ['-r', CPU, ...(dropFlags === undefined ? [] : ['-r', FLAGS])];
    const r = await measureChild([...pre, bin, 'calls', 'list', ...listArgs], {
      env: { ...env, VAP_BENCH_CPU_FILE: cpuFile, ...(dropFlags ? { VAP_BENCH_DROP_FLAGS: dropFlags } : {}) },
      cwd: ROOT,
      onStdout: (c) => {
        hash.update(c);
        bytes += c.length;
      },
    });
    if (r.code !== 0) throw new Error(`calls list exited ${r.code}: ${r.stderr.slice(-500)}`);
    const { user, system } = JSON.parse(readFileSync(cpuFile, 'utf8'));
    return { ...r, cpuMs: (user + system) / 1000, sha: hash.digest('hex'), bytes };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const cpuMedian = (rs) => {
  const s = [...rs].sort((a, b) => a.cpuMs - b.cpuMs);
  return s[Math.floor(s.length / 2)];
};

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

const startEmulator = () => startLib(['--time-scale', '1000', '--org', `bench:${KEY}`]);

async function seed(url, count) {
  const res = await fetch(`${url}/_emulator/calls/seed`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ org: 'bench', count }),
  });
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
    log(
      `seeded ${seeded.inserted.toLocaleString('en-US')} calls in ${secs(performance.now() - t)} (${seeded.totalCalls.toLocaleString('en-US')} in the organization)`,
    );
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
    const best = (rs) => ({
      ...rs.reduce((a, b) => (b.wallMs < a.wallMs ? b : a)),
      walls: rs.map((r) => r.wallMs),
      rssKb: Math.max(...rs.map((r) => r.rssKb)),
    });
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
    log(
      `\npeak RSS --all / baseline: ${ratio.toFixed(2)}x (${ratio <= 1.2 ? 'within' : 'NOT within'} the 20% target); rows/s --all / baseline: ${(a.lines / a.wallMs / (b.lines / b.wallMs)).toFixed(2)}x`,
    );
    const spread = (ws) => ws.map((w) => (w / 1000).toFixed(2)).join(', ');
    log(`every run (s): baseline ${spread(b.walls)}; --all ${spread(a.walls)} (fastest of ${runs} kept; RSS is the highest seen)`);

    // The client's CPU against the baseline build, the same calls, in turn.
    const built = baselineBuild();
    const baseBin = join(built.root, 'bin/vap.js');
    const cpuRows = [['format', 'build', 'CPU (median)', 'wall', 'peak RSS', 'stdout', 'CPU / baseline']];
    const cpu = {};
    for (const format of ['ndjson', 'tsv']) {
      const now = [];
      const then = [];
      for (let i = 0; i < runs; i++) {
        then.push(await measureCpu(baseBin, ['--all', '-o', format], { env }));
        now.push(await measureCpu(BIN, ['--all', '-o', format], { env }));
      }
      const n = cpuMedian(now);
      const t = cpuMedian(then);
      if (now.some((r) => r.sha !== t.sha) || then.some((r) => r.sha !== t.sha))
        throw new Error(`-o ${format}: the output differs from the baseline's (or between runs)`);
      cpu[format] = n.cpuMs / t.cpuMs;
      const row = (label, r, ratio) => [
        `-o ${format}`,
        label,
        `${(r.cpuMs / 1000).toFixed(2)} s`,
        secs(r.wallMs),
        mb(r.rssKb),
        `${(r.bytes / 1048576).toFixed(1)} MB`,
        ratio,
      ];
      cpuRows.push(
        row('baseline', t, ''),
        row('this', n, `${cpu[format].toFixed(2)}x${format === 'ndjson' ? ` (target <= 0.85x: ${cpu[format] <= 0.85 ? 'met' : 'NOT met'})` : ''}`),
      );
    }
    log(
      `\nvap calls list --all over ${wantAll.toLocaleString('en-US')} calls: client CPU (user + system) against ${built.what}; ${runs} runs each, in turn; the same bytes on stdout (sha-256 compared)`,
    );
    log(table(cpuRows));

    // The V8 flags a listing runs with, with and without (the same build; v8-flags.cjs in both runs).
    const flagRows = [['flag', 'with: CPU', 'peak RSS', 'without: CPU', 'peak RSS']];
    for (const flag of ['--semi-space-growth-factor', '--liftoff-only']) {
      const on = [];
      const off = [];
      for (let i = 0; i < runs; i++) {
        on.push(await measureCpu(BIN, ['--all', '-o', 'ndjson'], { env, dropFlags: '' }));
        off.push(await measureCpu(BIN, ['--all', '-o', 'ndjson'], { env, dropFlags: flag }));
      }
      const w = cpuMedian(on);
      const wo = cpuMedian(off);
      flagRows.push([
        flag,
        `${(w.cpuMs / 1000).toFixed(2)} s`,
        mb(Math.max(...on.map((r) => r.rssKb))),
        `${(wo.cpuMs / 1000).toFixed(2)} s`,
        mb(Math.max(...off.map((r) => r.rssKb))),
      ]);
    }
    log(`\nvap calls list --all -o ndjson, with and without each V8 flag it sets (${runs} runs each; CPU: median; RSS: highest)`);
    log(table(flagRows));
    return { baseline: b, all: a, ratio, cpu };
  } finally {
    emu.child.kill('SIGTERM');
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const c = process.argv.indexOf('--count');
  const r = process.argv.indexOf('--runs');
  await benchCalls({ count: c > 0 ? Number(process.argv[c + 1]) : undefined, runs: r > 0 ? Number(process.argv[r + 1]) : undefined });
}
