// Property: whatever a pull request writes into the source's state file and journal, a
// promotion never carries content whose runs did not pass on the source platform. One
// staging agent passed a gated push with the files' content C1; the files may hold C1 or an
// edit C2 that never ran an eval; the state and journal are then edited at random.
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentFilesHash } from '../../src/ascode/passed.js';
import { ProblemList } from '../../src/ascode/problems.js';
import { readFiles } from '../../src/ascode/project.js';
import { startTwoOrgs, benign, PROD, seedAgent, STAGING, twoOrgEnv, waitForRun } from '../helpers/two-orgs.js';
import { runCli } from '../helpers/run-cli.js';
import type { TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
let base: string;
let slug: string;
const ids: Record<string, string> = {};
const hashes: Record<string, string> = {};
let c1 = '';
let c2 = '';

const vapIn = (dir: string, args: string[]) => runCli([...args, '--dir', dir], { env: twoOrgEnv(emu.url, join(dir, '.config')) });
const api = async (method: string, path: string, body?: unknown) => (await emu.api(method, path, body, STAGING.apiKey)).body?.data;

async function filesHash(dir: string): Promise<string> {
  const files = await readFiles(dir, { vars: {}, profile: 'staging' }, new ProblemList());
  return agentFilesHash(files, slug)!;
}

beforeAll(async () => {
  emu = await startTwoOrgs();
  await seedAgent(emu, PROD, { name: 'Reception', tools: ['Calendar booking'] });
  base = mkdtempSync(join(tmpdir(), 'vap-promote-prop-'));
  // Version 1 has a completed run (an earlier version's, once the push makes version 2).
  const a = await seedAgent(emu, STAGING, { name: 'Desk', tools: ['Calendar booking'], suite: { name: 'Booking', iterations: 1 } });
  const other = await seedAgent(emu, STAGING, { name: 'Other', tools: ['Calendar booking'], suite: { name: 'Booking', iterations: 1 } });
  Object.assign(ids, { agent: a.agentId, suite: a.suiteId!, earlier: a.runId!, other: other.agentId, otherSuite: other.suiteId!, otherRun: other.runId! });
  slug = 'desk';
  expect((await vapIn(base, ['--profile', 'staging', 'pull', '--agent', a.agentId])).code).toBe(0);
  const md = join(base, 'agents', slug, 'agent.md');
  writeFileSync(md, benign(readFileSync(md, 'utf8')));
  const pushed = await vapIn(base, ['--profile', 'staging', 'push', '--yes', '--eval', '--allow-failed-iterations', '10']);
  expect(pushed.code, pushed.stderr).toBe(0);
  ids.passed = JSON.parse(readFileSync(join(base, '.vap', 'state.staging.json'), 'utf8')).passed[slug].runs[0];
  // A failed run of the gating suite on the current version.
  await emu.control('POST', '/evals/next-run', { outcome: 'fail', evalId: a.suiteId });
  const failed = await api('POST', `/api/v1/agents/${a.agentId}/evals/${a.suiteId}/runs`);
  await waitForRun(emu, STAGING, a.agentId, a.suiteId!, failed.id).catch(() => undefined);
  ids.failed = failed.id;
  c1 = readFileSync(md, 'utf8');
  c2 = c1.replace('Never share', 'Always share');
  hashes.c1 = await filesHash(base);
  writeFileSync(md, c2);
  hashes.c2 = await filesHash(base);
  writeFileSync(md, c1);
}, 120_000);

afterAll(async () => {
  await emu?.close();
  rmSync(base, { recursive: true, force: true });
});

const journalLine = (changes: unknown[]) => {
  const json = Buffer.from(JSON.stringify(changes), 'utf8');
  return `${crc32(json).toString(16).padStart(8, '0')} ${json.toString('utf8')}\n`;
};

describe('promote with a state edited at random', () => {
  it('never carries content whose runs did not pass on the source platform', async () => {
    const runIds = () => fc.subarray(['passed', 'earlier', 'failed', 'otherRun', 'invented'] as const, { minLength: 0, maxLength: 3 });
    const record = fc.record({
      files: fc.constantFrom('c1', 'c2', 'junk'),
      runs: runIds(),
      via: fc.constantFrom('push', 'preview'),
    });
    const edits = fc.record({
      content: fc.constantFrom('c1', 'c2'),
      record: fc.option(record, { nil: undefined }),
      agentId: fc.constantFrom('agent', 'other', 'forged'),
      suiteId: fc.constantFrom('suite', 'otherSuite'),
      journal: fc.option(record, { nil: undefined }),
      strictGate: fc.boolean(),
    });
    const runId = (r: string) => (r === 'invented' ? 'run_doesnotexist' : ids[r]!);
    const asRecord = (r: { files: string; runs: readonly string[]; via: string }) => ({
      files: r.files === 'junk' ? '0123456789abcdef' : hashes[r.files],
      runs: r.runs.map(runId),
      via: r.via,
      at: '2026-12-01T00:00:00.000Z',
    });
    await fc.assert(
      fc.asyncProperty(edits, async (e) => {
        const dir = mkdtempSync(join(tmpdir(), 'vap-promote-prop-run-'));
        try {
          cpSync(base, dir, { recursive: true });
          writeFileSync(join(dir, 'agents', slug, 'agent.md'), e.content === 'c1' ? c1 : c2);
          const statePath = join(dir, '.vap', 'state.staging.json');
          const st = JSON.parse(readFileSync(statePath, 'utf8'));
          if (e.record) st.passed[slug] = asRecord(e.record);
          else delete st.passed[slug];
          st.agents[slug].id = e.agentId === 'forged' ? 'ag_forged' : ids[e.agentId];
          st.suites[`${slug}/booking`].id = ids[e.suiteId];
          writeFileSync(statePath, JSON.stringify(st));
          if (e.journal) appendFileSync(join(dir, '.vap', 'state.staging.journal'), journalLine([['passed', slug, asRecord(e.journal)]]));
          if (e.strictGate) appendFileSync(join(dir, 'vap.yaml'), 'gates:\n  min-score: 0.999\n');
          const r = await vapIn(dir, ['promote', '--from', 'staging', '--to', 'prod', '--dry-run', '--allow-failed-iterations', '10']);
          const carried = r.stdout.includes(`✓ agent ${slug}:`);
          // Carried only: the content that passed, whose passing run of the current version on the real agent is named, under gates it meets.
          const mayCarry =
            e.content === 'c1' &&
            e.record?.via === 'push' &&
            e.record.runs.includes('passed') &&
            e.record.runs.every((x) => x === 'passed') &&
            e.agentId === 'agent' &&
            e.suiteId === 'suite' &&
            !e.strictGate;
          if (carried) expect(mayCarry, `${JSON.stringify(e)}\n${r.stdout}\n${r.stderr}`).toBe(true);
          else expect(r.code === 3 || r.code === 2, `${JSON.stringify(e)}\n${r.stdout}\n${r.stderr}`).toBe(true);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 60, seed: 31 },
    );
    // The property is not met by refusing everything: the honest case is carried.
    const honest = await vapIn(base, ['promote', '--from', 'staging', '--to', 'prod', '--dry-run', '--allow-failed-iterations', '10']);
    expect(honest.stdout, honest.stderr).toContain(`✓ agent ${slug}:`);
  }, 300_000);
});
