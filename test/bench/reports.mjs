// Benchmark of the eval reports: writing all four (JUnit, JSON, Markdown, HTML) for a run
// of 50 scenarios × 5 iterations with long transcripts, against `vap evals runs get --json`
// on the same run, measured in the same run.
//
//   npm run build && node test/bench/reports.mjs [--rounds 9] [--trace-rounds 5] [--compare <dir>]
//
// A local emulator (the built binary, --time-scale 1000) holds a suite of 50 scenarios × 5
// iterations; the agent's instructions and the scenarios' personas and goals are long, so
// that the transcripts are too. The suite is run twice (the second run has a previous one).
// Then, each in its own child process (a clean environment: no NODE_EXTRA_CA_CERTS or other
// start-up extras), in turn for `--rounds` rounds (so that drift in the machine's load hits
// all alike), on the second run:
//   baseline      vap evals runs get <eval> <run> --json          the issue's baseline: reads the run only
//   like-for-like vap evals runs get <eval> <run> --wait --json   reads what the reports need (the run, then
//                 --allow-failed-iterations 250                    its results) and prints it: run, aggregates,
//                                                                  results, gates (the gate as the reports': exit 0)
//   results       vap evals runs results <eval> <run> --json      the results alone, read and printed
//   reports       vap evals runs get <eval> <run> -q --report junit=… json=… markdown=… html=…
//   + baseline    the same with --baseline previous (the previous run's results and the verdicts)
// (stdout thrown away.) Median wall time of each, and its ratio to both baselines. Target:
// reports ≤ 1.2x the issue's baseline. Then `--trace-rounds` more rounds of the baseline,
// the like-for-like baseline and the reports, each with test/bench/report-phases.cjs
// preloaded (never in the timed rounds: it costs a little), give where the time goes:
// start, requests, parse, render, write (medians; see that file). The reports written are
// compared, byte for byte, with those of the first round. `--compare <dir>` adds the four
// reports written by another built tree (a folder with bin/vap.js and dist/: say, main
// before a change), timed in the same rounds. Nothing here is asserted by tests.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLine, measureChild, table, startEmulator as startLib, apiData } from './lib.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = join(ROOT, 'bin/vap.js');
const KEY = 'key_bench_reports';
const argText = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

const startEmulator = () => startLib(['--time-scale', '1000', '--seed', '11', '--org', `bench:${KEY}`]);

const api = (url, method, path, body) => apiData({ url, key: KEY }, method, path, body);

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
  const agent = await api(url, 'POST', '/api/v1/agents', {
    name: 'Bench reception',
    engine: 'realtime',
    instructions: `You are the receptionist of a busy dental practice. ${RULES.join(' ')}`,
  });
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

