import type { CriterionScore, Run, RunDetail, RunResult } from '../../src/api/evals.js';
import { compareRuns } from '../../src/evals/compare.js';
import { evaluateGates, type GateSpec } from '../../src/evals/gates.js';
import type { RunOutcome } from '../../src/evals/outcome.js';
import { seededRandom } from '../../src/emulator/ids.js';
import type { TranscriptLine } from '../../src/spec/evals.js';

// Fixed runs for the eval reports (JUnit, JSON, Markdown, HTML), made from a seeded
// generator so that every run of the tests builds the same outcomes: a completed run
// against a baseline (a regression, an improvement, failed iterations, failed gates), a
// run that failed, waits that ended early (timeout, Ctrl-C), failed iterations allowed
// with no baseline to compare with, and one long enough that the Markdown report must be
// cut to GitHub's comment limit. Names, transcripts, reasons and errors carry hostile
// text: markup, Markdown, control characters, bidirectional overrides, characters XML
// cannot carry, lone surrogates, astral characters.

/** A small seeded generator (mulberry32, the emulator's): the same numbers on every run. */
const random = seededRandom;

/** Text that every report must escape, each its own way. */
export const HOSTILE = [
  'Tom & Jerry <b>bold</b> "quoted" \'single\' `tick` | pipe *star* _under_ ~tilde~ #hash [link](x) {brace} !bang @octocat',
  'esc \x1b[31mred\x1b[0m bell \x07 nul \x00 vt \x0b del \x7f c1 \x85\x9b',
  'bidi \u202eevil\u202c iso \u2066x\u2069 line\u2028sep para\u2029sep',
  'not XML \uFFFE \uFFFF lone \uD800 surrogate \uDC00, astral 🎉 𝔘 ok',
  'multi\nline\r\nwith\ttab and trailing space  ',
  ']]> --> <!-- <![CDATA[ x ]]> &amp; &#39; &lt;script&gt;',
  '<script>alert(1)</script><img src=x onerror=alert(2)>',
];

const PLAIN = [
  'Hello, you have reached the practice. How can I help you today?',
  "I'd like to move my Monday appointment to Friday afternoon, if that's possible.",
  'Of course. Could you give me the booking reference or your date of birth?',
  'Sure, it is 12 March 1985. The dentist is Dr Reid.',
  'Thank you. Friday at 4:30 pm with Dr Reid is free; the appointment takes 30 minutes.',
  'That works — thanks so much!',
  'You are all set. Is there anything else I can help with?',
  'No, that is all. Goodbye.',
];

const CRITERIA = [
  { key: 'goal_completion', name: 'Goal completion', weight: 0.4 },
  { key: 'instruction_adherence', name: 'Instruction <adherence> & rules', weight: 0.3 },
  { key: 'tone', name: 'tone', weight: 0.2 },
  { key: 'efficiency', name: null, weight: null },
];

interface ScenarioSpec {
  id: string;
  name: string;
  /** Mean score of the scenario's iterations; null: every iteration fails. */
  mean: number | null;
  /** Iterations that fail (1-based). */
  failing?: number[];
}

function results(
  rand: () => number,
  scenarios: readonly ScenarioSpec[],
  iterations: number,
  opts: { prefix: string; turns: number; longText?: boolean },
): RunResult[] {
  const out: RunResult[] = [];
  for (const s of scenarios) {
    for (let i = 1; i <= iterations; i++) {
      const failed = s.mean === null || (s.failing ?? []).includes(i);
      const score = failed ? null : Math.max(0, Math.min(1, Math.round(((s.mean ?? 0) + (rand() - 0.5) * 0.06) * 1000) / 1000));
      const turns = Math.max(0, Math.round(opts.turns * (0.5 + rand())));
      const transcript: TranscriptLine[] = [];
      for (let k = 0; k < turns; k++) {
        const pick = rand();
        const base = pick < 0.15 ? HOSTILE[Math.floor(rand() * HOSTILE.length)]! : PLAIN[k % PLAIN.length]!;
        transcript.push({ role: k % 2 ? 'user' : 'agent', text: opts.longText ? `${base} ${PLAIN.join(' ')} ${PLAIN.join(' ')}` : base, ordinal: k });
      }
      // The API does not promise the order of the lines: one transcript comes reversed.
      if (i === 2) transcript.reverse();
      const criterionScores: CriterionScore[] = failed
        ? []
        : CRITERIA.map((c, k) => ({
            criterionKey: c.key,
            score: Math.round(rand() * 1000) / 1000,
            reason: k === 1 && rand() < 0.3 ? HOSTILE[i % HOSTILE.length]! : `${c.name ?? c.key}: ${PLAIN[(i + k) % PLAIN.length]}`,
          }));
      out.push({
        id: `res_${opts.prefix}_${s.id}_${i}`,
        evalScenarioId: s.id,
        scenarioName: s.name,
        iterationNumber: i,
        status: failed ? 'failed' : 'completed',
        overallScore: score,
        durationSeconds: i === 3 ? 0 : Math.round(rand() * 3000) / 10,
        ...(i === 4 ? {} : { transcript }),
        criterionScores,
        error: failed ? (i % 2 ? 'the call dropped after 3 s' : `the tester hung up: ${HOSTILE[i % HOSTILE.length]}`) : null,
      });
    }
  }
  return out;
}

