import { describe, expect, it } from 'vitest';
import { renderReport, type ReportKind } from '../../src/evals/reports.js';
import { markdownReport } from '../../src/evals/report-markdown.js';
import { longMarkdownOutcome, reportOutcomes } from '../helpers/eval-report-outcomes.js';

// Every report (JUnit, JSON, Markdown, HTML) of a set of fixed runs, byte for byte against
// the files under __snapshots__/eval-reports/: a change to how a report is built (for
// speed, say) must leave what it writes as it was. A deliberate change to a report is
// reviewed in those files' diff (update them with `npx vitest run -u` on this file).

const EXT: Record<ReportKind, string> = { junit: 'xml', json: 'json', markdown: 'md', html: 'html' };
const outcomes = reportOutcomes();
/** What reaches the file: the report's UTF-8 bytes (a lone surrogate in data becomes U+FFFD there). */
const written = (text: string) => Buffer.from(text, 'utf8').toString('utf8');

describe('the eval reports of fixed runs are written byte for byte as before', () => {
  for (const [name, outcome] of Object.entries(outcomes)) {
    for (const kind of Object.keys(EXT) as ReportKind[]) {
      it(`${name}: ${kind}`, async () => {
        await expect(written(await renderReport(kind, outcome))).toMatchFileSnapshot(`__snapshots__/eval-reports/${name}.${EXT[kind]}`);
      });
    }
  }

  it("a run cut to fit GitHub's comment limit: markdown", async () => {
    const md = markdownReport(longMarkdownOutcome());
    expect(md).toContain('to keep this comment within GitHub');
    await expect(written(md)).toMatchFileSnapshot('__snapshots__/eval-reports/long-cut.md');
  });

  it('the reports are rendered the same however often, and in any order', async () => {
    const o = outcomes['with-baseline']!;
    const first = await Promise.all((['html', 'markdown', 'json', 'junit'] as const).map((k) => renderReport(k, o)));
    const again = await Promise.all((['junit', 'json', 'markdown', 'html'] as const).map((k) => renderReport(k, o)));
    expect(first).toEqual(again.reverse());
  });
});