const ext = (kind) => (kind === 'markdown' ? 'md' : kind === 'junit' ? 'xml' : kind);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function benchReports({ rounds = 9, traceRounds = 5, scenarios = 50, iterations = 5, log = (s) => process.stdout.write(`${s}\n`) } = {}) {
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
    log(
      `run #${run.runNumber}: ${results.length} results (${scenarios} scenarios × ${iterations} iterations), transcripts of ${Math.min(...turns)}–${Math.max(...turns)} turns and ${Math.round(median(chars))} characters (median); the results are ${(bytes / 1024 / 1024).toFixed(2)} MB of JSON`,
    );

    // A clean environment for each child: nothing that slows a Node start-up.
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NO_COLOR: '1',
      VAP_BASE_URL: emu.url,
      VAP_API_KEY: KEY,
      VAP_AGENT: agentId,
      VAP_STATE_DIR: out,
      NODE_EXTRA_CA_CERTS: undefined,
      NODE_OPTIONS: undefined,
    };
    const files = (tag) => ['junit', 'json', 'markdown', 'html'].flatMap((k) => ['--report', `${k}=${join(out, tag, `evals.${ext(k)}`)}`]);
    const modes = [
      { key: 'baseline', name: 'baseline: runs get --json', args: ['evals', 'runs', 'get', evalId, run.id, '--json'] },
      {
        key: 'like',
        name: 'like-for-like: runs get --wait --json',
        args: ['evals', 'runs', 'get', evalId, run.id, '--wait', '--allow-failed-iterations', '250', '--json'],
      },
      { key: 'results', name: 'runs results --json', args: ['evals', 'runs', 'results', evalId, run.id, '--json'] },
      { key: 'reports', name: 'all four reports', args: ['evals', 'runs', 'get', evalId, run.id, '-q', '--allow-failed-iterations', '250', ...files('plain')] },
      {
        key: 'reports-baseline',
        name: 'all four reports + --baseline previous',
        args: ['evals', 'runs', 'get', evalId, run.id, '-q', '--allow-failed-iterations', '250', '--baseline', 'previous', ...files('baseline')],
      },
    ].map((m) => ({ ...m, bin: BIN, samples: [] }));
    // --compare <dir>: the reports also written by another built tree (say, main before a change).
    const other = argText('--compare');
    if (other) {
      if (!existsSync(join(other, 'bin/vap.js'))) throw new Error(`--compare ${other}: no bin/vap.js there (a built tree of vap is wanted)`);
      modes.push({
        key: 'compare',
        name: `all four reports, the build in ${other}`,
        bin: join(other, 'bin/vap.js'),
        args: [...modes[3].args.slice(0, -8), ...files('compare')],
        samples: [],
      });
    }
    const runMode = async (m, extra = [], extraEnv = {}) => {
      const r = await measureChild([...extra, m.bin, ...m.args], { env: { ...env, ...extraEnv }, cwd: ROOT });
      if (r.code !== 0) throw new Error(`${m.name} exited ${r.code}: ${r.stderr}`);
      return r;
    };
    // Warm-up (the file cache, the emulator's JIT); the reports it writes are the reference.
    for (const m of modes) await runMode(m);
    const written = (tag) => Object.fromEntries(['junit', 'json', 'markdown', 'html'].map((k) => [k, readFileSync(join(out, tag, `evals.${ext(k)}`))]));
    const reference = { plain: written('plain'), baseline: written('baseline') };
    for (let i = 0; i < rounds; i++) {
      for (const m of modes) m.samples.push((await runMode(m)).wallMs);
    }
    const base = median(modes[0].samples);
    const like = median(modes[1].samples);
    const rows = [['command', 'rounds', 'median ms', 'min ms', 'vs baseline', 'vs like-for-like', 'target', 'ok']];
    for (const m of modes) {
      const med = median(m.samples);
      const target = m.key === 'reports';
      rows.push([
        m.name,
        m.samples.length,
        med.toFixed(0),
        Math.min(...m.samples).toFixed(0),
        `${(med / base).toFixed(2)}x`,
        `${(med / like).toFixed(2)}x`,
        target ? '≤ 1.2x baseline' : '',
        target ? (med / base <= 1.2 ? 'yes' : 'NO') : '',
      ]);
    }
    log(table(rows));

    // Where the time goes: rounds of their own, with the phase tracer preloaded.
    const phases = {};
    const traced = modes.filter((m) => ['baseline', 'like', 'reports'].includes(m.key));
    const phaseFile = join(out, 'phases.ndjson');
    for (let i = 0; i < traceRounds; i++) {
      for (const m of traced) {
        rmSync(phaseFile, { force: true });
        await runMode(m, ['-r', join(ROOT, 'test/bench/report-phases.cjs')], { VAP_BENCH_PHASES: phaseFile });
        (phases[m.key] ??= []).push(JSON.parse(readFileSync(phaseFile, 'utf8')));
      }
    }
    const PHASES = ['start', 'requests', 'parse', 'render', 'write', 'other', 'total', 'gc'];
    const prow = [['phase (ms, median of traced rounds)', ...traced.map((m) => m.key)]];
    for (const p of PHASES) prow.push([p === 'gc' ? 'gc (within the above)' : p, ...traced.map((m) => median(phases[m.key].map((x) => x[p])).toFixed(1))]);
    log(table(prow));

    // The reports of every round are the reports of the first.
    for (const tag of ['plain', 'baseline']) {
      const now = written(tag);
      for (const k of Object.keys(now)) if (!now[k].equals(reference[tag][k])) throw new Error(`the ${k} report (${tag}) differs between rounds`);
    }
    if (other) {
      const theirs = written('compare');
      const differ = Object.keys(theirs).filter((k) => !theirs[k].equals(reference.plain[k]));
      log(
        differ.length
          ? `the build in ${other} writes different reports: ${differ.join(', ')}`
          : `the build in ${other} writes the same four reports, byte for byte`,
      );
    }
    const size = (f) => `${(statSync(join(out, 'baseline', f)).size / 1024).toFixed(0)} KB`;
    log(`report sizes (with the baseline): JUnit ${size('evals.xml')}, JSON ${size('evals.json')}, Markdown ${size('evals.md')}, HTML ${size('evals.html')}`);
    return { baselineMs: base, likeForLikeMs: like, modes: modes.map((m) => ({ name: m.name, median: median(m.samples) })), phases };
  } finally {
    emu.child.kill('SIGINT');
    rmSync(out, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchReports({ rounds: arg('--rounds', 9), traceRounds: arg('--trace-rounds', 5) });
}
