import { createHash } from 'node:crypto';
import type { Run, RunResult } from '../api/evals.js';
import { safeLines, safeText } from '../ui/safe-text.js';
import { passed, type RunOutcome } from './outcome.js';
import {
  callsBrief,
  ciText,
  criterionRows,
  fmtScore,
  iterationsText,
  partialNote,
  partialRun,
  roleLabel,
  scenarioRows,
  seconds,
  signed,
  transcriptOf,
  VERDICT_MARK,
  passRatesOf,
  verdictBrief,
  type ScenarioRow,
} from './report-model.js';
import { progressText } from './summary.js';
import { countsText, methodText } from './verdict.js';
import { Utf8Chunks } from './utf8-chunks.js';

/**
 * `--report html=path`: one self-contained page for a CI artifact. Its CSP allows only the inline style and the one hashed script,
 * so the page makes no request even if something slips through. Every API value is HTML-escaped, control characters shown:
 * a transcript is someone else's text. Light and dark, printable, navigable by keyboard.
 */

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const entity = (c: string) => ESC[c]!;
const MARKUP = /[&<>"']/g;
/**
 * Whether text needs anything done for HTML or a terminal: markup, or a character that
 * safeText or safeLines would show as an escape (the set in src/ui/safe-text.ts, newline
 * and tab included). Most names and ids need nothing: they are returned as they are.
 */
// eslint-disable-next-line no-control-regex
const NEEDS_WORK = /[&<>"'\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** One line of untrusted text for HTML text or an attribute value. */
export function esc(s: string | number | null | undefined): string {
  const text = String(s ?? '');
  return NEEDS_WORK.test(text) ? safeText(text).replace(MARKUP, entity) : text;
}
/** Multi-line untrusted text (its line breaks kept, as the CSS pre-wraps them). */
function escLines(s: string | null | undefined): string {
  const text = s ?? '';
  return NEEDS_WORK.test(text) ? safeLines(text).replace(MARKUP, entity) : text;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

const SCRIPT = `(function () {
  var sc = document.getElementById('filter-scenario');
  var st = document.getElementById('filter-status');
  var count = document.getElementById('filter-count');
  if (!sc || !st) return;
  var items = Array.prototype.slice.call(document.querySelectorAll('[data-scenario][data-status]'));
  var total = items.filter(function (el) { return el.tagName === 'TR'; }).length;
  function apply() {
    var shown = 0;
    items.forEach(function (el) {
      var ok = (!sc.value || el.getAttribute('data-scenario') === sc.value) && (!st.value || el.getAttribute('data-status') === st.value);
      el.hidden = !ok;
      if (ok && el.tagName === 'TR') shown++;
    });
    count.textContent = shown + ' of ' + total + ' iterations';
  }
  sc.addEventListener('change', apply);
  st.addEventListener('change', apply);
  window.addEventListener('beforeprint', function () { sc.value = ''; st.value = ''; apply(); });
  apply();
})();`;
const SCRIPT_HASH = createHash('sha256').update(SCRIPT).digest('base64');

const CSS = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --panel: #f6f8fa;
  --accent: #0969da; --base: #8250df; --good: #1a7f37; --bad: #cf222e; --warn: #9a6700; --agent: #ddf4ff; --caller: #fff8c5; }
@media (prefers-color-scheme: dark) { :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --panel: #151b23;
  --accent: #4493f8; --base: #ab7df8; --good: #3fb950; --bad: #f85149; --warn: #d29922; --agent: #0c2d4b; --caller: #3b2e05; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main, header, footer { max-width: 1100px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 20px; }
h1 { font-size: 1.5em; margin: 0 0 8px; } h2 { font-size: 1.2em; margin: 28px 0 10px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 1em; margin: 0 0 8px; }
a { color: var(--accent); } a:focus-visible, select:focus-visible, [tabindex]:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 8px; background: var(--bg); padding: 6px 10px; border: 2px solid var(--accent); }
.skip:focus { left: 8px; z-index: 10; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0; }
.facts dt { color: var(--muted); } .facts dd { margin: 0; }
.status-completed, .pass, .v-improved { color: var(--good); } .status-failed, .fail, .v-regressed { color: var(--bad); }
.status-stopped, .v-too-few-iterations { color: var(--warn); }
.gates { list-style: none; padding: 0; margin: 8px 0 0; } .gates li { margin: 2px 0; }
.note { background: var(--panel); border-left: 4px solid var(--warn); padding: 8px 12px; margin: 12px 0; white-space: pre-wrap; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.92em; }
table { border-collapse: collapse; width: 100%; margin: 8px 0; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--panel); } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 12px 0 20px; } figcaption { color: var(--muted); font-size: 0.9em; }
svg { max-width: 100%; height: auto; font: 12px system-ui, sans-serif; }
svg text { fill: var(--fg); } svg .muted { fill: var(--muted); } svg .grid { stroke: var(--line); stroke-width: 1; }
svg .spread { stroke: var(--accent); stroke-width: 2; opacity: .45; } svg .dot { fill: var(--accent); opacity: .55; }
svg .mean { stroke: var(--accent); stroke-width: 3; } svg .basemark { fill: none; stroke: var(--base); stroke-width: 2; }
svg .bar { fill: var(--accent); } svg .bar-base { fill: var(--base); opacity: .6; }
svg .trend { fill: none; stroke: var(--accent); stroke-width: 2; } svg .point { fill: var(--accent); }
svg .current { fill: var(--bad); } svg .current.ok { fill: var(--good); }
.filters { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; margin: 8px 0; }
select { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 3px 6px; }
.iteration { border: 1px solid var(--line); border-radius: 8px; padding: 12px; margin: 14px 0; }
.cols { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 16px; }
@media (max-width: 760px) { .cols { grid-template-columns: 1fr; } }
.chat { list-style: none; margin: 0; padding: 0; }
.turn { margin: 6px 0; padding: 6px 10px; border-radius: 8px; max-width: 92%; }
.turn .who { display: block; font-size: 0.8em; color: var(--muted); font-weight: 600; }
.turn p { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.turn.agent { background: var(--agent); } .turn.caller { background: var(--caller); margin-left: auto; }
.scores dl { margin: 0; } .scores dt { font-weight: 600; margin-top: 8px; } .scores dd { margin: 2px 0 0; color: var(--fg); overflow-wrap: anywhere; }
.error { color: var(--bad); white-space: pre-wrap; }
[hidden] { display: none !important; }
footer { color: var(--muted); font-size: 0.85em; padding-top: 24px; padding-bottom: 24px; }
@media print {
  :root { --bg: #fff; --fg: #000; --muted: #444; --line: #bbb; --panel: #f2f2f2; --agent: #eef6ff; --caller: #fffbe6; }
  body { font-size: 11pt; } .skip, .filters { display: none !important; } [hidden] { display: revert !important; }
  .iteration, figure, tr { break-inside: avoid; } a { color: inherit; text-decoration: none; }
  main, header, footer { max-width: none; }
}
`;

function statusOf(o: RunOutcome): { text: string; cls: string } {
  if (o.stopped)
    return {
      text:
        o.stopped.kind === 'timeout'
          ? 'timed out (still running)'
          : o.stopped.kind === 'interrupted'
            ? 'not waited for (still running)'
            : 'not read to the end',
      cls: 'status-stopped',
    };
  return { text: o.detail.run.status, cls: `status-${esc(o.detail.run.status)}` };
}

/** The page, as UTF-8. */
export function htmlReport(o: RunOutcome): Buffer {
  const run = o.detail.run;
  const c = o.baseline?.comparison;
  const rows = scenarioRows(o);
  const title = `Eval run ${run.runNumber > 0 ? `#${run.runNumber}` : run.id}${o.suite?.name ? ` of ${o.suite.name}` : ''}`;
  const status = statusOf(o);
  // A run cut short (a wait that ended early, a run that failed part-way): its averages are partial, and the page says so.
  const partial = partialRun(o);
  // Each line is followed by a newline; the iterations are written piece by piece (utf8-chunks.ts).
  const out = new Utf8Chunks();
  out.lines(
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${SCRIPT_HASH}'; img-src data:; base-uri 'none'; form-action 'none'">`,
    `<title>${esc(title)} · vap</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    '<a class="skip" href="#iterations">Skip to the iterations</a>',
    '<header>',
    `<h1>${esc(title)}</h1>`,
    '<dl class="facts">',
    `<dt>Suite</dt><dd>${o.suite?.name ? `${esc(o.suite.name)} ` : ''}<code>${esc(o.evalId)}</code></dd>`,
    `<dt>Run</dt><dd>${run.runNumber > 0 ? `#${run.runNumber} ` : ''}<code>${esc(run.id)}</code></dd>`,
    `<dt>Agent</dt><dd><code>${esc(o.agentId)}</code>, version ${esc(run.agentVersion ?? '?')}</dd>`,
    `<dt>Status</dt><dd class="${status.cls}">${esc(status.text)}${run.totalIterations ? ` · ${esc(progressText(run))}` : ''}</dd>`,
    `<dt>Overall score</dt><dd><strong>${fmtScore(run.overallScore)}</strong>${partial && typeof run.overallScore === 'number' ? ' (partial)' : ''}${c ? ` (run #${c.baseline.runNumber}: ${fmtScore(c.overall.baseline)}, ${signed(c.overall.delta)})` : ''}</dd>`,
  );
  if (c) {
    out.lines(
      `<dt>Baseline</dt><dd>run #${c.baseline.runNumber} <code>${esc(c.baseline.id)}</code>, agent version ${esc(c.baseline.agentVersion ?? '?')}: <strong class="v-${c.verdict.replace(/ /g, '-')}">${VERDICT_MARK[c.verdict]} ${esc(c.verdict)}</strong> (${esc(verdictBrief(c))}; rows: ${esc(countsText(c.counts))})</dd>`,
    );
    out.lines(
      `<dt>Pooled</dt><dd>this side ${c.pooled.current.runs} run${c.pooled.current.runs === 1 ? '' : 's'}, ${c.pooled.current.calls} calls; the baseline ${c.pooled.baseline.runs} run${c.pooled.baseline.runs === 1 ? '' : 's'}, ${c.pooled.baseline.calls} calls</dd>`,
    );
  } else if (o.baseline?.missing) {
    out.lines(`<dt>Baseline</dt><dd>none: ${esc(o.baseline.missing)}</dd>`);
  }
  {
    const rates = passRatesOf(o);
    out.lines(`<dt>Calls</dt><dd>${esc(callsBrief(o))}${o.adaptive ? `; stopped: ${esc(o.adaptive.why)}` : ''}</dd>`);
    if (rates.passK !== null)
      out.lines(
        `<dt>pass^${rates.k}</dt><dd>${rates.passK.toFixed(3)}: the estimate that all ${rates.k} repeated calls of a scenario pass (${esc(rates.rule)}); per scenario ${esc(rates.scenarios.map((s) => `${s.name} ${s.passed}/${s.iterations}`).join(', '))}</dd>`,
      );
  }
  const verdict = o.stopped || run.status !== 'completed' ? '' : passed(o) ? '<span class="pass">✓ passed</span>' : '<span class="fail">✗ below a gate</span>';
  out.lines(
    `<dt>Gates</dt><dd>${o.gates.length ? verdict : o.stopped || run.status !== 'completed' ? 'not evaluated: the run did not complete' : 'none'}</dd>`,
    '</dl>',
  );
  if (o.gates.length) {
    out.lines(
      '<ul class="gates" aria-label="Gates">',
      ...o.gates.map((g) => `<li class="${g.passed ? 'pass' : 'fail'}">${g.passed ? '✓' : '✗'} <code>${esc(g.gate)}</code>: ${esc(g.message)}</li>`),
      '</ul>',
    );
  }
  if (o.stopped)
    out.lines(
      `<p class="note" role="status">${escLines(o.stopped.message)}${o.stopped.resume ? `\n${o.stopped.kind === 'timeout' ? 'Keep waiting with' : 'Resume waiting with'}: <code>${esc(o.stopped.resume)}</code>` : ''}</p>`,
    );
  if (run.status === 'failed') out.lines(`<p class="note error" role="status">Run failed: ${escLines(run.error || 'no reason given')}</p>`);
  if (partial) {
    const note = partialNote(partial);
    out.lines(`<p class="note" role="status"><strong>${note.label}</strong>: ${esc(note.text)}</p>`);
  }
  out.lines('</header>', '<main>');

  out.lines('<section id="charts" aria-labelledby="charts-h"><h2 id="charts-h">Charts</h2>');
  out.lines(scenarioChart(rows, Boolean(c)), criteriaChart(o), trendChart(o));
  out.lines('</section>');

  out.lines('<section id="scenarios" aria-labelledby="scenarios-h"><h2 id="scenarios-h">Scenarios</h2>', scenarioTable(rows, o), '</section>');
  out.lines('<section id="criteria" aria-labelledby="criteria-h"><h2 id="criteria-h">Criteria</h2>', criteriaTable(o), '</section>');
  iterationsSection(out, o, rows);
  out.lines('</main>');
  out.lines(
    `<footer>Written by vap${c ? `. Verdicts: ${esc(methodText(c.method))}; no significant change: the interval lies within ± the minimum effect; regressed: otherwise, the interval is below 0; improved: above 0; too few iterations: the interval is too wide to tell` : ''}.</footer>`,
  );
  out.lines(`<script>${SCRIPT}</script>`, '</body>');
  out.add('</html>\n');
  return out.bytes();
}

