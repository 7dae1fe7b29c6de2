import type { RunResult } from '../api/evals.js';
import { fmtScore } from './gates.js';
import { roleWord } from '../ui/values.js';
import type { RunOutcome } from './outcome.js';
import { summarizeScenarios } from './summary.js';

// `--report junit=path`. One <testsuite> per scenario with a <testcase> per iteration, and a
// last suite, "gates", with a testcase for the run itself and one per gate, so that the
// report fails exactly when the command does:
// - an iteration that failed is a <failure> carrying its error, unless --allow-failed-iterations
//   covers the run's failed iterations, then it is <skipped> with the same reason;
// - a run that ended failed, or a wait that ended before the run did (--timeout, Ctrl-C, an
//   error of the API), is an <error> on the "run completed" testcase saying why;
// - a gate below its threshold is a <failure> on its testcase naming the gate and the value
//   (a criterion below --min-criterion, the overall score below --min-score, ...).
// Each iteration's transcript, per-criterion scores and their reasons go to <system-out>.
// The document validates against the Jenkins xUnit plugin's junit-10.xsd (which allows no
// `skipped` on <testsuites>: the count is on each <testsuite>).

type Node = Record<string, unknown>;

// Characters XML 1.0 cannot carry at all (control characters other than tab, LF, CR).
// eslint-disable-next-line no-control-regex
const INVALID_XML = /[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
const text = (s: string) => s.replace(INVALID_XML, '');
/** Attribute values on one line. */
const attr = (s: string) => text(s).replace(/\s*[\r\n]+\s*/g, ' ');
const seconds = (n: number) => (Number.isFinite(n) ? n.toFixed(3) : '0');

export function junitReport(o: RunOutcome): string {
  const run = o.detail.run;
  const allowed = (run.failedIterations ?? 0) <= (o.gates.find((g) => g.gate.startsWith('--allow-failed-iterations'))?.threshold ?? 0);
  const scenarios = summarizeScenarios(o.results);
  const suites: Node[] = [];
  let tests = 0;
  let failures = 0;
  let errors = 0;
  let totalTime = 0;

  for (const s of scenarios) {
    let sFailures = 0;
    let sSkipped = 0;
    let sTime = 0;
    const cases = s.results.map((r) => {
      const c: Node = {
        '@_name': attr(`${s.name} #${r.iterationNumber}`),
        '@_classname': attr(`evals.${o.evalId}.${s.name}`),
        '@_time': seconds(r.durationSeconds ?? 0),
      };
      sTime += r.durationSeconds ?? 0;
      if (r.status === 'failed') {
        const reason = `iteration failed: ${r.error || 'no reason given'}`;
        if (allowed) {
          c.skipped = { '@_message': attr(`${reason} (allowed by --allow-failed-iterations)`) };
          sSkipped++;
        } else {
          c.failure = { '@_message': attr(reason), '@_type': 'iteration_failed', '#text': text(reason) };
          sFailures++;
        }
      }
      c['system-out'] = text(systemOut(r));
      return c;
    });
    tests += cases.length;
    failures += sFailures;
    totalTime += sTime;
    suites.push({
      '@_name': attr(s.name),
      '@_tests': cases.length,
      '@_failures': sFailures,
      '@_errors': 0,
      '@_skipped': sSkipped,
      '@_time': seconds(sTime),
      properties: { property: [
        { '@_name': 'scenarioId', '@_value': attr(s.scenarioId) },
        { '@_name': 'meanScore', '@_value': fmtScore(s.meanScore) },
      ] },
      testcase: cases,
    });
  }

  // The run and its gates.
  const gateCases: Node[] = [];
  const runCase: Node = { '@_name': 'run completed', '@_classname': attr(`evals.${o.evalId}.gates`), '@_time': '0' };
  let gFailures = 0;
  let gErrors = 0;
  if (o.stopped) {
    const reason = o.stopped.message;
    const body = o.stopped.resume ? `${reason}\n${o.stopped.kind === 'timeout' ? 'Keep waiting with' : 'Resume waiting with'}: ${o.stopped.resume}` : reason;
    runCase.error = { '@_message': attr(reason), '@_type': o.stopped.kind === 'timeout' ? 'timeout' : o.stopped.kind, '#text': text(body) };
    gErrors++;
  } else if (run.status !== 'completed') {
    const reason = run.status === 'failed' ? `run failed: ${run.error || 'no reason given'}` : `run not finished (${run.status})`;
    runCase.error = { '@_message': attr(reason), '@_type': 'run_failed', '#text': text(reason) };
    gErrors++;
  }
  gateCases.push(runCase);
  if (run.status === 'completed' && !o.stopped) {
    for (const g of o.gates) {
      const c: Node = { '@_name': attr(g.gate), '@_classname': attr(`evals.${o.evalId}.gates`), '@_time': '0' };
      if (!g.passed) {
        const message = `gate ${g.gate} failed: ${g.message}`;
        c.failure = { '@_message': attr(message), '@_type': 'gate', '#text': text(message) };
        gFailures++;
      } else {
        c['system-out'] = text(`passed: ${g.message}`);
      }
      gateCases.push(c);
    }
  }
  tests += gateCases.length;
  failures += gFailures;
  errors += gErrors;
  suites.push({
    '@_name': 'gates',
    '@_tests': gateCases.length,
    '@_failures': gFailures,
    '@_errors': gErrors,
    '@_skipped': 0,
    '@_time': '0',
    properties: { property: [
      { '@_name': 'runId', '@_value': attr(run.id) },
      { '@_name': 'runNumber', '@_value': String(run.runNumber) },
      { '@_name': 'status', '@_value': run.status },
      { '@_name': 'overallScore', '@_value': fmtScore(run.overallScore) },
      { '@_name': 'agentVersion', '@_value': String(run.agentVersion ?? '') },
      ...(o.baseline?.comparison
        ? [
            { '@_name': 'baselineRunId', '@_value': attr(o.baseline.comparison.baseline.id) },
            { '@_name': 'baselineVerdict', '@_value': o.baseline.comparison.verdict },
          ]
        : []),
    ] },
    testcase: gateCases,
  });

  const doc = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    testsuites: {
      '@_name': attr(`vap evals run ${o.evalId} (run #${run.runNumber} ${run.id})`),
      '@_tests': tests,
      '@_failures': failures,
      '@_errors': errors,
      '@_time': seconds(totalTime),
      testsuite: suites,
    },
  };
  return build(doc);
}

