/// <reference lib="dom" />
// (page.evaluate callbacks run in the browser: the DOM types are for them.)
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, vap } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

// The HTML report of `vap evals run --report html=…` opened in a real headless browser
// (Debian's chromium, driven by puppeteer-core): a screenshot is taken, the page logs no
// error and requests nothing, the charts and the transcripts are in the DOM, hostile names
// stay text, the filters and the keyboard work, dark mode and print apply.

const CHROMIUM = process.env.VAP_CHROMIUM ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`skipped: the HTML report browser test needs ${CHROMIUM} (Debian's chromium package; .ci/run installs it)`);

const HOSTILE = '<img src="http://127.0.0.1:9/leak.png" onerror="document.title=1"> Wants a human';

let emu: TestEmulator;
let dir: string;
let browser: Browser;
let html: string;
let report: {
  run: { id: string; runNumber: number };
  results: Array<{ status: string; overallScore: number | null; transcript: Array<{ text: string }> }>;
  aggregates: { criteria: unknown[] };
};

describe.skipIf(!hasChromium)('the HTML report in a headless browser', () => {
  beforeAll(async () => {
    assertBuilt();
    emu = await startTestEmulator();
    dir = mkdtempSync(join(tmpdir(), 'vap-html-report-'));
    const env = { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, VAP_CONFIG_DIR: dir };
    const agent = (
      await emu.api('POST', '/api/v1/agents', {
        name: 'Reception',
        engine: 'realtime',
        instructions: 'Greet callers. Book appointments. Never give medical advice.',
      })
    ).body.data.id as string;
    const evalId = (await emu.api('POST', `/api/v1/agents/${agent}/evals`, { name: `Suite <script>alert(1)</script>`, iterationsPerScenario: 3 })).body.data
      .id as string;
    for (const [name, category] of [
      ['Book a cleaning', 'happy_path'],
      [HOSTILE, 'escalation'],
    ] as const) {
      await emu.api('POST', `/api/v1/agents/${agent}/evals/${evalId}/scenarios`, { name, persona: 'A caller', goal: `${name} today`, category });
    }
    const first = await vap(['evals', 'run', evalId, '--agent', agent, '--wait', '--allow-failed-iterations', '6', '-q'], { env });
    expect(first.exitCode).toBe(0);
    html = join(dir, 'reports', 'evals.html');
    const r = await vap(
      [
        'evals',
        'run',
        evalId,
        '--agent',
        agent,
        '--wait',
        '--allow-failed-iterations',
        '6',
        '--baseline',
        'previous',
        '--report',
        `html=${html}`,
        '--report',
        `json=${join(dir, 'reports', 'evals.json')}`,
        '-q',
      ],
      { env },
    );
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    report = JSON.parse(readFileSync(join(dir, 'reports', 'evals.json'), 'utf8'));
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      userDataDir: join(dir, 'chromium-profile'),
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-dev-shm-usage',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await emu?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Opens the report; returns the page with the console errors and every request it made. */
  async function open(): Promise<{ page: Page; errors: string[]; requests: string[] }> {
    const page = await browser.newPage();
    await page.setViewport({ width: 1200, height: 900 });
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(html).href, { waitUntil: 'load' });
    return { page, errors, requests };
  }

  it('renders without a console error or any request but the file itself, and a screenshot is taken', async () => {
    const { page, errors, requests } = await open();
    const shot = join(dir, 'report.png');
    await page.screenshot({ path: shot, fullPage: true });
    const png = readFileSync(shot);
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(png.length).toBeGreaterThan(20_000);
    expect(errors).toEqual([]);
    expect(requests).toEqual([pathToFileURL(html).href]);
    await page.close();
  });

  it('has the header, the three charts and every transcript in the DOM', async () => {
    const { page } = await open();
    const facts = await page.$eval('header .facts', (el) => el.textContent ?? '');
    expect(facts).toContain(`#${report.run.runNumber}`);
    expect(facts).toContain(report.run.id);
    expect(facts).toMatch(/Overall score\s*\d\.\d{3} \(run #\d+: \d\.\d{3}, [+-]?\d\.\d{3}\)/);
    const scored = report.results.filter((r) => r.status !== 'failed').length;
    expect(await page.$$eval('#chart-scenarios svg circle.dot', (els) => els.length)).toBe(scored);
    expect(await page.$$eval('#chart-scenarios svg path.basemark', (els) => els.length)).toBe(2);
    expect(await page.$$eval('#chart-criteria svg rect.bar', (els) => els.length)).toBe(report.aggregates.criteria.length);
    expect(await page.$$eval('#chart-criteria svg rect.bar-base', (els) => els.length)).toBe(report.aggregates.criteria.length);
    expect(await page.$$eval('#chart-trend svg circle', (els) => els.length)).toBeGreaterThanOrEqual(3); // two runs and the baseline's ring
    expect(await page.$$eval('article.iteration', (els) => els.length)).toBe(report.results.length);
    const firstLine = report.results.find((r) => r.transcript.length)!.transcript[0]!.text;
    const turns = await page.$$eval('.chat .turn p', (els) => els.map((e) => e.textContent));
    expect(turns).toContain(firstLine);
    expect(await page.$$eval('.scores dt', (els) => els.length)).toBeGreaterThan(0);
    await page.close();
  });

  it('shows hostile names as text: no element, script or request comes from the data', async () => {
    const { page, requests } = await open();
    expect(await page.$$eval('img', (els) => els.length)).toBe(0);
    expect(await page.$$eval('script', (els) => els.length)).toBe(1);
    expect(await page.title()).toContain('Suite <script>alert(1)</script>');
    const names = await page.$$eval('#scenarios td:first-child', (els) => els.map((e) => e.textContent));
    expect(names).toContain(HOSTILE);
    expect(requests.filter((u) => !u.startsWith('file:'))).toEqual([]);
    await page.close();
  });

  it('filters the iterations by scenario and status', async () => {
    const { page } = await open();
    const visible = () => page.$$eval('#iterations-table tbody tr', (rows) => rows.filter((r) => !(r as HTMLElement).hidden).length);
    expect(await visible()).toBe(report.results.length);
    const scenarioValue = await page.$$eval('#filter-scenario option', (o) => (o[1] as HTMLOptionElement).value);
    await page.select('#filter-scenario', scenarioValue);
    expect(await visible()).toBe(3);
    expect(await page.$$eval('article.iteration', (els) => els.filter((e) => !(e as HTMLElement).hidden).length)).toBe(3);
    expect(await page.$eval('#filter-count', (e) => e.textContent)).toBe(`3 of ${report.results.length} iterations`);
    await page.select('#filter-scenario', '');
    await page.select('#filter-status', 'completed');
    expect(await visible()).toBe(report.results.filter((r) => r.status === 'completed').length);
    await page.close();
  });

  it('is navigable by keyboard: the skip link comes first and leads to the iterations', async () => {
    const { page } = await open();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.className)).toBe('skip');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => location.hash)).toBe('#iterations');
    // Then the filters, then the links to each transcript.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('filter-scenario');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => (document.activeElement as HTMLAnchorElement | null)?.getAttribute('href'))).toBe('#it-1');
    await page.close();
  });

  it('follows dark mode, and prints without the filters', async () => {
    const { page } = await open();
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(13, 17, 23)');
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(255, 255, 255)');
    await page.emulateMediaType('print');
    expect(await page.$eval('.filters', (e) => getComputedStyle(e).display)).toBe('none');
    const pdf = await page.pdf({ format: 'A4' });
    expect(Buffer.from(pdf).subarray(0, 4).toString()).toBe('%PDF');
    await page.close();
  });
});