// ---- charts (SVG drawn here; colours from the page's CSS, so dark mode and print follow) ----

const W = 760;
const LABEL = 230;
const PLOT = W - LABEL - 70;
const x01 = (v: number) => LABEL + Math.max(0, Math.min(1, v)) * PLOT;

function axis(top: number, bottom: number): string {
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  return ticks
    .map(
      (t) =>
        `<line class="grid" x1="${x01(t)}" y1="${top}" x2="${x01(t)}" y2="${bottom}"/><text class="muted" x="${x01(t)}" y="${bottom + 14}" text-anchor="middle">${t.toFixed(2)}</text>`,
    )
    .join('');
}

function scenarioChart(rows: readonly ScenarioRow[], withBaseline: boolean): string {
  const rowH = 24;
  const top = 24;
  const h = top + rows.length * rowH + 30;
  const parts: string[] = [];
  rows.forEach((r, i) => {
    const y = top + i * rowH + rowH / 2;
    const scores = r.summary.results.filter((x) => x.status !== 'failed' && typeof x.overallScore === 'number').map((x) => x.overallScore as number);
    const name = r.summary.name;
    parts.push(
      `<g><title>${esc(name)}: ${scores.length ? `mean ${fmtScore(r.summary.meanScore)}, ${scores.length} scored iterations from ${fmtScore(Math.min(...scores))} to ${fmtScore(Math.max(...scores))}` : 'no scored iteration'}${r.comparison ? `; baseline ${fmtScore(r.comparison.baseline.mean)}; ${esc(r.comparison.verdict)}` : ''}</title>`,
    );
    parts.push(`<text x="${LABEL - 8}" y="${y + 4}" text-anchor="end">${esc(clip(name, 34))}</text>`);
    if (scores.length) {
      parts.push(`<line class="spread" x1="${x01(Math.min(...scores))}" y1="${y}" x2="${x01(Math.max(...scores))}" y2="${y}"/>`);
      for (const s of scores) parts.push(`<circle class="dot" cx="${x01(s).toFixed(1)}" cy="${y}" r="3.5"/>`);
      const m = r.summary.meanScore ?? 0;
      parts.push(`<line class="mean" x1="${x01(m)}" y1="${y - 8}" x2="${x01(m)}" y2="${y + 8}"/>`);
      parts.push(`<text class="muted" x="${W - 62}" y="${y + 4}">${fmtScore(m)}</text>`);
    } else {
      parts.push(`<text class="muted" x="${LABEL + 4}" y="${y + 4}">no scored iteration</text>`);
    }
    const b = r.comparison?.baseline.mean;
    if (typeof b === 'number') {
      const bx = x01(b);
      parts.push(`<path class="basemark" d="M${bx} ${y - 7} L${bx + 6} ${y} L${bx} ${y + 7} L${bx - 6} ${y} Z"/>`);
    }
    parts.push('</g>');
  });
  const legend = `<text class="muted" x="${LABEL}" y="14">● iteration  ┃ mean  ─ spread${withBaseline ? '  ◇ baseline mean' : ''}</text>`;
  return `<figure id="chart-scenarios"><svg role="img" aria-labelledby="chart-scenarios-t" viewBox="0 0 ${W} ${h}" width="${W}" height="${h}"><title id="chart-scenarios-t">Score per scenario: each iteration, the mean and the spread${withBaseline ? ', with the baseline mean' : ''}</title>${legend}${axis(top - 4, h - 26)}${parts.join('')}</svg><figcaption>Score per scenario over its iterations (0 to 1)${withBaseline ? '; the diamond marks the baseline run’s mean' : ''}.</figcaption></figure>`;
}

