// Benchmark of `vap contacts import`: speed and memory against a floor, in one run.
//
//   npm run build && node test/bench/contacts.mjs [--sizes 100000,1000000] [--runs 3] [--keep]
//
// For each size it generates a CSV (six columns, one of every schema type, ~5% of rows
// invalid) in a temporary directory, then measures, each in its own child process:
//   floor     bare csv-parse over the file, same options as the importer (csv-floor.mjs)
//   dry-run   node bin/vap.js contacts import <list> <file> --dry-run
//   import    the full import into a local emulator (started here with --time-scale 1000)
// and prints wall time, rows per second, the ratio to the floor and the peak RSS of
// each (by /usr/bin/time -f %M when present, else by polling VmHWM in /proc/<pid>/status).
// The floor and the dry run are run --runs times (default 3) in turn and the fastest
// of each is kept (the machine may be shared: the slowest runs measure the neighbours);
// the spread is printed too, and RSS is the highest seen.
// Targets: dry-run at most 2x the floor; peak RSS at most 200 MB and within 20% between
// the smallest and the largest file. Then the largest file's dry run with and without the
// V8 flag the import sets (--heap-growing-percent=100; v8-flags.cjs drops it). Nothing here is asserted by the tests.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_SCHEMA, generateContactsCsv } from './generate-contacts.mjs';
import { machineLine, mb, measureChild, table, startEmulator as startLib } from './lib.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/vap.js');
const FLOOR = fileURLToPath(new URL('./csv-floor.mjs', import.meta.url));
const FLAGS = fileURLToPath(new URL('./v8-flags.cjs', import.meta.url));

/** Runs a child; resolves with wall time, peak RSS (KB), exit code and output. */
async function measure(args, { env = {}, cwd = ROOT } = {}) {
  let stdout = '';
  const r = await measureChild(args, { env, cwd, onStdout: (c) => (stdout += c) });
  return { ...r, stdout };
}

/** Runs a child `runs` times: the fastest run, every wall time, and the highest peak RSS. */
async function measureBest(args, opts, runs) {
  const all = [];
  for (let i = 0; i < runs; i++) all.push(await measure(args, opts));
  const best = all.reduce((a, b) => (b.wallMs < a.wallMs ? b : a));
  return { ...best, walls: all.map((r) => r.wallMs), rssKb: Math.max(...all.map((r) => r.rssKb)) };
}

/** Starts `vap emulator start --port 0 --json --time-scale 1000` and reads its URL and key. */
const startEmulator = () => startLib(['--time-scale', '1000', '--org', 'bench:key_bench']);

async function createList(emu, name) {
  const res = await fetch(`${emu.url}/api/v1/contact-lists`, {
    method: 'POST',
    headers: { 'x-api-key': emu.key, 'content-type': 'application/json' },
    body: JSON.stringify({ name, schema: BENCH_SCHEMA }),
  });
  if (!res.ok) throw new Error(`create list: ${res.status} ${await res.text()}`);
  return (await res.json()).data.id;
}

async function contactCount(emu, listId) {
  const res = await fetch(`${emu.url}/api/v1/contact-lists/${listId}`, { headers: { 'x-api-key': emu.key } });
  return (await res.json()).data.contactCount;
}

const secs = (ms) => `${(ms / 1000).toFixed(2)} s`;
const rate = (rows, ms) => `${Math.round((rows * 1000) / ms).toLocaleString('en-US')}/s`;

