import { marked, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';
import type { RunDetail, RunResult } from '../../src/api/evals.js';
import { compareRuns } from '../../src/evals/compare.js';
import { evaluateGates } from '../../src/evals/gates.js';
import type { RunOutcome } from '../../src/evals/outcome.js';
import { GITHUB_COMMENT_LIMIT, markdownReport } from '../../src/evals/report-markdown.js';

// The Markdown report (a pull-request comment) on crafted runs, read back with a maintained
// Markdown parser (marked, GitHub-flavoured): the tables' cells, the order of the scenarios,
// the escaping of hostile text, the hidden marker, and GitHub's size limit.

const EVIL = 'Pipe | <img src=x onerror=alert(1)> `tick` **bold** @octocat \x1b[31m';

function detail(id: string, runNumber: number, overallScore: number): RunDetail {
  return {
    run: {
      id,
      runNumber,
      status: 'completed',
      totalIterations: 15,
      completedIterations: 14,
      failedIterations: runNumber === 5 ? 1 : 0,
      overallScore,
      agentVersion: runNumber,
    },
    aggregates: {
      criteria: [
        { criterionKey: 'tone', averageScore: 0.8, maxScore: 0.9, name: 'Tone and empathy', weight: 0.5 },
        { criterionKey: 'goal', averageScore: 0.8, maxScore: 0.9, name: 'Goal', weight: 0.5 },
      ],
    },
  };
}

function result(
  scenario: string,
  name: string,
  i: number,
  score: number | null,
  opts: { transcript?: number; text?: string; reason?: string } = {},
): RunResult {
  return {
    id: `res_${scenario}_${i}`,
    evalScenarioId: scenario,
    scenarioName: name,
    iterationNumber: i,
    status: score === null ? 'failed' : 'completed',
    overallScore: score,
    durationSeconds: 75,
    error: score === null ? 'the call dropped' : null,
    criterionScores:
      score === null
        ? []
        : [
            { criterionKey: 'tone', score, reason: opts.reason ?? `Tone reason ${i}` },
            { criterionKey: 'goal', score: 0.8, reason: 'Goal reached' },
          ],
    transcript: Array.from({ length: opts.transcript ?? 4 }, (_, k) => ({
      role: k % 2 ? 'user' : 'agent',
      text: opts.text ?? `Line ${k} of ${name}`,
      ordinal: k,
    })),
  };
}

/** Baseline: three steady scenarios. Current: one steady, one clearly worse, one with a failed iteration. */
function outcome(
  opts: { transcript?: number; text?: string; scenarios?: number; failing?: boolean; improve?: boolean; allowFailed?: number } = {},
): RunOutcome {
  const steady = [0.8, 0.81, 0.79, 0.8, 0.8];
  const base: RunResult[] = [];
  const cur: RunResult[] = [];
  const extra = opts.scenarios ?? 0;
  for (const [id, name] of [
    ['s1', 'Steady'],
    ['s2', EVIL],
    ['s3', 'Flaky'],
    ...Array.from({ length: extra }, (_, k) => [`x${k}`, `Extra scenario ${k}`]),
  ] as Array<[string, string]>) {
    steady.forEach((v, i) => base.push(result(id, name, i + 1, v, opts)));
  }
  steady.forEach((v, i) => cur.push(result('s1', 'Steady', i + 1, v, opts)));
  (opts.improve ? [0.95, 0.96, 0.94, 0.95, 0.95] : [0.5, 0.52, 0.49, 0.51, 0.5]).forEach((v, i) =>
    cur.push(result('s2', EVIL, i + 1, v, { ...opts, reason: `Curt | <b>rude</b> ${'`'}x${'`'}` })),
  );
  [0.8, null, 0.81, 0.79, 0.8].forEach((v, i) => cur.push(result('s3', 'Flaky', i + 1, v, opts)));
  for (let k = 0; k < extra; k++) steady.forEach((v, i) => cur.push(result(`x${k}`, `Extra scenario ${k}`, i + 1, opts.failing && i === 0 ? null : v, opts)));
  const A = { detail: detail('run_a', 4, 0.8), results: base };
  const B = { detail: detail('run_b', 5, 0.7), results: cur };
  const comparison = compareRuns(B, A);
  const gates = evaluateGates({ minCriteria: [], allowFailedIterations: opts.allowFailed ?? 0, failOnRegression: true, minScore: 0.6 }, B.detail, undefined, {
    comparison,
  });
  return {
    agentId: 'ag_1',
    evalId: 'ev_1',
    detail: B.detail,
    results: cur,
    gates,
    baseline: { spec: 'previous', comparison, side: A },
    suite: { name: 'Booking | flows' },
  };
}

const tables = (md: string) => marked.lexer(md).filter((t): t is Tokens.Table => t.type === 'table');
const cells = (t: Tokens.Table) => t.rows.map((r) => r.map((c) => c.text));

describe('the Markdown report', () => {
  it("starts with the hidden marker and one line with the run, the gates' result and the baseline verdict, two facts apart", () => {
    const md = markdownReport(outcome());
    const lines = md.split('\n');
    expect(lines[0]).toBe('<!-- vap-evals suite=ev_1 -->');
    // The gates' result, the verdict with its family-wise level, the calls spent and the budget.
    expect(lines[1]).toBe(
      '### Eval run #5 of Booking \\| flows: ❌ 2 gates failed (1 failed iteration, none allowed; a significant regression) · ▼ regressed at family-wise error 1%: overall -0.099 (98.4% CI -0.107 to -0.091), 1 of 3 scenarios and 1 of 2 criteria, against #4 · 15 calls (no --max-calls budget)',
    );
    const heading = marked.lexer(md).find((t) => t.type === 'heading') as Tokens.Heading;
    const [gates, verdict, calls] = heading.text.split(' · ');
    expect(gates).toMatch(/: ❌ 2 gates failed \(/);
    expect(verdict).toBe('▼ regressed at family-wise error 1%: overall -0.099 (98.4% CI -0.107 to -0.091), 1 of 3 scenarios and 1 of 2 criteria, against #4');
    expect(calls).toBe('15 calls (no --max-calls budget)');
    expect(markdownReport({ ...outcome(), maxCalls: 300 }).split('\n')[1]).toMatch(/ · 15 calls of at most 300$/);
  });

  it('an improvement is never shown as a failure is: ▲, no red mark, apart from a gate that failed', () => {
    const RED = /❌|🔻|🔺|🔴|⛔|✗/u;
    // A failed gate (a failed iteration, none allowed) beside an improvement: two facts, the ❌ on the gate's only.
    const failing = markdownReport(outcome({ improve: true }));
    const headline = failing.split('\n')[1]!;
    expect(headline).toBe(
      '### Eval run #5 of Booking \\| flows: ❌ 1 gate failed (1 failed iteration, none allowed) · ▲ improved at family-wise error 1%: overall +0.050 (98.4% CI +0.043 to +0.057), 1 of 3 scenarios and 1 of 2 criteria, against #4 · 15 calls (no --max-calls budget)',
    );
    expect(headline.split(' · ')[1]).not.toMatch(RED);
    // Every gate passed and the run improved: nothing red anywhere but the failed iteration's own details.
    const green = markdownReport(outcome({ improve: true, allowFailed: 1 }));
    expect(green.split('\n')[1]).toBe(
      '### Eval run #5 of Booking \\| flows: ✅ 3 gates passed · ▲ improved at family-wise error 1%: overall +0.050 (98.4% CI +0.043 to +0.057), 1 of 3 scenarios and 1 of 2 criteria, against #4 · 15 calls (no --max-calls budget)',
    );
    expect(green).toContain('**▲ improved**: rose 0.050 (98.4% CI +0.043 to +0.057); rows: 2 improved, 3 no significant change');
    const [scenarios, criteria] = tables(green);
    const improved = [...cells(scenarios!), ...cells(criteria!)].filter((r) => r[6]!.includes('improved'));
    expect(improved.map((r) => r[6])).toEqual(['▲ improved', '▲ improved']);
    for (const r of improved) expect(r.join(' ')).not.toMatch(RED);
    const beforeDetails = green.slice(0, green.indexOf('<details>'));
    expect(beforeDetails).not.toMatch(RED);
  });

  it('a run cut short says that its averages are partial: in the headline, beside the overall score, and in a line of its own', () => {
    const o = outcome();
    const failedRun = {
      ...o,
      detail: { ...o.detail, run: { ...o.detail.run, status: 'failed', error: 'the tester pool is down', completedIterations: 9, failedIterations: 1 } },
      gates: [],
    };
    const md = markdownReport(failedRun);
    const lines = md.split('\n');
    expect(lines[1]).toBe(
      '### Eval run #5 of Booking \\| flows: ❌ failed after 10 of 15 iterations; the averages are partial · ▼ regressed at family-wise error 1%: overall -0.099 (98.4% CI -0.107 to -0.091), 1 of 3 scenarios and 1 of 2 criteria, against #4 · 15 calls (no --max-calls budget)',
    );
    expect(lines[3]).toContain('overall **0.700** (partial) (run #4: 0.800, -0.100) · 9 completed, 1 failed of 15 iterations');
    expect(md).toContain('\n**Partial averages**: the run failed after 10 of 15 iterations; every score and average here covers those 10 only.\n');
    // Every iteration done (a run that completed): nothing is said.
    expect(markdownReport(o)).not.toContain('partial');
    // A wait that ended early: the run goes on.
    const waited = markdownReport({
      ...o,
      gates: [],
      stopped: { kind: 'timeout', message: 'run run_b had not finished after 20m; it goes on' },
      detail: { ...o.detail, run: { ...o.detail.run, status: 'running', completedIterations: 6, failedIterations: 0 } },
    });
    expect(waited.split('\n')[1]).toMatch(/: ⏱ timed out after 6 of 15 iterations; the averages are partial/);
    expect(waited).toContain(
      '**Partial averages**: the wait ended after 6 of 15 iterations (the run goes on); every score and average here covers those 6 only.',
    );
  });

  it('a table of scenarios: score, baseline, delta, interval and verdict, regressions first', () => {
    const [scenarios] = tables(markdownReport(outcome()));
    // Rows: Bonferroni's intervals over 5 rows at all of α (the overall change regressed): 1 − 2·1%/5.
    expect(scenarios!.header.map((h) => h.text)).toEqual([
      'Scenario',
      'Iterations',
      'Score',
      'Baseline',
      'Δ',
      '99.6% CI',
      'Verdict',
      'Passed (completed)',
      'pass^5',
    ]);
    const rows = cells(scenarios!);
    expect(rows.map((r) => r[6])).toEqual(['▼ regressed', '= no significant change', '= no significant change']);
    // The regression first, then the scenario with a failed iteration, then the rest.
    expect(rows[0]!.slice(1, 5)).toEqual(['5', '0.504', '0.800', '-0.296']);
    expect(rows[1]!.slice(0, 2)).toEqual(['Flaky', '5 (1 failed)']);
    expect(rows[2]![0]).toBe('Steady');
    expect(rows[0]![5]).toMatch(/^-0\.3\d\d to -0\.2\d\d$/);
  });

  it('escapes what Markdown and HTML would read in API text: pipes stay in their cell, no tag, no mention, no escape byte', () => {
    const md = markdownReport(outcome());
    const [scenarios] = tables(md);
    const name = scenarios!.rows[0]![0]!;
    expect(scenarios!.rows.every((r) => r.length === 9)).toBe(true);
    // The cell's tokens: text only (no html, codespan or strong token from the name).
    const kinds = new Set<string>();
    const walk = (ts: Tokens.Generic[] | undefined) =>
      ts?.forEach((t) => {
        kinds.add(t.type);
        walk(t.tokens as Tokens.Generic[] | undefined);
      });
    walk(name.tokens as Tokens.Generic[]);
    expect([...kinds].filter((k) => k !== 'text' && k !== 'escape')).toEqual([]);
    // Outside code blocks (where nothing is read as markup), no tag from the data.
    const outsideCode = md.replace(/^(`{3,})text\n[\s\S]*?\n\1$/gm, '');
    expect(outsideCode).not.toContain('<img');
    expect(md).not.toContain('\x1b');
    expect(md).toContain('\\e[31m');
    expect(md).toContain('@\u200boctocat');
    // Rendered, the name reads as it was written (with the escape byte shown as \e).
    const html = marked.parseInline(name.text) as string;
    expect(html).toContain('Pipe | &lt;img src=x onerror=alert(1)&gt; `tick` **bold** @\u200boctocat \\e[31m');
  });

  it('the criteria table and the gates, each with its result', () => {
    const [, criteria, gates] = tables(markdownReport(outcome()));
    expect(cells(criteria!).map((r) => [r[0], r[6]])).toEqual([
      ['Tone and empathy (`tone`)', '▼ regressed'],
      ['Goal (`goal`)', '= no significant change'],
    ]);
    expect(cells(gates!)).toEqual([
      ['`--min-score 0.6`', '✅ passed: overall score 0.700 ≥ 0.6'],
      ['`--allow-failed-iterations 0`', '❌ failed: 1 failed iteration of 15 (none allowed)'],
      [
        '`--fail-on-regression`',
        expect.stringMatching(
          /^❌ failed: a significant regression against run \\#4 \(family-wise error 1%\): overall -0\.099 \(98\.4% CI -0\.107 to -0\.091\); .+ -0\.296, tone -0\.\d{3}$/,
        ),
      ],
    ]);
  });

  it('a collapsed <details> per regressed or failed scenario: the worst iteration, its reasons and transcript', () => {
    const md = markdownReport(outcome());
    const blocks = md
      .split('<details>')
      .slice(1)
      .map((b) => b.slice(0, b.indexOf('</details>')));
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toMatch(
      /^<summary><b>Pipe \| &lt;img src=x onerror=alert\(1\)&gt; `tick` \*\*bold\*\* @\u200boctocat \\e\[31m<\/b>: ▼ regressed, 0\.504 against 0\.800 \(-0\.296\)<\/summary>/,
    );
    expect(blocks[0]).toContain('Worst iteration: **#3** `res_s2_3` · score 0.490');
    const inner = marked.lexer(blocks[0]!.slice(blocks[0]!.indexOf('</summary>') + 10));
    const reasons = inner.find((t): t is Tokens.Table => t.type === 'table')!;
    expect(cells(reasons)[0]!.slice(0, 2)).toEqual(['`tone`', '0.490']);
    expect(marked.parseInline(cells(reasons)[0]![2]!)).toBe('Curt | &lt;b&gt;rude&lt;/b&gt; `x`');
    const code = inner.find((t): t is Tokens.Code => t.type === 'code')!;
    expect(code.text.split('\n')).toEqual([
      `agent: Line 0 of ${EVIL.replace('\x1b', '\\e')}`,
      `caller: Line 1 of ${EVIL.replace('\x1b', '\\e')}`,
      `agent: Line 2 of ${EVIL.replace('\x1b', '\\e')}`,
      `caller: Line 3 of ${EVIL.replace('\x1b', '\\e')}`,
    ]);
    expect(blocks[1]).toContain('<summary><b>Flaky</b>: 1 of 5 iterations failed</summary>');
    expect(blocks[1]).toContain('❌ failed');
    expect(blocks[1]).toContain('Error: the call dropped');
  });

  it('a transcript with backticks cannot close its code block', () => {
    const md = markdownReport(outcome({ text: 'before ```\n</details> after ````' }));
    const tokens = marked.lexer(md);
    const code = tokens.filter((t): t is Tokens.Code => t.type === 'code');
    expect(code).toHaveLength(2);
    for (const c of code) expect(c.text.split('\n').every((l) => /^(agent|caller): before ``` <\/details> after ````$/.test(l))).toBe(true);
    // The only </details> read as HTML are the report's own two.
    expect(tokens.filter((t) => t.type === 'html' && t.raw.includes('</details>'))).toHaveLength(2);
  });

  it('stays within 65,536 characters by shortening transcripts first, and says so', () => {
    const big = outcome({ transcript: 400, text: 'x'.repeat(900), scenarios: 30, failing: true });
    const md = markdownReport(big);
    expect(md.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(md).toMatch(
      /_Transcripts were (shortened|left out) to keep this comment within GitHub's 65,536-character limit; the HTML report has them whole\._\n$/,
    );
    // The tables are whole, and transcripts are still there, shortened.
    expect(cells(tables(md)[0]!)).toHaveLength(33);
    expect(md).toContain('<details>');
    expect(md).toMatch(/more turns\n/);
    // Without the limit's pressure nothing is said.
    expect(markdownReport(outcome())).not.toContain('65,536');
    // A small limit drops the details, then table rows, still saying so.
    const many = markdownReport(outcome({ scenarios: 1200 }));
    expect(many.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(many).toContain('more scenarios: see the HTML or JSON report');
  });

  it('without a baseline: scenarios with their failed iterations, criteria averages', () => {
    const o = outcome();
    const md = markdownReport({ ...o, baseline: undefined, gates: [] });
    const [scenarios, criteria] = tables(md);
    expect(scenarios!.header.map((h) => h.text)).toEqual(['Scenario', 'Iterations', 'Failed', 'Score', 'Passed (completed)', 'pass^5']);
    // pass^5 of Flaky: 4 of 5 passed, C(4,5)/C(5,5) = 0.
    expect(cells(scenarios!)[0]).toEqual(['Flaky', '5', '1', '0.800', '4/5', '0.000']);
    expect(md).toContain('pass^5: **0.667**, the estimate that all 5 repeated calls of a scenario pass (completed), the mean over 3 scenarios.');
    expect(criteria!.header.map((h) => h.text)).toEqual(['Criterion', 'Weight', 'Average', 'Best']);
    expect(md).toContain('Gates: none.');
  });

  it('a wait that timed out: what was seen, why, and the command that keeps waiting', () => {
    const o = outcome();
    const md = markdownReport({
      ...o,
      detail: { ...o.detail, run: { ...o.detail.run, status: 'running', overallScore: null } },
      results: [],
      gates: [],
      baseline: undefined,
      stopped: {
        kind: 'timeout',
        message: 'run run_b had not finished after 20m; it goes on',
        resume: 'vap evals runs get run_b --eval ev_1 --agent ag_1 --wait',
      },
    });
    expect(md.split('\n')[1]).toBe('### Eval run #5 of Booking \\| flows: ⏱ timed out · 15 calls (no --max-calls budget)');
    expect(md).toContain('Keep waiting with:\n\n```text\nvap evals runs get run_b --eval ev_1 --agent ag_1 --wait\n```');
    expect(md).toContain('Gates: not evaluated: the run did not complete.');
  });
});