function criteriaChart(o: RunOutcome): string {
  const rows = criterionRows(o);
  const c = o.baseline?.comparison;
  const rowH = c ? 34 : 22;
  const top = 24;
  const h = top + rows.length * rowH + 30;
  const parts: string[] = [];
  rows.forEach((r, i) => {
    const y = top + i * rowH;
    const cur = r.comparison?.current.mean ?? r.summary.average;
    const base = r.comparison?.baseline.mean;
    parts.push(
      `<g><title>${esc(r.summary.name ?? r.summary.key)}: ${fmtScore(cur)}${c ? ` against ${fmtScore(base)} (${signed(r.comparison?.delta)}, ${esc(r.comparison?.verdict ?? '')})` : ''}</title>`,
    );
    parts.push(`<text x="${LABEL - 8}" y="${y + 13}" text-anchor="end">${esc(clip(r.summary.name ?? r.summary.key, 34))}</text>`);
    if (typeof cur === 'number')
      parts.push(
        `<rect class="bar" x="${LABEL}" y="${y + 3}" width="${(x01(cur) - LABEL).toFixed(1)}" height="13"/><text class="muted" x="${W - 62}" y="${y + 13}">${fmtScore(cur)}</text>`,
      );
    if (c && typeof base === 'number')
      parts.push(
        `<rect class="bar-base" x="${LABEL}" y="${y + 18}" width="${(x01(base) - LABEL).toFixed(1)}" height="9"/><text class="muted" x="${W - 62}" y="${y + 27}">${fmtScore(base)}</text>`,
      );
    parts.push('</g>');
  });
  const legend = `<text class="muted" x="${LABEL}" y="14">■ this run${c ? `  ■ baseline run #${c.baseline.runNumber} (lighter)` : ''}</text>`;
  return `<figure id="chart-criteria"><svg role="img" aria-labelledby="chart-criteria-t" viewBox="0 0 ${W} ${h}" width="${W}" height="${h}"><title id="chart-criteria-t">Average score per criterion${c ? ' against the baseline' : ''}</title>${legend}${axis(top - 4, h - 26)}${parts.join('')}</svg><figcaption>Average per criterion${c ? `, this run above the baseline run #${c.baseline.runNumber}` : ''}.</figcaption></figure>`;
}