let builder: { build(o: unknown): string } | undefined;
function build(doc: unknown): string {
  if (!builder) throw new Error('loadJunitBuilder() first');
  return `${builder.build(doc).trimEnd()}\n`;
}

/** Loads fast-xml-parser (only when a JUnit report is asked for) and renders the report. */
export async function renderJunitReport(o: RunOutcome): Promise<string> {
  await loadJunitBuilder();
  return junitReport(o);
}

/** Prepares the builder (for tests that call junitReport directly). */
export async function loadJunitBuilder(): Promise<void> {
  if (!builder) {
    const { XMLBuilder } = await import('fast-xml-parser');
    builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', format: true, suppressEmptyNode: true, suppressBooleanAttributes: false });
  }
}

/** The transcript, then each criterion's score and reason (or the error of a failed iteration). */
export function systemOut(r: RunResult): string {
  const lines: string[] = [];
  lines.push(`scenario ${r.scenarioName ?? r.evalScenarioId}, iteration ${r.iterationNumber}: ${r.status}, overall ${fmtScore(r.overallScore)}, ${r.durationSeconds ?? 0} s`);
  if (r.error) lines.push(`error: ${r.error}`);
  const scores = r.criterionScores ?? [];
  if (scores.length) {
    lines.push('', 'scores:');
    for (const c of scores) lines.push(`  ${c.criterionKey} ${fmtScore(c.score)}${c.reason ? ` (${c.reason})` : ''}`);
  }
  const transcript = [...(r.transcript ?? [])].sort((a, b) => (a.ordinal ?? 0) - (b.ordinal ?? 0));
  if (transcript.length) {
    lines.push('', 'transcript:');
    // Read by people (a CI's test report): the roles' words for people, as on a terminal (src/ui/values.ts).
    for (const t of transcript) lines.push(`  ${roleWord(t.role, 'human')}: ${t.text}`);
  }
  return lines.join('\n');
}
