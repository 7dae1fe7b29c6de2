import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLParser } from 'fast-xml-parser';
import { isCI } from '../../src/context.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

// The JUnit report that strict consumers accept, written also when the wait times out (124)
// and when the run fails (1), with an <error> test case that says why.
//
// Schema: the Jenkins xUnit plugin's junit-10.xsd, checked with xmllint (Debian's
// libxml2-utils). The schema is a shared fixture outside the repository (files from other
// repositories may not be committed here), reached from the project's root as
// ../shared/fixtures/junit-10.xsd, where CI has it too; VAP_JUNIT_XSD names another copy.
// Outside CI the check is skipped, saying so, when xmllint or the file is missing; under
// CI=true that is a failure (.ci/run installs libxml2-utils). The structural checks below
// always run: they restate the rules of junit-10.xsd the report relies on, and are not the
// schema.

const XSD = process.env.VAP_JUNIT_XSD || fileURLToPath(new URL('../../../shared/fixtures/junit-10.xsd', import.meta.url));
const hasXmllint = spawnSync('xmllint', ['--version']).status === 0;
const hasXsd = existsSync(XSD);
const canValidate = hasXsd && hasXmllint;
const inCI = isCI(process.env);
const missing = [hasXmllint ? '' : 'xmllint (libxml2-utils)', hasXsd ? '' : `the schema ${XSD}${process.env.VAP_JUNIT_XSD ? ' (VAP_JUNIT_XSD)' : ''}`]
  .filter(Boolean)
  .join(' and ');
if (!canValidate && !inCI) console.warn(`skipped: the junit-10.xsd check needs ${missing}`);