function trendChart(o: RunOutcome): string {
  const run = o.detail.run;
  const seen = new Map<string, Run>();
  for (const r of o.history ?? []) seen.set(r.id, r);
  if (!seen.has(run.id) && typeof run.overallScore === 'number') seen.set(run.id, run);
  const points = [...seen.values()]
    .filter((r) => typeof r.overallScore === 'number' && r.status === 'completed')
    .sort((a, b) => a.runNumber - b.runNumber)
    .slice(-30);
  const caption = 'Overall score of the suite’s recent completed runs, oldest to newest';
  if (points.length === 0)
    return `<figure id="chart-trend"><p class="muted">No completed run with a score to draw.</p><figcaption>${caption}.</figcaption></figure>`;
  const h = 200;
  const left = 50;
  const right = W - 20;
  const top = 20;
  const bottom = h - 40;
  const xs = (i: number) => (points.length === 1 ? (left + right) / 2 : left + (i / (points.length - 1)) * (right - left));
  const ys = (v: number) => bottom - Math.max(0, Math.min(1, v)) * (bottom - top);
  const parts: string[] = [];
  for (const t of [0, 0.5, 1])
    parts.push(
      `<line class="grid" x1="${left}" y1="${ys(t)}" x2="${right}" y2="${ys(t)}"/><text class="muted" x="${left - 6}" y="${ys(t) + 4}" text-anchor="end">${t.toFixed(1)}</text>`,
    );
  parts.push(`<polyline class="trend" points="${points.map((p, i) => `${xs(i).toFixed(1)},${ys(p.overallScore as number).toFixed(1)}`).join(' ')}"/>`);
  const baseId = o.baseline?.comparison?.baseline.id;
  points.forEach((p, i) => {
    const cls = p.id === run.id ? `current${passed(o) ? ' ok' : ''}` : 'point';
    const r = p.id === run.id ? 6 : 4;
    parts.push(
      `<g><title>run #${p.runNumber}: ${fmtScore(p.overallScore)}, agent version ${esc(p.agentVersion ?? '?')}${p.id === run.id ? ' (this run)' : ''}${p.id === baseId ? ' (baseline)' : ''}</title><circle class="${cls}" cx="${xs(i).toFixed(1)}" cy="${ys(p.overallScore as number).toFixed(1)}" r="${r}"/>`,
    );
    if (p.id === baseId) parts.push(`<circle class="basemark" cx="${xs(i).toFixed(1)}" cy="${ys(p.overallScore as number).toFixed(1)}" r="9"/>`);
    if (points.length <= 12 || i % Math.ceil(points.length / 12) === 0 || p.id === run.id)
      parts.push(`<text class="muted" x="${xs(i).toFixed(1)}" y="${bottom + 16}" text-anchor="middle">#${p.runNumber}</text>`);
    parts.push('</g>');
  });
  return `<figure id="chart-trend"><svg role="img" aria-labelledby="chart-trend-t" viewBox="0 0 ${W} ${h}" width="${W}" height="${h}"><title id="chart-trend-t">${caption}</title>${parts.join('')}</svg><figcaption>${caption}; the larger dot is this run${baseId ? ', the ring the baseline' : ''}.</figcaption></figure>`;
}

