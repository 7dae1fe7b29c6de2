// Benchmark of the eval reports: writing all four (JUnit, JSON, Markdown, HTML) for a run
// of 50 scenarios × 5 iterations with long transcripts, against `vap evals runs get --json`
// on the same run, measured in the same run.
//
//   npm run build && node test/bench/reports.mjs [--rounds 7]
//
// A local emulator (the built binary, --time-scale 1000) holds a suite of 50 scenarios × 5
// iterations; the agent's instructions and the scenarios' personas and goals are long, so
// that the transcripts are too. The suite is run twice (the second run has a previous one).
// Then, each in its own child process (a clean environment: no NODE_EXTRA_CA_CERTS or other
// start-up extras), in turn for `--rounds` rounds (so that drift in the machine's load hits
// all alike), on the second run:
//   baseline    vap evals runs get <eval> <run> --json                        (stdout thrown away)
//   results     vap evals runs results <eval> <run> --json   (reads the same results the reports need)
//   reports     vap evals runs get <eval> <run> -q --report junit=… json=… markdown=… html=…
//   + baseline  the same with --baseline previous (the previous run's results and the verdicts)
// Median wall time of each, and the ratio to the baseline. Target: reports ≤ 1.2x the
// baseline. Nothing here is asserted by tests.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { machineLine, measureChild, table } from './lib.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/vap.js');
const KEY = 'key_bench_reports';
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

function startEmulator() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'emulator', 'start', '--port', '0', '--json', '--time-scale', '1000', '--seed', '11', '--org', `bench:${KEY}`], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    createInterface({ input: child.stdout }).once('line', (line) => resolve({ child, url: JSON.parse(line).url }));
    child.once('exit', (code) => reject(new Error(`the emulator exited (${code})`)));
  });
}

async function api(url, method, path, body) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()).data;
}

const RULES = [
  'Always greet the caller by the practice name and offer help with bookings, changes and cancellations.',
  'Never give medical advice; offer to book a consultation with a dentist instead.',
  'Always confirm the date, the time and the dentist back to the caller before ending the call.',
  'If the caller is upset, acknowledge it and apologise for the trouble before anything else.',
  'Ask for the booking reference or the date of birth before changing an appointment.',
  'Offer the earliest free slot first, then the next two, and say how long each appointment takes.',
  'Transfer to the front desk when the caller asks for a person, and say that you are doing so.',
];
const CATEGORIES = ['happy_path', 'edge_case', 'adversarial', 'escalation', 'compliance'];

async function seedSuite(url, scenarios, iterations) {
  const agent = await api(url, 'POST', '/api/v1/agents', { name: 'Bench reception', engine: 'realtime', instructions: `You are the receptionist of a busy dental practice. ${RULES.join(' ')}` });
  const suite = await api(url, 'POST', `/api/v1/agents/${agent.id}/evals`, { name: 'Bench reports suite', iterationsPerScenario: iterations });
  for (let i = 0; i < scenarios; i++) {
    await api(url, 'POST', `/api/v1/agents/${agent.id}/evals/${suite.id}/scenarios`, {
      name: `Scenario ${i + 1}: moves a booking with several constraints`,
      persona: `A patient (number ${i + 1}) who works shifts at the hospital, booked for Monday morning with Dr Reid, who already tried the website twice and is running out of patience with the automated messages`,
      goal: `Move the Monday appointment to a Friday afternoon after four o'clock with the same dentist, keep the hygienist slot that follows it, and get a confirmation sent to the new phone number`,
      category: CATEGORIES[i % CATEGORIES.length],
    });
  }
  return { agentId: agent.id, evalId: suite.id };
}