function detailOf(id: string, runNumber: number, rs: readonly RunResult[], extra: Partial<Run> = {}): RunDetail {
  const scored = rs.filter((r) => typeof r.overallScore === 'number');
  const mean = scored.length ? Math.round((scored.reduce((a, r) => a + (r.overallScore as number), 0) / scored.length) * 1000) / 1000 : null;
  return {
    run: {
      id,
      runNumber,
      status: 'completed',
      totalIterations: rs.length,
      completedIterations: rs.filter((r) => r.status === 'completed').length,
      failedIterations: rs.filter((r) => r.status === 'failed').length,
      overallScore: mean,
      agentVersion: runNumber > 3 ? 3 : 2,
      createdAt: '2025-06-01T10:00:00.000Z',
      startedAt: '2025-06-01T10:00:01.000Z',
      completedAt: '2025-06-01T10:04:00.000Z',
      ...extra,
    },
    aggregates: {
      criteria: CRITERIA.map((c) => {
        const xs = rs.flatMap((r) => (r.criterionScores ?? []).filter((s) => s.criterionKey === c.key).map((s) => s.score));
        return {
          criterionKey: c.key,
          averageScore: xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 1000) / 1000 : null,
          maxScore: xs.length ? Math.max(...xs) : null,
          ...(c.name === null ? {} : { name: c.name }),
          ...(c.weight === null ? {} : { weight: c.weight }),
        };
      }),
    },
  };
}

function history(current: RunDetail['run'], count: number): Run[] {
  const runs: Run[] = [];
  for (let n = count; n >= 1; n--) {
    if (n === current.runNumber) runs.push(current);
    else
      runs.push({
        id: `run_hist_${n}`,
        runNumber: n,
        status: n === 2 ? 'failed' : 'completed',
        totalIterations: 20,
        overallScore: n === 2 ? null : 0.6 + n * 0.03,
        agentVersion: n > 3 ? 3 : 2,
      });
  }
  return runs;
}

const SCENARIOS: ScenarioSpec[] = [
  { id: 'sc_steady', name: 'Moves a booking', mean: 0.82 },
  { id: 'sc_hostile', name: HOSTILE[0]!, mean: 0.55 },
  { id: 'sc_flaky', name: 'Flaky <line> & "noise"', mean: 0.8, failing: [2] },
  { id: 'sc_better', name: 'Improves \x1b[1mnow\x1b[0m', mean: 0.93 },
  { id: 'sc_control', name: HOSTILE[1]!, mean: 0.7 },
  { id: 'sc_xml', name: HOSTILE[3]!, mean: 0.74 },
  { id: 'sc_dead', name: 'Never answers', mean: null },
];
const BASE_SCENARIOS: ScenarioSpec[] = SCENARIOS.map((s) => ({
  ...s,
  mean: s.id === 'sc_hostile' ? 0.85 : s.id === 'sc_better' ? 0.6 : s.id === 'sc_dead' ? 0.7 : s.mean,
  failing: [],
}));