// ---- tables and transcripts ----

function scenarioTable(rows: readonly ScenarioRow[], o: RunOutcome): string {
  if (!rows.length) return '<p>No iteration was read.</p>';
  const c = o.baseline?.comparison;
  const head = c
    ? '<tr><th scope="col">Scenario</th><th scope="col" class="num">Iterations</th><th scope="col" class="num">Score</th><th scope="col" class="num">Baseline</th><th scope="col" class="num">Δ</th><th scope="col">95% CI</th><th scope="col">Verdict</th></tr>'
    : '<tr><th scope="col">Scenario</th><th scope="col" class="num">Iterations</th><th scope="col" class="num">Failed</th><th scope="col" class="num">Score</th></tr>';
  const body = rows.map((r) => {
    const x = r.comparison;
    if (!c)
      return `<tr><td>${esc(r.summary.name)}</td><td class="num">${r.summary.iterations}</td><td class="num">${r.summary.failed}</td><td class="num">${fmtScore(r.summary.meanScore)}</td></tr>`;
    return `<tr><td>${esc(r.summary.name)}</td><td class="num">${esc(iterationsText(r.summary))}</td><td class="num">${fmtScore(x?.current.mean ?? r.summary.meanScore)}</td><td class="num">${fmtScore(x?.baseline.mean)}</td><td class="num">${signed(x?.delta)}</td><td>${ciText(x?.ci)}</td><td class="v-${(x?.verdict ?? '').replace(/ /g, '-')}" title="${esc(x?.reason ?? '')}">${x ? `${VERDICT_MARK[x.verdict]} ${esc(x.verdict)}` : '–'}</td></tr>`;
  });
  return `<table><thead>${head}</thead><tbody>${body.join('')}</tbody></table>`;
}

