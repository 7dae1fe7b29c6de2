import type { RunResult } from '../api/evals.js';
import { fmtScore } from './gates.js';
import { roleWord } from '../ui/values.js';
import type { RunOutcome } from './outcome.js';
import { transcriptOf } from './report-model.js';
import { summarizeScenarios } from './summary.js';
import { Utf8Chunks } from './utf8-chunks.js';

// `--report junit=path`: a <testsuite> per scenario and a last "gates" suite (the run, each gate), so the report fails exactly
// when the command does. It validates against Jenkins xUnit's junit-10.xsd, which allows `skipped` only on each <testsuite>.
// Written by hand, not by an XML builder: the shape is fixed, and every value goes through xmlText or xmlAttr, keeping it well-formed.

// Characters XML 1.0 cannot carry at all (control characters other than tab, LF, CR; U+FFFE
// and U+FFFF; a surrogate without its pair).
// eslint-disable-next-line no-control-regex
const INVALID_XML = /[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;
/**
 * Whether text may hold any of them: a character class without the u flag, which V8 scans
 * fast; it also matches a surrogate that is half of a valid pair (an emoji), and then the
 * exact pattern above decides.
 */
// eslint-disable-next-line no-control-regex
const MAY_BE_INVALID_XML = /[\x00-\x08\x0B\x0C\x0E-\x1F\uD800-\uDFFF\uFFFE\uFFFF]/;
const MARKUP = /[&<>'"]/;
const MARKUP_ALL = /[&<>'"]/g;
const ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', "'": '&apos;', '"': '&quot;' };
const entity = (c: string) => ENTITY[c]!;

/** Text content: what XML cannot carry dropped, the five markup characters as entities. */
export function xmlText(s: string): string {
  const valid = MAY_BE_INVALID_XML.test(s) ? s.replace(INVALID_XML, '') : s;
  return MARKUP.test(valid) ? valid.replace(MARKUP_ALL, entity) : valid;
}

/** An attribute value: as text, and on one line (a line break with the spaces around it becomes one space). */
export function xmlAttr(s: string): string {
  const valid = MAY_BE_INVALID_XML.test(s) ? s.replace(INVALID_XML, '') : s;
  return xmlText(/[\r\n]/.test(valid) ? valid.replace(/\s*[\r\n]+\s*/g, ' ') : valid);
}

const seconds = (n: number) => (Number.isFinite(n) ? n.toFixed(3) : '0');

type Attributes = ReadonlyArray<readonly [string, string | number | null | undefined]>;

/** ` name="value"` for each attribute that has a value. */
function attrs(pairs: Attributes): string {
  let out = '';
  for (const [name, value] of pairs) if (value !== undefined && value !== null) out += ` ${name}="${xmlAttr(String(value))}"`;
  return out;
}

/** An element holding text, on a line of its own (`<name …/>` when the text is empty). */
function textElement(indent: string, name: string, attributes: string, text: string): string {
  const body = xmlText(text);
  return body === '' ? `${indent}<${name}${attributes}/>\n` : `${indent}<${name}${attributes}>${body}</${name}>\n`;
}

/** A <testcase> and its children (`<testcase …/>` when it has none). */
function testcase(attributes: string, children: string): string {
  return children === '' ? `    <testcase${attributes}/>\n` : `    <testcase${attributes}>\n${children}    </testcase>\n`;
}

/** A <testsuite> with its properties; its test cases follow, then `</testsuite>`. */
function testsuiteStart(attributes: string, properties: Attributes): string {
  let props = '';
  for (const [name, value] of properties)
    props += `      <property${attrs([
      ['name', name],
      ['value', value],
    ])}/>\n`;
  return `  <testsuite${attributes}>\n    <properties>\n${props}    </properties>\n`;
}

/** The report, as UTF-8 (written a scenario at a time: utf8-chunks.ts). */
export function junitReport(o: RunOutcome): Buffer {
  const run = o.detail.run;
  const allowed = (run.failedIterations ?? 0) <= (o.gates.find((g) => g.gate.startsWith('--allow-failed-iterations'))?.threshold ?? 0);
  const scenarios = summarizeScenarios(o.results);

  // The counts first: <testsuites> carries them before any test case.
  const suiteTimes = scenarios.map((s) => {
    let t = 0;
    for (const r of s.results) t += r.durationSeconds ?? 0;
    return t;
  });
  const failedIterations = scenarios.reduce((n, s) => n + s.results.filter((r) => r.status === 'failed').length, 0);
  const stopped = o.stopped !== undefined || run.status !== 'completed';
  const gates = stopped ? [] : o.gates;
  const gFailures = gates.filter((g) => !g.passed).length;
  const gErrors = stopped ? 1 : 0;
  const tests = o.results.length + 1 + gates.length;
  const totalTime = suiteTimes.reduce((a, t) => a + t, 0);

  const out = new Utf8Chunks();
  out.add(
    `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites${attrs([['name', `vap evals run ${o.evalId} (run #${run.runNumber} ${run.id})`]])} tests="${tests}" failures="${allowed ? gFailures : failedIterations + gFailures}" errors="${gErrors}" time="${seconds(totalTime)}">\n`,
  );

  scenarios.forEach((s, i) => {
    const failed = s.results.filter((r) => r.status === 'failed').length;
    out.add(
      testsuiteStart(
        `${attrs([['name', s.name]])} tests="${s.results.length}" failures="${allowed ? 0 : failed}" errors="0" skipped="${allowed ? failed : 0}" time="${seconds(suiteTimes[i]!)}"`,
        [
          ['scenarioId', s.scenarioId],
          ['meanScore', fmtScore(s.meanScore)],
        ],
      ),
    );
    const classname = attrs([['classname', `evals.${o.evalId}.${s.name}`]]);
    for (const r of s.results) {
      let children = '';
      if (r.status === 'failed') {
        const reason = `iteration failed: ${r.error || 'no reason given'}`;
        children += allowed
          ? `      <skipped${attrs([['message', `${reason} (allowed by --allow-failed-iterations)`]])}/>\n`
          : textElement(
              '      ',
              'failure',
              attrs([
                ['message', reason],
                ['type', 'iteration_failed'],
              ]),
              reason,
            );
      }
      children += textElement('      ', 'system-out', '', systemOut(r));
      out.add(testcase(`${attrs([['name', `${s.name} #${r.iterationNumber}`]])}${classname} time="${seconds(r.durationSeconds ?? 0)}"`, children));
    }
    out.add('  </testsuite>\n');
  });

  // The run and its gates.
  out.add(
    testsuiteStart(` name="gates" tests="${1 + gates.length}" failures="${gFailures}" errors="${gErrors}" skipped="0" time="0"`, [
      ['runId', run.id],
      ['runNumber', String(run.runNumber)],
      ['status', run.status],
      ['overallScore', fmtScore(run.overallScore)],
      ['agentVersion', String(run.agentVersion ?? '')],
      ...(o.baseline?.comparison
        ? ([
            ['baselineRunId', o.baseline.comparison.baseline.id],
            ['baselineVerdict', o.baseline.comparison.verdict],
            ['familyWiseError', String(o.baseline.comparison.method.alpha)],
            ['pooledRuns', String(o.baseline.comparison.pooled.current.runs)],
            ['pooledCalls', String(o.baseline.comparison.pooled.current.calls)],
            ['baselinePooledRuns', String(o.baseline.comparison.pooled.baseline.runs)],
            ['baselinePooledCalls', String(o.baseline.comparison.pooled.baseline.calls)],
          ] as const)
        : []),
      ...(o.adaptive
        ? ([
            ['calls', String(o.adaptive.calls)],
            ['maxCalls', String(o.adaptive.maxCalls)],
            ['stopped', o.adaptive.why],
          ] as const)
        : []),
    ]),
  );
  const gatesClass = attrs([['classname', `evals.${o.evalId}.gates`]]);
  let runError = '';
  if (o.stopped) {
    const reason = o.stopped.message;
    const body = o.stopped.resume ? `${reason}\n${o.stopped.kind === 'timeout' ? 'Keep waiting with' : 'Resume waiting with'}: ${o.stopped.resume}` : reason;
    runError = textElement(
      '      ',
      'error',
      attrs([
        ['message', reason],
        ['type', o.stopped.kind === 'timeout' ? 'timeout' : o.stopped.kind],
      ]),
      body,
    );
  } else if (run.status !== 'completed') {
    const reason = run.status === 'failed' ? `run failed: ${run.error || 'no reason given'}` : `run not finished (${run.status})`;
    runError = textElement(
      '      ',
      'error',
      attrs([
        ['message', reason],
        ['type', 'run_failed'],
      ]),
      reason,
    );
  }
  out.add(testcase(` name="run completed"${gatesClass} time="0"`, runError));
  for (const g of gates) {
    const child = g.passed
      ? textElement('      ', 'system-out', '', `passed: ${g.message}`)
      : textElement(
          '      ',
          'failure',
          attrs([
            ['message', `gate ${g.gate} failed: ${g.message}`],
            ['type', 'gate'],
          ]),
          `gate ${g.gate} failed: ${g.message}`,
        );
    out.add(testcase(`${attrs([['name', g.gate]])}${gatesClass} time="0"`, child));
  }
  out.add('  </testsuite>\n</testsuites>\n');
  return out.bytes();
}

/** The transcript, then each criterion's score and reason (or the error of a failed iteration). */
export function systemOut(r: RunResult): string {
  let out = `scenario ${r.scenarioName ?? r.evalScenarioId}, iteration ${r.iterationNumber}: ${r.status}, overall ${fmtScore(r.overallScore)}, ${r.durationSeconds ?? 0} s`;
  if (r.error) out += `\nerror: ${r.error}`;
  const scores = r.criterionScores ?? [];
  if (scores.length) {
    out += '\n\nscores:';
    for (const c of scores) out += `\n  ${c.criterionKey} ${fmtScore(c.score)}${c.reason ? ` (${c.reason})` : ''}`;
  }
  const transcript = transcriptOf(r);
  if (transcript.length) {
    out += '\n\ntranscript:';
    // Read by people (a CI's test report): the roles' words for people, as on a terminal (src/ui/values.ts).
    for (const t of transcript) out += `\n  ${roleWord(t.role, 'human')}: ${t.text}`;
  }
  return out;
}
