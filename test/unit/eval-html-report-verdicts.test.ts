import { describe, expect, it } from 'vitest';
import { htmlReport } from '../../src/evals/report-html.js';
import { reportOutcomes } from '../helpers/eval-report-outcomes.js';

// The HTML report's two rules shared with the Markdown report: an improvement is never shown
// in the colour or shape of a failure, and a run cut short says that its averages are partial.
// (The page itself, rendered, is checked in a browser by test/e2e/evals-html-report-browser.test.ts.)

const outcomes = reportOutcomes();
const page = (name: string) => htmlReport(outcomes[name]!).toString('utf8');
/** The colour variable a CSS class is given in the page's style sheet. */
function colourOf(html: string, cls: string): string | undefined {
  const rule = html.match(new RegExp(`([^{}]*\\.${cls}\\b[^{}]*)\\{\\s*color:\\s*var\\((--[\\w-]+)\\)`));
  return rule?.[2];
}

describe('the HTML report', () => {
  it('shows an improvement in green with ▲, never as a failure (red, ✗), and a regression in red with ▼', () => {
    const html = page('with-baseline');
    expect(colourOf(html, 'v-improved')).toBe('--good');
    expect(colourOf(html, 'v-regressed')).toBe('--bad');
    expect(colourOf(html, 'fail')).toBe('--bad');
    const cells = [...html.matchAll(/<td class="v-([\w-]+)"[^>]*>([^<]*)<\/td>/g)].map((m) => [m[1], m[2]]);
    const improved = cells.filter(([cls]) => cls === 'improved');
    expect(improved.length).toBeGreaterThan(0);
    for (const [, text] of improved) expect(text).toBe('▲ improved');
    for (const [, text] of cells.filter(([cls]) => cls === 'regressed')) expect(text).toBe('▼ regressed');
    // No cell says "improved" with another class, or with a failure's mark.
    expect(cells.filter(([cls, text]) => text!.includes('improved') && cls !== 'improved')).toEqual([]);
    expect(html).not.toMatch(/class="(fail|v-regressed|status-failed)"[^>]*>[^<]*improved/);
    // The baseline's headline verdict and the gates are two facts, each with its own mark.
    expect(html).toContain('<strong class="v-regressed">▼ regressed</strong> (▼ regressed at family-wise error 1%: ');
    expect(html).toContain('; rows: 1 regressed, 1 improved,');
    expect(html).toContain('<dt>Gates</dt><dd><span class="fail">✗ below a gate</span></dd>');
  });

  it('says that the averages of a run cut short are partial, and of no other', () => {
    const failed = page('run-failed');
    expect(failed).toContain('<dt>Overall score</dt><dd><strong>0.714</strong> (partial)</dd>');
    expect(failed).toContain(
      '<p class="note" role="status"><strong>Partial averages</strong>: the run failed after 6 of 14 iterations; every score and average here covers those 6 only.</p>',
    );
    expect(page('timeout')).toContain(
      '<strong>Partial averages</strong>: the wait ended after 3 of 28 iterations (the run goes on); every score and average here covers those 3 only.',
    );
    for (const name of ['with-baseline', 'plain', 'allowed-no-baseline', 'interrupted']) expect(page(name)).not.toContain('partial');
  });
});