function criteriaTable(o: RunOutcome): string {
  const rows = criterionRows(o);
  if (!rows.length) return '<p>No criterion was scored.</p>';
  const c = o.baseline?.comparison;
  const head = `<tr><th scope="col">Criterion</th><th scope="col" class="num">Weight</th><th scope="col" class="num">Average</th>${c ? '<th scope="col" class="num">Baseline</th><th scope="col" class="num">Δ</th><th scope="col">95% CI</th><th scope="col">Verdict</th>' : '<th scope="col" class="num">Best</th>'}</tr>`;
  const body = rows.map((r) => {
    const x = r.comparison;
    const name = `${r.summary.name && r.summary.name !== r.summary.key ? `${esc(r.summary.name)} ` : ''}<code>${esc(r.summary.key)}</code>`;
    const w = r.summary.weight === null ? '' : r.summary.weight.toFixed(2);
    const tail = c
      ? `<td class="num">${fmtScore(x?.baseline.mean)}</td><td class="num">${signed(x?.delta)}</td><td>${ciText(x?.ci)}</td><td class="v-${(x?.verdict ?? '').replace(/ /g, '-')}" title="${esc(x?.reason ?? '')}">${x ? `${VERDICT_MARK[x.verdict]} ${esc(x.verdict)}` : '–'}</td>`
      : `<td class="num">${fmtScore(r.summary.max)}</td>`;
    return `<tr><td>${name}</td><td class="num">${w}</td><td class="num">${fmtScore(x?.current.mean ?? r.summary.average)}</td>${tail}</tr>`;
  });
  return `<table><thead>${head}</thead><tbody>${body.join('')}</tbody></table>`;
}