export async function benchContacts({ sizes = [100_000, 1_000_000], runs = 3, keep = false, log = (s) => process.stdout.write(`${s}\n`) } = {}) {
  if (!existsSync(join(ROOT, 'dist/cli.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  const dir = await mkdtemp(join(tmpdir(), 'vap-bench-contacts-'));
  log(`\ncontacts import benchmark (${machineLine()})`);
  log(`files in ${dir}`);
  const emu = await startEmulator();
  const results = [];
  let flagPair;
  try {
    for (const n of sizes) {
      const file = join(dir, `contacts-${n}.csv`);
      const t = performance.now();
      const { invalid } = await generateContactsCsv(file, n, { invalidRate: 0.05, seed: 42 });
      const { size } = await import('node:fs').then((fs) => fs.statSync(file));
      log(
        `generated ${n.toLocaleString('en-US')} rows (${invalid.toLocaleString('en-US')} invalid, ${(size / 1048576).toFixed(1)} MB) in ${secs(performance.now() - t)}`,
      );

      const env = { VAP_BASE_URL: emu.url, VAP_API_KEY: emu.key };
      const dryList = await createList(emu, `dry-${n}`);
      const floorRuns = [];
      const dryRuns = [];
      // In turn, so that both see the same neighbours.
      for (let i = 0; i < runs; i++) {
        floorRuns.push(await measureBest([FLOOR, file], {}, 1));
        dryRuns.push(await measureBest([BIN, 'contacts', 'import', dryList, file, '--dry-run', '--default-country', 'US', '--json'], { env }, 1));
      }
      const best = (rs) => ({
        ...rs.reduce((a, b) => (b.wallMs < a.wallMs ? b : a)),
        walls: rs.map((r) => r.wallMs),
        rssKb: Math.max(...rs.map((r) => r.rssKb)),
      });
      const floor = best(floorRuns);
      const dry = best(dryRuns);
      if (floor.code !== 0) throw new Error(`floor failed: ${floor.stderr}`);
      const floorParseMs = JSON.parse(floor.stdout).parseMs;
      const drySummary = JSON.parse(dry.stdout || '{}');
      if (drySummary.rows !== n) throw new Error(`dry run read ${drySummary.rows} rows, not ${n}: ${dry.stderr.slice(-500)}`);

      const list = await createList(emu, `import-${n}`);
      const full = await measure(
        [
          BIN,
          'contacts',
          'import',
          list,
          file,
          '--default-country',
          'US',
          '--allow-invalid',
          '--json',
          '--state-file',
          join(dir, `state-${n}.json`),
          '--errors-file',
          join(dir, `errors-${n}.csv`),
        ],
        { env },
      );
      const fullSummary = JSON.parse(full.stdout || '{}');
      const count = await contactCount(emu, list);
      if (full.code !== 0 || count !== fullSummary.imported)
        throw new Error(`import: exit ${full.code}, ${count} contacts for ${fullSummary.imported} imported: ${full.stderr.slice(-500)}`);
      results.push({ n, invalid, size, floor, floorParseMs, dry, drySummary, full, fullSummary, count, file, dryList });
    }
    // The V8 flag an import sets (--heap-growing-percent=100, src/contacts/importer.ts), with
    // and without, on the largest file's dry run (the same build; v8-flags.cjs in both runs).
    const last = results[results.length - 1];
    const dryArgs = [BIN, 'contacts', 'import', last.dryList, last.file, '--dry-run', '--default-country', 'US', '--json'];
    const env = { VAP_BASE_URL: emu.url, VAP_API_KEY: emu.key };
    const on = [];
    const off = [];
    for (let i = 0; i < Math.min(runs, 2); i++) {
      on.push(await measure(['-r', FLAGS, ...dryArgs], { env }));
      off.push(await measure(['-r', FLAGS, ...dryArgs], { env: { ...env, VAP_BENCH_DROP_FLAGS: '--heap-growing-percent' } }));
    }
    // A dry run over a file with invalid rows exits 3 (a check failed); what it read is in its summary.
    for (const r of [...on, ...off]) if (JSON.parse(r.stdout || '{}').rows !== last.n) throw new Error(`dry run failed: ${r.stderr.slice(-500)}`);
    const fastest = (rs) => Math.min(...rs.map((r) => r.wallMs));
    const peak = (rs) => Math.max(...rs.map((r) => r.rssKb));
    flagPair = { n: last.n, runs: on.length, with: { wallMs: fastest(on), rssKb: peak(on) }, without: { wallMs: fastest(off), rssKb: peak(off) } };
  } finally {
    emu.child.kill('SIGTERM');
    if (!keep) await rm(dir, { recursive: true, force: true });
  }

  const rows = [
    [
      'file',
      'rows',
      'floor parse',
      'floor process',
      'dry-run',
      'dry/floor',
      'dry rows/s',
      'dry RSS',
      'floor RSS',
      'import',
      'import rows/s',
      'import RSS',
      'imported',
      'jobs',
    ],
  ];
  for (const r of results) {
    rows.push([
      `${(r.size / 1048576).toFixed(0)} MB CSV`,
      r.n.toLocaleString('en-US'),
      secs(r.floorParseMs),
      secs(r.floor.wallMs),
      secs(r.dry.wallMs),
      `${(r.dry.wallMs / r.floor.wallMs).toFixed(2)}x`,
      rate(r.n, r.dry.wallMs),
      mb(r.dry.rssKb),
      mb(r.floor.rssKb),
      secs(r.full.wallMs),
      rate(r.n, r.full.wallMs),
      mb(r.full.rssKb),
      r.count.toLocaleString('en-US'),
      r.fullSummary.jobs,
    ]);
  }
  log(`\n${table(rows)}`);
  if (results.length >= 2) {
    const a = results[0];
    const b = results[results.length - 1];
    const pct = (x, y) => `${(((y - x) / x) * 100).toFixed(0)}%`;
    log(
      `\npeak RSS ${b.n.toLocaleString('en-US')} vs ${a.n.toLocaleString('en-US')} rows: dry-run ${pct(a.dry.rssKb, b.dry.rssKb)}, import ${pct(a.full.rssKb, b.full.rssKb)} (target: within 20%, at most 200 MB)`,
    );
  }
  const spread = (ws) => ws.map((w) => (w / 1000).toFixed(2)).join(', ');
  for (const r of results) log(`${r.n.toLocaleString('en-US')} rows, every run (s): floor ${spread(r.floor.walls)}; dry-run ${spread(r.dry.walls)}`);
  const worst = Math.max(...results.map((r) => r.dry.wallMs / r.floor.wallMs));
  log(
    `dry-run / floor: worst ${worst.toFixed(2)}x (target: at most 2x), fastest of ${runs} runs each. Floor = bare csv-parse in a child process, same options; "floor parse" is its parse time alone.`,
  );
  log(
    `--heap-growing-percent=100, ${flagPair.n.toLocaleString('en-US')} rows, dry run (fastest and highest of ${flagPair.runs}): with ${secs(flagPair.with.wallMs)}, peak RSS ${mb(flagPair.with.rssKb)}; without ${secs(flagPair.without.wallMs)}, peak RSS ${mb(flagPair.without.rssKb)}`,
  );
  log(
    `rejected rows: ${results.map((r) => `${r.drySummary.rejectedLocally.toLocaleString('en-US')} of ${r.n.toLocaleString('en-US')} (generated ${r.invalid.toLocaleString('en-US')})`).join('; ')}`,
  );
  return results;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const i = process.argv.indexOf('--sizes');
  const sizes = i > 0 ? process.argv[i + 1].split(',').map(Number) : undefined;
  const r = process.argv.indexOf('--runs');
  await benchContacts({ sizes, runs: r > 0 ? Number(process.argv[r + 1]) : undefined, keep: process.argv.includes('--keep') });
}
