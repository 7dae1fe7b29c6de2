// Benchmark of `vap evals run --wait`: how long after the run ends does the command exit?
//
//   npm run build && node test/bench/evals.mjs [--runs 20] [--time-scale 100]
//
// A local emulator (child process, --time-scale 100: a run lasts one to three seconds, long
// enough for the polls to reach their cap) holds a suite of 2 scenarios × 2 iterations. For each mode, in turn (round-robin, so drift in machine load hits both
// alike), `node bin/vap.js evals run <id> --agent <a> --wait -q` runs --runs times:
//   polling        VAP_WAIT_POLL=1: capped backoff, 150 ms ×1.5 up to 500 ms
//   event-driven   the default: eval.run.completed on the organization's event stream
// Latency = the child's exit (Date.now() in this process on 'exit') minus the moment the
// emulator appended the run's eval.run.completed event (realTimeMs, GET /_emulator/events),
// on the same machine clock. p50 and p95 per mode, beside a baseline measured in the same
// run: the whole wall time of a bare `vap evals runs get <evalId> <runId> -q` (start-up,
// one request, printing, exit), and the ratio of each p95 to it.
// Targets: polling p95 < 1 s; event-driven p95 < 100 ms. Nothing here is asserted by tests.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLine, table, startEmulator as startLib, apiData } from './lib.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/vap.js');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

const startEmulator = (timeScale) => startLib(['--time-scale', String(timeScale), '--org', 'bench:key_bench']);

const api = (emu, method, path, body) => apiData(emu, method, path, body);

/** The real time (ms since the epoch) at which the emulator appended the run's completion event. */
async function completedAt(emu, runId) {
  for (let i = 0; i < 50; i++) {
    const res = await fetch(`${emu.url}/_emulator/events?org=bench&type=eval.run.completed`);
    const body = await res.json();
    const events = Array.isArray(body) ? body : (body.events ?? body.data?.events ?? []);
    const e = events.find((x) => (x.data?.runId ?? x.event?.data?.runId ?? x.envelope?.data?.runId) === runId);
    if (e) return e.realTimeMs;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no eval.run.completed event for ${runId}`);
}

/** Runs a child to its exit; resolves with its exit time (epoch ms), wall time, code and output. */
function runChild(args, env) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('exit', (code) => {
      const exitedAt = Date.now();
      const wallMs = performance.now() - started;
      child.on('close', () => resolve({ code, exitedAt, wallMs, stdout, stderr }));
    });
  });
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};

export async function benchEvals({ runs = 20, timeScale = 100, log = (s) => process.stdout.write(`${s}\n`) } = {}) {
  if (!existsSync(join(ROOT, 'dist/cli.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  log(`\nevals run --wait benchmark (${machineLine()})`);
  const emu = await startEmulator(timeScale);
  try {
    const agent = await api(emu, 'POST', '/api/v1/agents', { name: 'Bench', engine: 'realtime', instructions: 'Greet callers. Book appointments.' });
    const suite = await api(emu, 'POST', `/api/v1/agents/${agent.id}/evals`, { name: 'Bench suite', iterationsPerScenario: 2 });
    for (const [name, category] of [
      ['Book a cleaning', 'happy_path'],
      ['Wants a human', 'escalation'],
    ]) {
      await api(emu, 'POST', `/api/v1/agents/${agent.id}/evals/${suite.id}/scenarios`, { name, persona: 'A caller', goal: `${name} today`, category });
    }
    // Is there an event stream to use? Without one the event-driven mode falls back to polling.
    const probe = new AbortController();
    const streamStatus = await fetch(`${emu.url}/api/v1/events?types=eval.run.completed`, {
      headers: { authorization: `Bearer ${emu.key}` },
      signal: probe.signal,
    })
      .then((res) => {
        probe.abort();
        return res.status;
      })
      .catch((err) => `unreachable (${err.message})`);
    const base = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', VAP_BASE_URL: emu.url, VAP_API_KEY: emu.key, VAP_AGENT: agent.id };
    const modes = [
      { name: 'polling (VAP_WAIT_POLL=1)', env: { ...base, VAP_WAIT_POLL: '1' }, target: 1000, samples: [] },
      { name: 'event-driven (default)', env: base, target: 100, samples: [] },
    ];
    const runArgs = ['evals', 'run', suite.id, '--wait', '--allow-failed-iterations', '100', '-q'];
    // Warm-up: one of each (also leaves a finished run for the baseline).
    let lastRunId;
    for (const m of modes) {
      const r = await runChild(runArgs, m.env);
      if (r.code !== 0) throw new Error(`warm-up ${m.name} exited ${r.code}: ${r.stderr}`);
      lastRunId = r.stdout.trim();
    }
    const baseline = [];
    for (let i = 0; i < runs; i++) {
      for (const m of modes) {
        const r = await runChild(runArgs, m.env);
        if (r.code !== 0) throw new Error(`${m.name} exited ${r.code}: ${r.stderr}`);
        const runId = r.stdout.trim();
        m.samples.push(r.exitedAt - (await completedAt(emu, runId)));
      }
      const b = await runChild(['evals', 'runs', 'get', suite.id, lastRunId, '-q'], base);
      if (b.code !== 0) throw new Error(`baseline exited ${b.code}: ${b.stderr}`);
      baseline.push(b.wallMs);
    }
    const baseMs = pct(baseline, 50);
    const rows = [['mode', 'runs', 'p50 ms', 'p95 ms', 'max ms', 'p95 / baseline', 'target p95', 'ok']];
    for (const m of modes) {
      const p95 = pct(m.samples, 95);
      rows.push([
        m.name,
        m.samples.length,
        pct(m.samples, 50).toFixed(0),
        p95.toFixed(0),
        Math.max(...m.samples).toFixed(0),
        `${(p95 / baseMs).toFixed(2)}x`,
        `< ${m.target} ms`,
        p95 < m.target ? 'yes' : 'NO',
      ]);
    }
    log(
      `latency from the run's completion (emulator event) to the exit of \`vap evals run --wait\`; baseline: a whole \`vap evals runs get\` = ${baseMs.toFixed(0)} ms (median of ${baseline.length})`,
    );
    log(table(rows));
    if (streamStatus !== 200) log(`note: the emulator's event stream answered ${streamStatus}: the event-driven mode fell back to polling`);
    return { baselineMs: baseMs, modes: modes.map((m) => ({ name: m.name, p50: pct(m.samples, 50), p95: pct(m.samples, 95) })) };
  } finally {
    emu.child.kill('SIGINT');
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchEvals({ runs: arg('--runs', 20), timeScale: arg('--time-scale', 100) });
}