/** The iterations' table and each iteration's transcript, written to `out` line by line. */
function iterationsSection(out: Utf8Chunks, o: RunOutcome, rows: readonly ScenarioRow[]): void {
  out.lines('<section id="iterations" aria-labelledby="iterations-h" tabindex="-1"><h2 id="iterations-h">Iterations</h2>');
  if (!o.results.length) {
    out.lines('<p>No iteration was read.</p></section>');
    return;
  }
  // Stable keys of our own for the filters and anchors (API ids are data, never markup).
  const key = new Map<string, string>();
  rows.forEach((r, i) => key.set(r.summary.scenarioId, `s${i}`));
  const statuses = [...new Set(o.results.map((r) => r.status))];
  out.lines(
    '<div class="filters" role="group" aria-label="Filter the iterations">',
    `<label>Scenario <select id="filter-scenario"><option value="">All scenarios</option>${rows.map((r) => `<option value="${key.get(r.summary.scenarioId)}">${esc(r.summary.name)}</option>`).join('')}</select></label>`,
    `<label>Status <select id="filter-status"><option value="">Any status</option>${statuses.map((s) => `<option value="${esc(s)}">${esc(s)}</option>`).join('')}</select></label>`,
    `<span id="filter-count" aria-live="polite">${o.results.length} iterations</span>`,
    '</div>',
  );
  const ordered = rows.flatMap((r) => r.summary.results);
  out.add(
    '<table id="iterations-table"><thead><tr><th scope="col">Scenario</th><th scope="col" class="num">Iteration</th><th scope="col">Status</th><th scope="col" class="num">Score</th><th scope="col" class="num">Duration</th></tr></thead><tbody>\n',
  );
  ordered.forEach((r, i) => {
    const k = key.get(r.evalScenarioId)!;
    const status = esc(r.status);
    out.add(
      `<tr data-scenario="${k}" data-status="${status}"><td><a href="#it-${i + 1}">${esc(r.scenarioName || r.evalScenarioId)}</a></td><td class="num">${r.iterationNumber}</td><td class="status-${status}">${status}</td><td class="num">${r.status === 'failed' ? '–' : fmtScore(r.overallScore)}</td><td class="num">${esc(seconds(r.durationSeconds))}</td></tr>\n`,
    );
  });
  out.lines('</tbody></table>', '<h2 id="transcripts-h">Transcripts</h2>');
  ordered.forEach((r, i) => iterationArticle(out, r, `it-${i + 1}`, key.get(r.evalScenarioId)!));
  out.lines('</section>');
}

/** One iteration: its transcript as a chat, each criterion's score and reason beside it (one line). */
function iterationArticle(out: Utf8Chunks, r: RunResult, id: string, scenarioKey: string): void {
  const status = esc(r.status);
  const duration = seconds(r.durationSeconds);
  let head = `${esc(r.scenarioName || r.evalScenarioId)} · iteration ${r.iterationNumber} · <span class="status-${status}">${status}</span>`;
  if (r.status !== 'failed') head += ` · score ${fmtScore(r.overallScore)}`;
  if (duration) head += ` · ${esc(duration)}`;
  out.add(
    `<article class="iteration" id="${id}" data-scenario="${scenarioKey}" data-status="${status}" aria-labelledby="${id}-h"><h3 id="${id}-h">${head} <span class="muted mono">${esc(r.id)}</span></h3>`,
  );
  if (r.error) out.add(`<p class="error">Error: ${escLines(r.error)}</p>`);
  out.add('<div class="cols">');
  const transcript = transcriptOf(r);
  if (transcript.length) {
    out.add('<ol class="chat" aria-label="Transcript">');
    for (const t of transcript) {
      const who = roleLabel(t.role);
      out.add(
        `<li class="turn ${who === 'agent' ? 'agent' : who === 'caller' ? 'caller' : 'other'}"><span class="who">${esc(who)}</span><p>${escLines(t.text)}</p></li>`,
      );
    }
    out.add('</ol>');
  } else {
    out.add('<p class="muted">No transcript.</p>');
  }
  const scores = r.criterionScores ?? [];
  if (scores.length) {
    out.add('<aside class="scores" aria-label="Criteria"><h4>Criteria</h4><dl>');
    for (const c of scores)
      out.add(`<dt><code>${esc(c.criterionKey)}</code> <span class="mono">${fmtScore(c.score)}</span></dt><dd>${escLines(c.reason)}</dd>`);
    out.add('</dl></aside>');
  } else {
    out.add('<aside class="scores"><p class="muted">No criterion scores.</p></aside>');
  }
  out.add('</div></article>\n');
}
