// A pull request can edit every file of the project, the state and its journal included.
// `vap promote` decides on what the source platform holds, never on those files: each
// attack below is what a contributor could commit, and each is refused with nothing sent.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { agentFilesHash } from '../../src/ascode/passed.js';
import { ProblemList } from '../../src/ascode/problems.js';
import { readFiles } from '../../src/ascode/project.js';
import { benign, PROD, seedAgent, STAGING, useTwoOrgProject, waitForRun, writes } from '../helpers/two-orgs.js';

const t = useTwoOrgProject('vap-promote-forged-', (emu) => seedAgent(emu, PROD, { name: 'Reception', tools: ['Calendar booking'] }));
let n = 0;

const vap = (args: string[]) => t.vap(args);
const staging = (args: string[]) => vap(['--profile', 'staging', ...args]);
const promote = (...more: string[]) => vap(['promote', '--from', 'staging', '--to', 'prod', '--yes', ...more]);

const md = (slug: string) => join(t.dir, 'agents', slug, 'agent.md');
const edit = (slug: string, f: (s: string) => string) => writeFileSync(md(slug), f(readFileSync(md(slug), 'utf8')));
const stateFile = () => join(t.dir, '.vap', 'state.staging.json');
const readState = () => JSON.parse(readFileSync(stateFile(), 'utf8'));
const writeState = (s: unknown) => writeFileSync(stateFile(), `${JSON.stringify(s, null, 2)}\n`);
const api = async (method: string, path: string, body?: unknown) => (await t.emu.api(method, path, body, STAGING.apiKey)).body?.data;

/** What an attacker computes: the unkeyed hash of the files as they are now. */
async function filesHash(slug: string): Promise<string> {
  const problems = new ProblemList();
  const files = await readFiles(t.dir, { vars: {}, profile: 'staging' }, problems);
  expect(problems.size).toBe(0);
  return agentFilesHash(files, slug)!;
}

/** A staging agent with a gating suite, pulled, its instructions changed and pushed with --eval (a real pass). */
async function passedAgent(): Promise<{ slug: string; agentId: string; suiteId: string; runs: string[] }> {
  const s = await seedAgent(t.emu, STAGING, { name: `Desk ${++n}`, tools: ['Calendar booking'], suite: { name: 'Booking', iterations: 1 }, run: false });
  const slug = `desk-${n}`;
  expect((await staging(['pull', '--agent', s.agentId])).code).toBe(0);
  edit(slug, benign);
  const r = await staging(['push', '--yes', '--eval', '--allow-failed-iterations', '10']);
  expect(r.code, r.stderr).toBe(0);
  const runs = readState().passed[slug].runs as string[];
  return { slug, agentId: s.agentId, suiteId: s.suiteId!, runs };
}

/** The promotion is refused for this agent with this reason, exit 3, and nothing is sent anywhere. */
async function expectRefused(slug: string, why: string | RegExp, more: string[] = []) {
  await t.emu.clearRequests();
  const r = await promote('--allow-failed-iterations', '10', ...more);
  expect(r.code, r.stderr).toBe(3);
  const line = r.stdout.split('\n').find((l) => l.startsWith(`  ✗ agent ${slug}: `));
  expect(line, r.stdout).toBeDefined();
  if (typeof why === 'string') expect(line).toContain(why);
  else expect(line).toMatch(why);
  expect(r.stderr).toContain('nothing was sent');
  expect(await writes(t.emu)).toEqual([]);
  return r;
}

/** A journal line as vap writes one: the CRC-32 of the JSON, a space, the changes. */
function journalLine(changes: unknown[]): string {
  const json = Buffer.from(JSON.stringify(changes), 'utf8');
  return `${crc32(json).toString(16).padStart(8, '0')} ${json.toString('utf8')}\n`;
}

