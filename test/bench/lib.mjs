// What the benchmarks share: running a child while measuring its wall time and peak RSS,
// the machine line each benchmark starts with, the plain-text result table, and starting
// the built emulator and calling its API.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const TIME = '/usr/bin/time';

/**
 * Runs `node ...args`; resolves with its exit code, wall time, peak RSS (KB: by
 * /usr/bin/time -f %M when present, else by polling VmHWM in /proc/<pid>/status) and
 * stderr. `onStdout` sees each stdout chunk (nothing is kept otherwise).
 */
export async function measureChild(args, { env = {}, cwd, onStdout = () => {} } = {}) {
  const hasTime = existsSync(TIME);
  const rssDir = hasTime ? await mkdtemp(join(tmpdir(), 'vap-rss-')) : undefined;
  const rssFile = rssDir ? join(rssDir, 'rss') : undefined;
  const cmd = hasTime ? TIME : process.execPath;
  const argv = hasTime ? ['-f', '%M', '-o', rssFile, process.execPath, ...args] : args;
  const started = performance.now();
  const child = spawn(cmd, argv, { cwd, env: { ...cleanEnv(), NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', onStdout);
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  let hwm = 0;
  const poll = hasTime
    ? undefined
    : setInterval(async () => {
        try {
          const m = /VmHWM:\s+(\d+) kB/.exec(await readFile(`/proc/${child.pid}/status`, 'utf8'));
          if (m) hwm = Math.max(hwm, Number(m[1]));
        } catch {
          // gone
        }
      }, 20);
  const code = await new Promise((resolve) => child.on('close', resolve));
  const wallMs = performance.now() - started;
  if (poll) clearInterval(poll);
  let rssKb = hwm;
  if (rssDir) {
    const text = await readFile(rssFile, 'utf8').catch(() => '');
    rssKb = Number(text.trim().split('\n').pop()) || 0;
    await rm(rssDir, { recursive: true, force: true });
  }
  return { code, wallMs, rssKb, stderr };
}

/**
 * This process's environment without what slows or changes Node's own start in a child:
 * NODE_EXTRA_CA_CERTS pointing at a large bundle adds about 40 ms to every start here;
 * NODE_OPTIONS could add anything.
 */
export function cleanEnv() {
  const env = { ...process.env };
  for (const k of ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS', 'NODE_COMPILE_CACHE', 'NODE_V8_COVERAGE', 'NODE_DEBUG']) delete env[k];
  return env;
}

/** `node 20.20.2, 2 cores: <model>, load 0.12 0.34 0.56`: what a figure was measured on. */
export function machineLine() {
  return `node ${process.versions.node}, ${availableParallelism()} cores: ${cpus()[0]?.model ?? '?'}, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;
}

/** Rows as a plain-text table: the first row is the header, the first column left-aligned. */
export function table(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  return rows
    .map((r, i) => {
      const line = r.map((v, c) => (c === 0 ? String(v).padEnd(widths[c]) : String(v).padStart(widths[c]))).join('  ');
      return i === 0 ? `${line}\n${widths.map((w) => '-'.repeat(w)).join('  ')}` : line;
    })
    .join('\n');
}

export const mb = (kb) => `${(kb / 1024).toFixed(0)} MB`;

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/vap.js');

/**
 * Starts the built emulator (`vap emulator start --port 0 --json …args`) in a clean
 * environment (or `env`); resolves, once it listens, with the child, its URL, its
 * organizations and the first one's API key.
 */
export function startEmulator(args = [], { env = { ...cleanEnv(), NO_COLOR: '1' } } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'emulator', 'start', '--port', '0', '--json', ...args], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    createInterface({ input: child.stdout }).once('line', (line) => {
      const info = JSON.parse(line);
      resolve({ child, ...info, key: info.orgs?.[0]?.apiKey });
    });
    child.once('exit', (code) => reject(new Error(`the emulator exited (${code})`)));
  });
}

/** One API request with `key`; resolves with the answer's `data`, or rejects with the status and body. */
export async function apiData({ url, key }, method, path, body) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()).data;
}

/** Runs the built `vap …args` against an emulator, with no profile of its own; resolves with its exit code, stdout and stderr. */
export function runVap(emu, args) {
  return new Promise((resolve) => {
    const env = {
      ...cleanEnv(),
      NO_COLOR: '1',
      VAP_BASE_URL: emu.url,
      VAP_API_KEY: emu.key,
      VAP_CONFIG_DIR: join(ROOT, '.bench-config-none'),
      VAP_WAIT_POLL: '1',
    };
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A request to the emulator's control path (`/_emulator/…`); resolves with its JSON answer. */
export async function emulatorControl(emu, method, path, body) {
  const res = await fetch(`${emu.url}/_emulator${path}`, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}
