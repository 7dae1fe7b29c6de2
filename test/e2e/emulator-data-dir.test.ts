import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../helpers/built.js';
import { failedStart, startEmulatorProcess } from '../helpers/emulator-process.js';

// `vap emulator start --data-dir`: the old single-file state still opens; a journal record
// cut short by a crash is dropped with one line; a damaged snapshot stops the start with
// one line naming the file; the files are 0600 in a 0700 folder.

const root = mkdtempSync(join(tmpdir(), 'vap-data-dir-'));
const FIXTURE = new URL('../fixtures/emulator-state-v1.json', import.meta.url);
// What test/fixtures/emulator-state-v1.json holds (written by the emulator of the previous release).
const OLD = {
  agent: 'ag_56mx3zxjbdcudid0',
  list: 'cl_jjmhj9h7wyiqolno',
  job: 'job_wvuowq2tcwtl59ch',
  campaign: 'bc696ec5-efcd-4a85-b5cd-512a42164a28',
  suite: 'ev_24ugfwf54nd3aehs',
};

beforeAll(() => assertBuilt());
afterAll(() => rmSync(root, { recursive: true, force: true }));

function oneLine(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.trim() !== '');
}

describe('a state written in the old single-file format', () => {
  it('opens with everything in it, and is rewritten as a snapshot and a journal', async () => {
    const dir = join(root, 'legacy');
    mkdirSync(dir);
    copyFileSync(FIXTURE, join(dir, 'state.json'));
    const emu = await startEmulatorProcess(['--data-dir', dir, '--seed', '7', '--time-scale', '1000']);
    try {
      const agent = await emu.api('GET', `/api/v1/agents/${OLD.agent}`);
      expect(agent.status).toBe(200);
      expect(agent.body.data).toMatchObject({ name: 'Legacy Ava', description: 'old state', currentVersion: 3 });
      const versions = (await emu.api('GET', `/api/v1/agents/${OLD.agent}/versions`)).body.data;
      expect(versions.versions.map((v: any) => v.versionNumber)).toEqual([3, 2, 1]);
      expect(versions.versions[1].instructions).toContain('(v2)');
      // a change after the migration makes version 4 on top of the history
      expect((await emu.api('PATCH', `/api/v1/agents/${OLD.agent}`, { instructions: 'v4' })).body.data.currentVersion).toBe(4);
      expect((await emu.api('GET', `/api/v1/contact-lists/${OLD.list}`)).body.data.contactCount).toBe(20);
      const job = await emu.api('GET', `/api/v1/import-jobs/${OLD.job}`);
      expect(job.body).toMatchObject({ status: 'completed', progress: { total: 21, processed: 21, successful: 20, failed: 1 } });
      expect(job.body.errors).toHaveLength(1);
      const campaign = (await emu.api('GET', `/api/v1/campaigns/${OLD.campaign}`)).body.data;
      expect(campaign).toMatchObject({ name: 'Legacy campaign', totalContacts: 10 });
      const contacts = (await emu.api('GET', `/api/v1/campaigns/${OLD.campaign}/contacts`)).body.data;
      expect(contacts.contacts).toHaveLength(10);
      const runs = (await emu.api('GET', `/api/v1/campaigns/${OLD.campaign}/runs`)).body.data.runs;
      expect(runs.length).toBe(1);
      const calls = (await emu.api('GET', `/api/v1/campaigns/${OLD.campaign}/calls`)).body.data;
      expect(calls.pagination.total).toBe(10);
      const endpoints = (await emu.api('GET', '/api/v1/webhook-endpoints')).body.data.endpoints;
      expect(endpoints).toHaveLength(1);
      expect(endpoints[0].secretPrefix).toBe('whsec_');
      expect((await emu.api('GET', `/api/v1/agents/${OLD.agent}/evals/${OLD.suite}/scenarios`)).body.data.scenarios).toHaveLength(1);
      // a new id never repeats an old one
      const fresh = await emu.api('POST', '/api/v1/agents', { name: 'new', instructions: 'x', engine: 'realtime' });
      expect(fresh.body.data.id).not.toBe(OLD.agent);
    } finally {
      await emu.stop();
    }
    const files = readdirSync(dir).sort();
    expect(files).not.toContain('state.json');
    expect(files).toContain('state.snapshot.jsonl');
    // and it opens again from the new files
    const again = await startEmulatorProcess(['--data-dir', dir, '--seed', '7']);
    try {
      expect((await again.api('GET', `/api/v1/agents/${OLD.agent}`)).body.data.currentVersion).toBe(4);
    } finally {
      await again.stop();
    }
  });
});