describe('a promotion trusts the source platform, not the committed state', () => {
  it('a forged pass in the state file for content that never ran an eval is refused', async () => {
    const a = await passedAgent();
    // The pull request edits the instructions and writes a pass for the new content, with an invented run.
    edit(a.slug, (s) => s.replace('Never share', 'Always share'));
    const st = readState();
    st.passed[a.slug] = { ...st.passed[a.slug], files: await filesHash(a.slug), runs: ['run_doesnotexist'] };
    writeState(st);
    await expectRefused(a.slug, `its files were edited since they passed in profile "staging"`);
  });

  it('a pass appended to the journal passes nothing', async () => {
    const s = await seedAgent(t.emu, STAGING, { name: `Journal ${++n}`, tools: ['Calendar booking'], suite: { name: 'Booking', iterations: 1 } });
    const slug = `journal-${n}`;
    expect((await staging(['pull', '--agent', s.agentId])).code).toBe(0);
    // The files are the platform's, and the suite has a completed run on that version: only a record is missing.
    appendFileSync(
      join(t.dir, '.vap', 'state.staging.journal'),
      journalLine([['passed', slug, { files: await filesHash(slug), runs: [s.runId], via: 'push', at: new Date().toISOString() }]]),
    );
    await expectRefused(slug, 'its files have no record of passing their gating suites in profile "staging"');
  });

  it('an invented run id is refused, though the platform holds the files', async () => {
    const a = await passedAgent();
    const st = readState();
    st.passed[a.slug].runs = ['run_doesnotexist'];
    writeState(st);
    await expectRefused(a.slug, 'run run_doesnotexist is not a run of its gating suites on profile "staging"');
  });

  it("a real, passing run of another agent's suite is refused", async () => {
    const a = await passedAgent();
    const other = await passedAgent();
    const st = readState();
    st.passed[a.slug].runs = other.runs;
    writeState(st);
    await expectRefused(a.slug, `run ${other.runs[0]} is not a run of its gating suites on profile "staging"`);
  });

  it("a run of the agent's suite that is not a gating one is refused", async () => {
    const a = await passedAgent();
    const extra = await api('POST', `/api/v1/agents/${a.agentId}/evals`, { name: 'Smoke', iterationsPerScenario: 1 });
    await api('POST', `/api/v1/agents/${a.agentId}/evals/${extra.id}/scenarios`, { name: 'Hello', persona: 'Ana', goal: 'Say hello', category: 'happy_path' });
    await api('PATCH', `/api/v1/agents/${a.agentId}/evals/${extra.id}`, { status: 'ready' });
    const run = await api('POST', `/api/v1/agents/${a.agentId}/evals/${extra.id}/runs`);
    await waitForRun(t.emu, STAGING, a.agentId, extra.id, run.id);
    const st = readState();
    st.passed[a.slug].runs = [run.id];
    writeState(st);
    await expectRefused(a.slug, `run ${run.id} is not a run of its gating suites on profile "staging"`);
  });

  it('a run made on an earlier version of the agent is refused', async () => {
    const a = await passedAgent();
    // A later push without --eval puts new content on staging; the record is made to claim it.
    edit(a.slug, (s) => s.replace('Never share', 'Never, ever share'));
    expect((await staging(['push', '--yes'])).code).toBe(0);
    const st = readState();
    st.passed[a.slug].files = await filesHash(a.slug);
    writeState(st);
    const version = (await api('GET', `/api/v1/agents/${a.agentId}`)).currentVersion;
    await expectRefused(a.slug, new RegExp(`run ${a.runs[0]} was made on version ${version - 1}; the agent is at version ${version} on profile "staging" now`));
  });

  it('a run below the gates of vap.yaml is refused, whatever gate the push that recorded it used', async () => {
    const a = await passedAgent();
    writeFileSync(join(t.dir, 'vap.yaml'), `${readFileSync(join(t.dir, 'vap.yaml'), 'utf8')}gates:\n  min-score: 0.999\n`);
    await expectRefused(a.slug, new RegExp(`run ${a.runs[0]} does not pass --min-score 0\\.999: overall score \\d\\.\\d+ < 0\\.999`));
    // The same from promote's own flag, with no gates in vap.yaml.
    writeFileSync(join(t.dir, 'vap.yaml'), readFileSync(join(t.dir, 'vap.yaml'), 'utf8').replace(/gates:\n  min-score: 0\.999\n/, ''));
    await expectRefused(a.slug, `does not pass --min-score 0.999`, ['--min-score', '0.999']);
  });

  it('a failed run is refused', async () => {
    const a = await passedAgent();
    // A run of the gating suite on the current version that the platform failed.
    await t.emu.control('POST', '/evals/next-run', { outcome: 'fail', evalId: a.suiteId, reason: 'the telephony provider was down' });
    const run = await api('POST', `/api/v1/agents/${a.agentId}/evals/${a.suiteId}/runs`);
    for (let i = 0; i < 400 && (await api('GET', `/api/v1/agents/${a.agentId}/evals/${a.suiteId}/runs/${run.id}`)).run.status !== 'failed'; i++)
      await new Promise((r) => setTimeout(r, 25));
    const st = readState();
    st.passed[a.slug].runs = [run.id];
    writeState(st);
    await expectRefused(a.slug, `run ${run.id} is failed on profile "staging", not completed`);
  });

  it('gates written into the state are not a state vap reads: exit 2, nothing sent', async () => {
    const a = await passedAgent();
    const st = readState();
    st.passed[a.slug].gates = { 'min-score': 0 };
    writeState(st);
    await t.emu.clearRequests();
    const r = await promote();
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`passed["${a.slug}"]`);
    expect(await writes(t.emu)).toEqual([]);
  });

  it('push --force completes no forged record and creates none; the next promotion is still refused', async () => {
    const a = await passedAgent();
    edit(a.slug, (s) => s.replace('Never share', 'Always share'));
    const st = readState();
    const forged = { ...st.passed[a.slug], files: await filesHash(a.slug) };
    st.passed[a.slug] = forged;
    writeState(st);
    // Staging changes in the product too, so the push needs --force (the fix vap prints for drift).
    await api('PATCH', `/api/v1/agents/${a.agentId}`, { description: 'edited in the product' });
    const pushed = await staging(['push', '--yes', '--force']);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(readState().passed[a.slug]).toEqual(forged);
    await expectRefused(a.slug, /run \S+ was made on version \d+; the agent is at version \d+ on profile "staging" now/);

    // An agent with no record gets none from a forced push.
    const b = await seedAgent(t.emu, STAGING, { name: `Plain ${++n}`, tools: ['Calendar booking'], suite: { name: 'Booking', iterations: 1 } });
    expect((await staging(['pull', '--agent', b.agentId])).code).toBe(0);
    edit(`plain-${n}`, benign);
    expect((await staging(['push', '--yes', '--force'])).code).toBe(0);
    expect(readState().passed[`plain-${n}`]).toBeUndefined();
  });

  it('what really passed, and is still what staging holds, is carried', async () => {
    const a = await passedAgent();
    await t.emu.clearRequests();
    const r = await promote('--allow-failed-iterations', '10');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`✓ agent ${a.slug}: passed in profile "staging" (a gated push, runs ${a.runs.join(', ')}, verified there on version`);
  });
});