async function waitRun(url, agentId, evalId, runId) {
  for (;;) {
    const d = await api(url, 'GET', `/api/v1/agents/${agentId}/evals/${evalId}/runs/${runId}`);
    if (d.run.status === 'completed' || d.run.status === 'failed') return d.run;
    await new Promise((r) => setTimeout(r, 100));
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function benchReports({ rounds = 7, scenarios = 50, iterations = 5, log = (s) => process.stdout.write(`${s}\n`) } = {}) {
  if (!existsSync(join(ROOT, 'dist/cli.js'))) throw new Error('dist/ is missing: run `npm run build` first');
  log(`\neval reports benchmark (${machineLine()})`);
  const emu = await startEmulator();
  const out = mkdtempSync(join(tmpdir(), 'vap-bench-reports-'));
  try {
    const { agentId, evalId } = await seedSuite(emu.url, scenarios, iterations);
    let run;
    for (let i = 0; i < 2; i++) {
      const started = await api(emu.url, 'POST', `/api/v1/agents/${agentId}/evals/${evalId}/runs`);
      run = await waitRun(emu.url, agentId, evalId, started.id);
    }
    const results = (await api(emu.url, 'GET', `/api/v1/agents/${agentId}/evals/${evalId}/runs/${run.id}/results`)).results;
    const turns = results.map((r) => r.transcript.length);
    const chars = results.map((r) => r.transcript.reduce((n, t) => n + t.text.length, 0));
    const bytes = Buffer.byteLength(JSON.stringify(results));
    log(`run #${run.runNumber}: ${results.length} results (${scenarios} scenarios × ${iterations} iterations), transcripts of ${Math.min(...turns)}–${Math.max(...turns)} turns and ${Math.round(median(chars))} characters (median); the results are ${(bytes / 1024 / 1024).toFixed(2)} MB of JSON`);

    // A clean environment for each child: nothing that slows a Node start-up.
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', VAP_BASE_URL: emu.url, VAP_API_KEY: KEY, VAP_AGENT: agentId, VAP_STATE_DIR: out, NODE_EXTRA_CA_CERTS: undefined, NODE_OPTIONS: undefined };
    const files = (tag) => ['junit', 'json', 'markdown', 'html'].flatMap((k) => ['--report', `${k}=${join(out, tag, `evals.${k === 'markdown' ? 'md' : k === 'junit' ? 'xml' : k}`)}`]);
    const modes = [
      { name: 'baseline: runs get --json', args: ['evals', 'runs', 'get', evalId, run.id, '--json'], samples: [] },
      { name: 'runs results --json (the same results read)', args: ['evals', 'runs', 'results', evalId, run.id, '--json'], samples: [] },
      { name: 'all four reports', args: ['evals', 'runs', 'get', evalId, run.id, '-q', '--allow-failed-iterations', '250', ...files('plain')], samples: [] },
      { name: 'all four reports + --baseline previous', args: ['evals', 'runs', 'get', evalId, run.id, '-q', '--allow-failed-iterations', '250', '--baseline', 'previous', ...files('baseline')], samples: [] },
    ];
    // Warm-up (the file cache, the emulator's JIT).
    for (const m of modes) {
      const r = await measureChild([BIN, ...m.args], { env, cwd: ROOT });
      if (r.code !== 0) throw new Error(`${m.name} exited ${r.code}: ${r.stderr}`);
    }
    for (let i = 0; i < rounds; i++) {
      for (const m of modes) {
        const r = await measureChild([BIN, ...m.args], { env, cwd: ROOT });
        if (r.code !== 0) throw new Error(`${m.name} exited ${r.code}: ${r.stderr}`);
        m.samples.push(r.wallMs);
      }
    }
    const base = median(modes[0].samples);
    const rows = [['command', 'rounds', 'median ms', 'min ms', 'ratio', 'target', 'ok']];
    modes.forEach((m, i) => {
      const med = median(m.samples);
      const target = m.name === 'all four reports';
      rows.push([m.name, m.samples.length, med.toFixed(0), Math.min(...m.samples).toFixed(0), `${(med / base).toFixed(2)}x`, target ? '≤ 1.2x' : '', target ? (med / base <= 1.2 ? 'yes' : 'NO') : '']);
    });
    log(table(rows));
    const size = (f) => `${(statSync(join(out, 'baseline', f)).size / 1024).toFixed(0)} KB`;
    log(`report sizes (with the baseline): JUnit ${size('evals.xml')}, JSON ${size('evals.json')}, Markdown ${size('evals.md')}, HTML ${size('evals.html')}`);
    return { baselineMs: base, modes: modes.map((m) => ({ name: m.name, median: median(m.samples) })) };
  } finally {
    emu.child.kill('SIGINT');
    rmSync(out, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchReports({ rounds: arg('--rounds', 7) });
}
