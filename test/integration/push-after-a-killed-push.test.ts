// A push killed after it had announced intents ahead of resources it never reached, then a
// push that ends: the resources the killed push never touched are left as they are, their
// intents are dropped, and the killed push's journal is folded into the one state file that
// gets committed (no journal left beside it). In-process against a real emulator.
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectFs } from '../../src/ascode/paths.js';
import { intentKey, journalFile, loadState, stateFile } from '../../src/ascode/state.js';
import { StateJournal } from '../../src/ascode/state-journal.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ timeScale: 2000 });
});
afterAll(async () => {
  await emu?.close();
});

function vap(dir: string, args: string[]) {
  return runCli(['--profile', 'staging', ...args, '--dir', dir], { env: cliEnv(emu.url, ORG_A.apiKey) });
}

function writeProject(dir: string): void {
  writeFileSync(join(dir, 'vap.yaml'), 'version: 1\nprofiles:\n  staging: {}\n');
  for (const a of ['desk', 'lobby']) {
    mkdirSync(join(dir, 'agents', a, 'evals'), { recursive: true });
    writeFileSync(
      join(dir, 'agents', a, 'agent.md'),
      `---\nname: Announced ${a}\nengine: realtime\nvoice: { name: Marcus, language: en-US }\n---\nYou are the ${a}.\n`,
    );
    writeFileSync(
      join(dir, 'agents', a, 'evals', 'smoke.yaml'),
      `name: Smoke ${a}\nstatus: draft\niterations: 1\ncriteria:\n  - { key: tone, name: Tone, weight: 1 }\nscenarios:\n  - { name: Hello, category: happy_path, persona: "Ana, polite", goal: Get a greeting }\n`,
    );
  }
}

/** What a push killed right after announcing its next items writes: their intents, in the journal only. */
async function killedAfterAnnouncing(dir: string, keys: Array<['agent' | 'suite', string]>): Promise<void> {
  const fs = new ProjectFs(dir);
  const state = await loadState(fs, 'staging');
  const journal = new StateJournal(fs, state);
  for (const [kind, key] of keys) {
    const e = (kind === 'agent' ? state.agents : state.suites)[key]!;
    state.intents[intentKey(kind, key)] = {
      kind,
      op: 'update',
      name: key,
      id: e.id,
      target: e.fields,
      push: '20261127T000000Z-dead',
      at: new Date().toISOString(),
    };
    journal.note(['intents', intentKey(kind, key)]);
  }
  await journal.durable();
  // SIGKILL: no checkpoint, and the next append was cut short.
  appendFileSync(join(dir, journalFile('staging')), '0badc0de [["intents","agent:');
}

describe('a push after a push killed ahead of the resources it announced', () => {
  it('drops the intents of what was never touched, and leaves one state file and no journal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-announced-'));
    writeProject(dir);
    const first = await vap(dir, ['push', '--yes']);
    expect(first.code, first.stderr).toBe(0);
    const before = JSON.parse(readFileSync(join(dir, stateFile('staging')), 'utf8'));

    await killedAfterAnnouncing(dir, [
      ['agent', 'desk'],
      ['suite', 'desk/smoke'],
      ['suite', 'lobby/smoke'],
    ]);
    expect((await loadState(new ProjectFs(dir), 'staging')).intents).not.toEqual({});

    const r = await vap(dir, ['push', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Nothing to push');
    expect(existsSync(join(dir, journalFile('staging')))).toBe(false);
    const after = JSON.parse(readFileSync(join(dir, stateFile('staging')), 'utf8'));
    expect(after.intents).toEqual({});
    expect(after.agents).toEqual(before.agents);
    expect(after.suites).toEqual(before.suites);
    expect((await vap(dir, ['diff', '--exit-code'])).code).toBe(0);
  });

  it('folds what the killed push had recorded into the state file, though nothing is left to push', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-announced-'));
    writeProject(dir);
    const first = await vap(dir, ['push', '--yes']);
    expect(first.code, first.stderr).toBe(0);
    // The killed push had applied an edit and recorded it in its journal only.
    writeFileSync(
      join(dir, 'agents', 'lobby', 'agent.md'),
      readFileSync(join(dir, 'agents', 'lobby', 'agent.md'), 'utf8').replace('You are the lobby.', 'You are the lobby. Be brief.'),
    );
    const edited = await vap(dir, ['push', '--yes']);
    expect(edited.code, edited.stderr).toBe(0);
    const recorded = readFileSync(join(dir, stateFile('staging')), 'utf8');
    const fs = new ProjectFs(dir);
    const old = JSON.parse(recorded);
    old.agents.lobby.version -= 1;
    writeFileSync(join(dir, stateFile('staging')), JSON.stringify(old));
    const state = await loadState(fs, 'staging');
    state.agents.lobby = JSON.parse(recorded).agents.lobby;
    const journal = new StateJournal(fs, state);
    journal.note(['agents', 'lobby']);
    await journal.durable();

    const r = await vap(dir, ['push', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(dir, journalFile('staging')))).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, stateFile('staging')), 'utf8')).agents.lobby).toEqual(JSON.parse(recorded).agents.lobby);
  });
});