describe('files of the data directory', () => {
  it('are 0600 in a 0700 folder (they hold webhook secrets and contacts)', async () => {
    const dir = join(root, 'modes', 'nested');
    const emu = await startEmulatorProcess(['--data-dir', dir]);
    try {
      await emu.api('POST', '/api/v1/webhook-endpoints', { name: 'h', url: 'https://93.184.216.34/h', events: ['call.ended'] });
    } finally {
      await emu.stop();
    }
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(dir)) expect(statSync(join(dir, f)).mode & 0o777, f).toBe(0o600);
  });
});

describe('a crash in the middle of a journal write', () => {
  it('drops the cut-short last record with one line at start, and keeps everything before it', async () => {
    const dir = join(root, 'torn');
    const emu = await startEmulatorProcess(['--data-dir', dir]);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await emu.api('POST', '/api/v1/agents', { name: `a${i}`, instructions: 'x', engine: 'realtime' })).body.data.id);
    await emu.kill();
    const journal = readdirSync(dir).find((f) => f.startsWith('state.journal.'))!;
    const size = statSync(join(dir, journal)).size;
    // The start of a record, as a crash mid-append leaves it.
    appendFileSync(join(dir, journal), '3f2a9c1b {"t":1795500000000,"ids":{"ag":9},"o":[["s","org_x/agents","ag_torn",{"id":"ag_to');
    const again = await startEmulatorProcess(['--data-dir', dir]);
    try {
      for (const id of ids) expect((await again.api('GET', `/api/v1/agents/${id}`)).status).toBe(200);
      expect((await again.api('GET', '/api/v1/agents')).body.meta.pagination.total).toBe(5);
      const lines = oneLine(again.stderr());
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(join(dir, journal));
      expect(lines[0]).toMatch(/dropped an incomplete last record/);
      // the file was cut back to its last whole record
      expect(statSync(join(dir, journal)).size).toBe(size);
    } finally {
      await again.stop();
    }
  });
});

describe('a damaged snapshot', () => {
  it('stops the start with one line naming the file (exit 1), never an empty state', async () => {
    const dir = join(root, 'damaged');
    const emu = await startEmulatorProcess(['--data-dir', dir, '--seed', '7'], { VAP_EMULATOR_COMPACT_BYTES: '2000' });
    for (let i = 0; i < 20; i++) await emu.api('POST', '/api/v1/agents', { name: `a${i}`, instructions: 'x'.repeat(200), engine: 'realtime' });
    await emu.stop();
    const snapshot = join(dir, 'state.snapshot.jsonl');
    const text = readFileSync(snapshot, 'utf8');
    // a record in the middle changed on disk
    writeFileSync(snapshot, text.replace('"name":"a3"', '"name":"b3"'));
    const bad = await failedStart(['--data-dir', dir, '--org', 'acme:k']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    const lines = oneLine(bad.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(snapshot);
    expect(lines[0]).toMatch(/damaged \(its checksum does not match/);
    // cut short
    writeFileSync(snapshot, text.slice(0, Math.floor(text.length / 2)));
    const cut = await failedStart(['--data-dir', dir, '--org', 'acme:k']);
    expect(cut.code).toBe(1);
    expect(oneLine(cut.stderr)).toHaveLength(1);
    expect(cut.stderr).toContain(snapshot);
  });
});