let emu: TestEmulator;
let dir: string;
let agentId: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), 'vap-junit-'));
  agentId = (await emu.api('POST', '/api/v1/agents', { name: 'Reception', engine: 'realtime', instructions: 'Greet callers. Book appointments.' })).body.data
    .id;
});
afterAll(async () => {
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

const vap = (argv: string[], env: Record<string, string> = {}) => runCli(argv, { env: { ...cliEnv(emu.url, ORG_A.apiKey), ...env } });

async function suite(noise?: { type: string; level: string }): Promise<string> {
  const evalId = (
    await emu.api('POST', `/api/v1/agents/${agentId}/evals`, { name: `JUnit ${Math.random()}`, iterationsPerScenario: 4, ...(noise ? { noise } : {}) })
  ).body.data.id as string;
  for (const [name, category] of [
    ['Book <a> & "cleaning"', 'happy_path'],
    ['Wants a human', 'escalation'],
    ['Asks for a diagnosis', 'adversarial'],
  ] as const) {
    await emu.api('POST', `/api/v1/agents/${agentId}/evals/${evalId}/scenarios`, { name, persona: 'A caller', goal: `${name} today`, category });
  }
  return evalId;
}

function xmllint(file: string): { ok: boolean; output: string } {
  const r = spawnSync('xmllint', ['--noout', '--schema', XSD!, file], { encoding: 'utf8' });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}`.trim() };
}

const SUREFIRE_TIME = /^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]{0,3})?$/;
type Node = Record<string, unknown>;
const list = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The rules of junit-10.xsd this report relies on (the attributes allowed and required, times, counts). */
function checkStructure(xml: string): { suites: Node[]; errors: Node[] } {
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseAttributeValue: false }).parse(xml) as { testsuites: Node };
  const root = doc.testsuites;
  const attrs = (n: Node) =>
    Object.keys(n)
      .filter((k) => k.startsWith('@'))
      .map((k) => k.slice(1));
  expect(
    attrs(root).every((a) => ['name', 'time', 'tests', 'failures', 'errors'].includes(a)),
    `testsuites attributes: ${attrs(root)}`,
  ).toBe(true);
  expect(String(root['@time'])).toMatch(SUREFIRE_TIME);
  const suites = list(root.testsuite as Node | Node[]);
  let tests = 0;
  let failures = 0;
  let errors = 0;
  const errorNodes: Node[] = [];
  for (const s of suites) {
    for (const a of ['name', 'tests', 'failures', 'errors']) expect(s[`@${a}`], `testsuite @${a}`).toBeDefined();
    expect(String(s['@time'])).toMatch(SUREFIRE_TIME);
    const cases = list(s.testcase as Node | Node[]);
    expect(Number(s['@tests'])).toBe(cases.length);
    expect(Number(s['@failures'])).toBe(cases.filter((c) => c.failure !== undefined).length);
    expect(Number(s['@errors'])).toBe(cases.filter((c) => c.error !== undefined).length);
    expect(Number(s['@skipped'])).toBe(cases.filter((c) => c.skipped !== undefined).length);
    for (const c of cases) {
      expect(c['@name']).toBeDefined();
      if (c.error !== undefined) errorNodes.push(c.error as Node);
    }
    tests += cases.length;
    failures += Number(s['@failures']);
    errors += Number(s['@errors']);
  }
  expect([Number(root['@tests']), Number(root['@failures']), Number(root['@errors'])]).toEqual([tests, failures, errors]);
  return { suites, errors: errorNodes };
}

describe('JUnit that strict consumers accept', () => {
  it.runIf(inCI)('in CI the junit-10.xsd check runs: xmllint and the schema are there', () => {
    expect(missing, `the junit-10.xsd check cannot run in CI: missing ${missing}`).toBe('');
  });

  it('a completed run (a failed gate, failed and allowed iterations): structure, and junit-10.xsd when available', async () => {
    const evalId = await suite({ type: 'static', level: 'high' });
    const strict = join(dir, 'strict.xml');
    const lenient = join(dir, 'lenient.xml');
    const a = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--min-score', '0.99', '--report', `junit=${strict}`]);
    expect(a.code).toBe(3);
    const runId = /run #1 \((run_\w+)\)/.exec(a.stderr)![1]!;
    const b = await vap([
      'evals',
      'runs',
      'get',
      runId,
      '--eval',
      evalId,
      '--agent',
      agentId,
      '--allow-failed-iterations',
      '12',
      '--baseline',
      runId.replace(/.$/, 'x'),
      '--report',
      `junit=${lenient}`,
    ]);
    expect(b.code).toBe(2); // a baseline that is not a run of the suite: refused before anything is written
    expect(existsSync(lenient)).toBe(false);
    const c = await vap([
      'evals',
      'runs',
      'get',
      runId,
      '--eval',
      evalId,
      '--agent',
      agentId,
      '--allow-failed-iterations',
      '12',
      '--report',
      `junit=${lenient}`,
    ]);
    expect(c.code).toBe(0);
    for (const file of [strict, lenient]) {
      const xml = readFileSync(file, 'utf8');
      expect(xml).not.toMatch(/<testsuites[^>]*\sskipped=/);
      checkStructure(xml);
    }
    expect(readFileSync(lenient, 'utf8')).toMatch(/<skipped message="iteration failed: /);
    if (canValidate) {
      for (const file of [strict, lenient]) expect(xmllint(file)).toEqual({ ok: true, output: `${file} validates` });
      // The control: the schema does refuse what vap used to write.
      const old = join(dir, 'old.xml');
      writeFileSync(old, readFileSync(strict, 'utf8').replace('<testsuites ', '<testsuites skipped="0" '));
      expect(xmllint(old)).toMatchObject({ ok: false, output: expect.stringContaining("attribute 'skipped': The attribute 'skipped' is not allowed") });
    }
  });

  it('written when --wait times out (124): an <error> test case says why and how to keep waiting', async () => {
    const evalId = await suite();
    await emu.control('POST', '/evals/next-run', { outcome: 'hold', evalId });
    const file = join(dir, 'timeout.xml');
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--timeout', '300ms', '--report', `junit=${file}`]);
    expect(r.code).toBe(124);
    const xml = readFileSync(file, 'utf8');
    const { errors } = checkStructure(xml);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ '@type': 'timeout', '@message': expect.stringMatching(/^run run_\w+ had not finished after 300ms .*; it goes on$/) });
    expect(String(errors[0]!['#text'])).toMatch(/Keep waiting with: vap evals runs get run_\w+ --eval ev_\w+ --agent ag_\w+ --wait --report junit=/);
    if (canValidate) expect(xmllint(file).ok, xmllint(file).output).toBe(true);
    const runId = /run (run_\w+) had not finished/.exec(r.stderr)![1]!;
    await emu.control('POST', `/evals/runs/${runId}/release`);
  });

  it("written when the run fails (1): an <error> test case with the run's reason", async () => {
    const evalId = await suite();
    await emu.control('POST', '/evals/next-run', { outcome: 'fail', reason: 'the tester pool is down', evalId });
    const file = join(dir, 'failed.xml');
    const r = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '--min-score', '0.5', '--report', `junit=${file}`]);
    expect(r.code).toBe(1);
    const { errors } = checkStructure(readFileSync(file, 'utf8'));
    expect(errors).toEqual([expect.objectContaining({ '@type': 'run_failed', '@message': 'run failed: the tester pool is down' })]);
    if (canValidate) expect(xmllint(file).ok, xmllint(file).output).toBe(true);
  });

  it('written when the API fails while waiting (1): an <error> test case with the error', async () => {
    const evalId = await suite();
    await emu.control('POST', '/evals/next-run', { outcome: 'hold', evalId });
    // Every read of the run answers 500 (after the start): the wait ends with the API's error.
    await emu.fault({ method: 'GET', path: `/api/v1/agents/${agentId}/evals/${evalId}/runs/*`, status: 500, count: 100 });
    const file = join(dir, 'api-error.xml');
    const r = await vap([
      'evals',
      'run',
      evalId,
      '--agent',
      agentId,
      '--wait',
      '--poll',
      '--report',
      `junit=${file}`,
      '--report',
      `json=${join(dir, 'api-error.json')}`,
    ]);
    await emu.control('DELETE', '/faults').catch(() => undefined);
    expect(r.code).toBe(1);
    const { errors } = checkStructure(readFileSync(file, 'utf8'));
    expect(errors).toEqual([expect.objectContaining({ '@type': 'error', '@message': expect.stringMatching(/^stopped waiting for run run_\w+: .*500/) })]);
    const json = JSON.parse(readFileSync(join(dir, 'api-error.json'), 'utf8'));
    expect(json).toMatchObject({ passed: false, stopped: { kind: 'error' } });
    if (canValidate) expect(xmllint(file).ok, xmllint(file).output).toBe(true);
    const runs = (await emu.api('GET', `/api/v1/agents/${agentId}/evals/${evalId}/runs`)).body.data.runs;
    await emu.control('POST', `/evals/runs/${runs[0].id}/release`);
  });
});
