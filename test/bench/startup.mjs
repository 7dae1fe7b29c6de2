// Start-up benchmark: medians of vap commands beside `node -e 0`, measured in one run,
// round-robin so that drift in machine load hits every command alike.
// Usage: npm run build && node test/bench/startup.mjs [--runs 21]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/vap.js');
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 21;

function startEmulator() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'emulator', 'start', '--port', '0', '--json', '--org', 'bench:key_bench'], { stdio: ['ignore', 'pipe', 'inherit'] });
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ child, ...JSON.parse(line) }));
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
  });
}

function timeOnce(cmd, args, env) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

export async function benchStartup() {
  const emu = await startEmulator();
  const configDir = mkdtempSync(join(tmpdir(), 'vap-bench-config-'));
  const baseEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' };
  const envKey = { ...baseEnv, VAP_BASE_URL: emu.url, VAP_API_KEY: 'key_bench', VAP_CONFIG_DIR: configDir };
  const envProfile = { ...baseEnv, VAP_CONFIG_DIR: configDir };
  try {
    // 20 agents to list, and a stored profile for the second variant.
    for (let i = 0; i < 20; i++) {
      spawnSync(process.execPath, [BIN, 'agents', 'create', '--name', `Agent ${i}`, '--instructions', 'Greet callers and book appointments.', '--engine', 'realtime', '-q'], { env: envKey });
    }
    const login = spawnSync(process.execPath, [BIN, 'auth', 'login', '--with-key', '--base-url', emu.url], { env: envProfile, input: 'key_bench\n' });
    if (login.status !== 0) throw new Error(`auth login failed: ${login.stderr}`);

    // The HTTP client the design mandates, alone: import the bundled undici (as vap does)
    // and make the same one request. What vap adds on top of this is its own cost.
    const meta = JSON.parse(readFileSync(join(ROOT, 'dist/meta.json'), 'utf8'));
    const undiciChunk = Object.entries(meta.outputs).find(([, o]) => o.entryPoint === 'src/vendor/undici.ts')?.[0];
    const undiciFloor = `import { setFlagsFromString } from 'node:v8'; setFlagsFromString('--liftoff-only');
      const { Agent } = await import(${JSON.stringify(join(ROOT, undiciChunk ?? 'dist/missing.js'))});
      const a = new Agent({ maxHeaderSize: 16384 });
      const r = await a.request({ origin: ${JSON.stringify(emu.url)}, path: '/api/v1/agents?page=1&pageSize=30', method: 'GET', headers: { authorization: 'Bearer key_bench' } });
      process.stdout.write(await r.body.text()); await a.close();`;

    const cases = [
      { name: 'node -e 0', args: ['-e', '0'], env: baseEnv },
      { name: 'undici alone: one GET (floor)', args: ['--input-type=module', '-e', undiciFloor], env: baseEnv },
      { name: 'vap --version', args: [BIN, '--version'], env: baseEnv, target: 1.5 },
      { name: 'vap agents --help', args: [BIN, 'agents', '--help'], env: baseEnv },
      { name: 'vap agents list (VAP_API_KEY)', args: [BIN, 'agents', 'list'], env: envKey, target: 2.5 },
      { name: 'vap agents list (profile)', args: [BIN, 'agents', 'list'], env: envProfile, target: 2.5 },
    ];
    const samples = cases.map(() => []);
    for (let i = 0; i < 3; i++) cases.forEach((c) => timeOnce(process.execPath, c.args, c.env)); // warm-up
    for (let i = 0; i < RUNS; i++) cases.forEach((c, j) => samples[j].push(timeOnce(process.execPath, c.args, c.env)));
    const base = median(samples[0]);
    const rows = cases.map((c, j) => {
      const m = median(samples[j]);
      const ratio = m / base;
      return { command: c.name, 'median ms': m.toFixed(1), ratio: `${ratio.toFixed(2)}x`, target: c.target ? `<= ${c.target}x` : '', ok: c.target ? (ratio <= c.target ? 'yes' : 'NO') : '' };
    });
    console.log(`\nStart-up (${RUNS} runs each, medians; baseline node -e 0 = ${base.toFixed(1)} ms)`);
    console.table(rows);
    return rows;
  } finally {
    emu.child.kill('SIGINT');
    rmSync(configDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchStartup();
}