/** The fixed outcomes, by name: each report of each is compared byte for byte with a file. */
export function reportOutcomes(): Record<string, RunOutcome> {
  const rand = random(20250601);
  const agentId = 'ag_fixture';
  const evalId = 'ev_fixture';
  const suite = { name: `Booking ${HOSTILE[0]}` };

  // A completed run against the previous one, with every kind of gate.
  const cur = results(rand, SCENARIOS, 4, { prefix: 'b', turns: 6 });
  const base = results(rand, BASE_SCENARIOS, 4, { prefix: 'a', turns: 5 });
  const A = { detail: detailOf('run_fixture_a', 4, base), results: base };
  const B = { detail: detailOf('run_fixture_b', 5, cur), results: cur };
  const comparison = compareRuns(B, A);
  const spec: GateSpec = {
    minScore: 0.7,
    minCriteria: [
      { key: 'tone', min: 0.4 },
      { key: 'goal_completion', min: 0.9 },
    ],
    allowFailedIterations: 1,
    failOnRegression: true,
  };
  const withBaseline: RunOutcome = {
    agentId,
    evalId,
    detail: B.detail,
    results: cur,
    gates: evaluateGates(spec, B.detail, undefined, { comparison }),
    baseline: { spec: 'previous', comparison, side: A },
    suite,
    history: history(B.detail.run, 7),
  };

  // The same run without a baseline or gates beyond the default: the plain tables.
  const plain: RunOutcome = {
    agentId,
    evalId,
    detail: B.detail,
    results: cur,
    gates: evaluateGates({ minCriteria: [], allowFailedIterations: 0 }, B.detail),
    suite: { name: 'Plain suite' },
    history: [],
  };

  // Failed iterations allowed, and a baseline asked for that does not exist.
  const allowed: RunOutcome = {
    agentId,
    evalId,
    detail: B.detail,
    results: cur,
    gates: evaluateGates({ minCriteria: [], allowFailedIterations: 10, failOnRegression: true }, B.detail, undefined, {
      missing: "run #5 is the suite's first completed run",
    }),
    baseline: { spec: 'previous', missing: "run #5 is the suite's first completed run" },
  };

  // A run that failed part-way: 6 of its 14 iterations done (its averages are partial).
  const some = results(rand, SCENARIOS.slice(0, 3), 2, { prefix: 'f', turns: 3 });
  const failedDetail = detailOf('run_fixture_f', 6, some, {
    status: 'failed',
    error: `the agent could not be reached:\n${HOSTILE[2]}`,
    completedAt: null,
    totalIterations: SCENARIOS.length * 2,
  });
  const failed: RunOutcome = { agentId, evalId, detail: failedDetail, results: some, gates: [], suite, history: history(failedDetail.run, 6) };

  // Waits that ended before the run did: a timeout on a run last seen running, Ctrl-C on one never seen.
  const running = detailOf('run_fixture_t', 7, [], { status: 'running', overallScore: null, completedIterations: 3, totalIterations: 28, completedAt: null });
  const timeout: RunOutcome = {
    agentId,
    evalId,
    detail: running,
    results: [],
    gates: [],
    stopped: {
      kind: 'timeout',
      message: 'run run_fixture_t had not finished after 10m; it goes on',
      resume: "vap evals runs get run_fixture_t --eval ev_fixture --agent ag_fixture --wait --report 'junit=out dir/evals.xml'",
    },
  };
  const interrupted: RunOutcome = {
    agentId,
    evalId,
    detail: { run: { id: 'run_fixture_u', runNumber: 0, status: 'unknown', totalIterations: 0 }, aggregates: { criteria: [] } },
    results: [],
    gates: [],
    stopped: {
      kind: 'interrupted',
      message: `stopped waiting; run run_fixture_u goes on ${HOSTILE[5]}`,
      resume: 'vap evals runs get run_fixture_u --eval ev_fixture --agent ag_fixture --wait',
    },
  };

  return { 'with-baseline': withBaseline, plain, 'allowed-no-baseline': allowed, 'run-failed': failed, timeout, interrupted };
}

/** A run whose Markdown report must be cut to fit GitHub's comment limit (Markdown only: its other reports are large). */
export function longMarkdownOutcome(): RunOutcome {
  const rand = random(7);
  const specs: ScenarioSpec[] = Array.from({ length: 40 }, (_, k) => ({
    id: `sc_long_${k}`,
    name: `Long scenario ${k} ${k % 5 === 0 ? HOSTILE[k % HOSTILE.length] : ''}`.trim(),
    mean: 0.5,
    failing: [1],
  }));
  const cur = results(rand, specs, 3, { prefix: 'l', turns: 14, longText: true });
  const base = results(
    rand,
    specs.map((s) => ({ ...s, mean: 0.9, failing: [] })),
    3,
    { prefix: 'k', turns: 4 },
  );
  const A = { detail: detailOf('run_long_a', 1, base), results: base };
  const B = { detail: detailOf('run_long_b', 2, cur), results: cur };
  const comparison = compareRuns(B, A);
  return {
    agentId: 'ag_fixture',
    evalId: 'ev_fixture',
    detail: B.detail,
    results: cur,
    gates: evaluateGates({ minCriteria: [], allowFailedIterations: 0, failOnRegression: true }, B.detail, undefined, { comparison }),
    baseline: { spec: 'previous', comparison, side: A },
    suite: { name: 'Long' },
  };
}
