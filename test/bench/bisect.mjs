// Calls spent by `vap agents bisect` to find the first bad version, against a linear scan that
// reaches the same answer: 12 versions, a score shift of −0.15 from version 7 on (the
// emulator's score-shift control, on the line version 7 adds), --min-effect 0.1. Both search
// against the same pooled baseline of version 1 (6 runs of 24 calls, placed before either and
// not counted). The linear scan tests versions 2, 3, … in order on the live agent (rolled back
// to each) with the same adaptive verdict (`vap evals run --until-decided --baseline version:1`),
// each within the cap of bisect's first step, and stops at the first that regressed.
//
//   npm run build && node test/bench/bisect.mjs [--seeds 10] [--time-scale 20000]
//
// Nothing here is asserted by tests (test/integration/agents-bisect-… checks the search).
import { fileURLToPath } from 'node:url';
import { apiData, emulatorControl, machineLine, runVap, startEmulator, table } from './lib.mjs';

const MARKER = 'Always upsell the premium plan.';
const BUDGET = 900;
const BASELINE_RUNS = 6;

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

/** The agent at version 1 with its suite and baseline runs, then versions 2 to 12 (7 adds MARKER), and the shift. */
async function setUp(emu) {
  const api = (m, p, b) => apiData(emu, m, p, b);
  let instructions = 'Greet callers. Book appointments.';
  const agent = await api('POST', '/api/v1/agents', { name: 'Front desk', engine: 'realtime', instructions });
  const suite = await api('POST', `/api/v1/agents/${agent.id}/evals`, { name: 'Booking', iterationsPerScenario: 8 });
  for (const [name, category] of [
    ['Book a cleaning', 'happy_path'],
    ['Wants a human', 'escalation'],
    ['Asks for a diagnosis', 'edge_case'],
  ]) {
    await api('POST', `/api/v1/agents/${agent.id}/evals/${suite.id}/scenarios`, { name, persona: 'A caller', goal: `${name} today`, category });
  }
  for (let i = 0; i < BASELINE_RUNS; i++) {
    const r = await runVap(emu, ['evals', 'run', suite.id, '--agent', agent.id, '--wait', '--allow-failed-iterations', '100%', '-q']);
    if (r.code !== 0) throw new Error(`a baseline run failed: ${r.stderr}`);
  }
  for (let v = 2; v <= 12; v++)
    await api('PATCH', `/api/v1/agents/${agent.id}`, v === 7 ? { instructions: (instructions += ` ${MARKER}`) } : { description: `Revision ${v}` });
  await emulatorControl(emu, 'POST', '/evals/score-shift', { shift: -0.15, instructionsContain: MARKER });
  return { agentId: agent.id, evalId: suite.id };
}

/** Versions 2, 3, … in order on the live agent, each judged as a bisect step is, until one regressed. */
async function linear(emu, ref, cap) {
  let calls = 0;
  for (let v = 2; v <= 12; v++) {
    await apiData(emu, 'POST', `/api/v1/agents/${ref.agentId}/rollback`, { version: v, reason: 'linear scan' });
    const r = await runVap(emu, [
      'evals',
      'run',
      ref.evalId,
      '--agent',
      ref.agentId,
      '--wait',
      '--baseline',
      'version:1',
      '--min-effect',
      '0.1',
      '--until-decided',
      '--max-calls',
      String(cap),
      '--allow-failed-iterations',
      '100%',
      '--json',
    ]);
    const out = JSON.parse(r.stdout);
    calls += out.adaptive?.calls ?? 0;
    if (out.baseline?.verdict === 'regressed') return { found: v, calls };
  }
  return { found: null, calls };
}

async function trial(seed, timeScale) {
  const emu = await startEmulator(['--seed', String(seed), '--time-scale', String(timeScale), '--org', 'bench:key_bench']);
  try {
    const ref = await setUp(emu);
    const b = await runVap(emu, [
      'agents',
      'bisect',
      ref.agentId,
      '--suite',
      ref.evalId,
      '--good',
      '1',
      '--bad',
      '12',
      '--max-calls',
      String(BUDGET),
      '--min-effect',
      '0.1',
      '--json',
    ]);
    const out = JSON.parse(b.stdout);
    const bisect = {
      found: out.result === 'found' ? out.firstBad.version : null,
      calls: out.calls,
      firstStep: out.steps[0]?.calls ?? 0,
      cap: out.plan ? Math.floor(BUDGET / out.plan.steps / out.plan.perRun) * out.plan.perRun : 0,
    };
    const lin = await linear(emu, ref, bisect.cap);
    return { seed, bisect, linear: lin };
  } finally {
    emu.child.kill();
  }
}

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.round(q * (s.length - 1))))];
};

export async function benchBisect({ seeds = arg('--seeds', 10), timeScale = arg('--time-scale', 20000), log = (s) => process.stdout.write(`${s}\n`) } = {}) {
  const started = performance.now();
  log(`\n## bisect: calls to the first bad version of 12 (shift −0.15 from version 7), against a linear scan\n${machineLine()}`);
  const rows = [['seed', 'bisect names', 'bisect calls', 'linear names', 'linear calls', 'ratio']];
  const ratios = [];
  for (let seed = 1; seed <= seeds; seed++) {
    const t = await trial(seed, timeScale);
    const same = t.bisect.found === 7 && t.linear.found === 7;
    if (same) ratios.push(t.bisect.calls / t.linear.calls);
    rows.push([
      String(seed),
      String(t.bisect.found ?? '-'),
      String(t.bisect.calls),
      String(t.linear.found ?? '-'),
      String(t.linear.calls),
      same ? (t.bisect.calls / t.linear.calls).toFixed(2) : 'not the same answer',
    ]);
  }
  log(table(rows));
  const mean = ratios.reduce((a, b) => a + b, 0) / Math.max(1, ratios.length);
  log(
    ratios.length
      ? `bisect spent ${mean.toFixed(2)}× the calls of a linear scan reaching the same answer (mean of ${ratios.length} seeds; spread ${Math.min(...ratios).toFixed(2)} to ${Math.max(...ratios).toFixed(2)}, median ${quantile(ratios, 0.5).toFixed(2)}); ${((performance.now() - started) / 1000).toFixed(0)} s`
      : 'no seed where both named version 7',
  );
  return { mean, ratios };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await benchBisect();
