// The journal of a push: each step's change to the state is appended (and made durable when
// it must be), the state file is written once at the end, and a killed push's journal is
// replayed when the state is read: nothing recorded is lost, a torn last line is dropped,
// damage is named, and a tampered journal meets the state's schema like the file does.
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProjectFs } from '../../src/ascode/paths.js';
import { emptyState, journalFile, loadState, saveState, stateFile, type Entry } from '../../src/ascode/state.js';
import { StateJournal } from '../../src/ascode/state-journal.js';

const entry = (id: string): Entry => ({ id, hash: '0123456789abcdef', fields: { name: '0123456789abcdef' }, version: 1 });

function project(agents = 0) {
  const root = mkdtempSync(join(tmpdir(), 'vap-journal-'));
  mkdirSync(join(root, '.vap'));
  const fs = new ProjectFs(root);
  const state = emptyState('staging');
  for (let i = 0; i < agents; i++) state.agents[`agent-${i}`] = entry(`ag_${i}`);
  return { root, fs, state };
}

describe('the state journal', () => {
  it("appends only each step's change: a push's writes cost its change, not the state", async () => {
    const { root, fs, state } = project(2000);
    await saveState(fs, state);
    const stateBytes = statSync(join(root, stateFile('staging'))).size;
    const j = new StateJournal(fs, state);
    for (let i = 0; i < 10; i++) {
      state.agents[`agent-${i}`] = { ...entry(`ag_${i}`), version: 2 };
      j.note(['agents', `agent-${i}`]);
      await j.durable();
    }
    const journalBytes = statSync(join(root, journalFile('staging'))).size;
    // Ten changed entries, each a line of its own: a few hundred bytes each, whatever the state holds.
    expect(journalBytes).toBeLessThan(10 * 400);
    expect(stateBytes).toBeGreaterThan(100 * journalBytes);
    // The state file was not rewritten; read back, the journal's changes are in.
    const back = await loadState(fs, 'staging');
    expect(back.agents['agent-3']!.version).toBe(2);
    expect(back.agents['agent-1999']!.version).toBe(1);
    await j.checkpoint();
    expect(existsSync(join(root, journalFile('staging')))).toBe(false);
    expect(JSON.parse(readFileSync(join(root, stateFile('staging')), 'utf8')).agents['agent-3'].version).toBe(2);
  });

  it('replays a killed push: removed entries and intents too, and a state file that never existed', async () => {
    const { fs, state } = project();
    const j = new StateJournal(fs, state);
    state.intents['agent:desk'] = { op: 'create', kind: 'agent', push: 'p1', at: '2026-11-27T00:00:00.000Z', name: 'Desk', target: {} };
    j.note(['intents', 'agent:desk']);
    await j.durable();
    state.agents.desk = entry('ag_desk');
    delete state.intents['agent:desk'];
    j.note(['agents', 'desk'], ['intents', 'agent:desk']);
    await j.durable();
    // No checkpoint: the process is gone. The next read sees everything the journal holds.
    const back = await loadState(fs, 'staging');
    expect(back.agents.desk!.id).toBe('ag_desk');
    expect(back.intents).toEqual({});
  });

  it('drops a torn last line (never acknowledged), and names a complete line that fails its checksum', async () => {
    const { root, fs, state } = project();
    const j = new StateJournal(fs, state);
    state.agents.desk = entry('ag_desk');
    j.note(['agents', 'desk']);
    await j.durable();
    const path = join(root, journalFile('staging'));
    appendFileSync(path, '0badc0de [["agents","half"');
    expect((await loadState(fs, 'staging')).agents.desk!.id).toBe('ag_desk');
    const text = readFileSync(path, 'utf8').split('\n')[0]!;
    writeFileSync(path, `${text.replace('ag_desk', 'ag_dexk')}\n`);
    await expect(loadState(fs, 'staging')).rejects.toThrow('.vap/state.staging.journal:1: a record fails its checksum');
  });

  it('cuts a torn last line off before the next push appends: its lines are never glued to the torn one', async () => {
    const { root, fs, state } = project();
    const first = new StateJournal(fs, state);
    state.agents.desk = entry('ag_desk');
    first.note(['agents', 'desk']);
    await first.durable();
    const path = join(root, journalFile('staging'));
    appendFileSync(path, '0badc0de [["agents","half"'); // killed in the middle of an append
    // The next push reads the state (the torn line dropped) and journals its own change.
    const next = await loadState(fs, 'staging');
    const second = new StateJournal(fs, next);
    next.agents.lobby = entry('ag_lobby');
    second.note(['agents', 'lobby']);
    await second.durable();
    expect(readFileSync(path, 'utf8')).not.toContain('half');
    const back = await loadState(fs, 'staging');
    expect(Object.keys(back.agents).sort()).toEqual(['desk', 'lobby']);
  });

  it("is dirty while a killed push's journal is on disk, so that the push that ends folds it into the state file", async () => {
    const { root, fs, state } = project();
    await saveState(fs, state);
    const killed = new StateJournal(fs, state);
    state.agents.desk = entry('ag_desk');
    killed.note(['agents', 'desk']);
    await killed.durable();
    const next = new StateJournal(fs, await loadState(fs, 'staging'));
    expect(next.dirty).toBe(true);
    await next.checkpoint();
    expect(existsSync(join(root, journalFile('staging')))).toBe(false);
    expect(JSON.parse(readFileSync(join(root, stateFile('staging')), 'utf8')).agents.desk.id).toBe('ag_desk');
    expect(new StateJournal(fs, await loadState(fs, 'staging')).dirty).toBe(false);
  });

  it('meets the schema: a journal line naming an unsafe slug is refused like the state file', async () => {
    const { root, fs, state } = project();
    const j = new StateJournal(fs, state);
    state.agents['../../escape'] = entry('ag_x');
    j.note(['agents', '../../escape']);
    await j.durable();
    expect(existsSync(join(root, journalFile('staging')))).toBe(true);
    await expect(loadState(fs, 'staging')).rejects.toThrow(/agents\["\.\.\/\.\.\/escape"\]: not a safe slug/);
  });
});

describe("the state's hand check of its bulk", () => {
  it('accepts only what the schema accepts, over random entries', async () => {
    const fc = (await import('fast-check')).default;
    const [{ bulkConforms }, { STATE_SCHEMA }] = await Promise.all([import('../../src/ascode/state-fast.js'), import('../../src/ascode/state.js')]);
    const hash = fc.constantFrom('0123456789abcdef', 'abcdef0123456789', '', '0123', 'ABCDEF0123456789', 7, null);
    const key = fc.constantFrom('desk', 'front-desk', 'a/b', '..', 'con', '', 'x'.repeat(101), '__proto__', 'desk/evals', 'a/b/c', '.x', 'ok.');
    const entry = fc.record(
      {
        id: fc.constantFrom('ag_1', '../x', '', 'a/b', 'x'.repeat(201), 3),
        hash,
        fields: fc.oneof(fc.dictionary(fc.constantFrom('name', 'x'.repeat(41)), hash), fc.constant(null), fc.constant([])),
        version: fc.oneof(fc.constant(1), fc.constant(-1), fc.constant(1.5), fc.constant('1')),
        file: hash,
        extra: fc.constant(1),
      },
      { requiredKeys: ['id', 'hash', 'fields'] },
    );
    let accepted = 0;
    fc.assert(
      fc.property(fc.dictionary(key, entry, { maxKeys: 3 }), fc.dictionary(key, entry, { maxKeys: 3 }), (agents, suites) => {
        const raw = { format: 1, profile: 'staging', agents, suites, webhooks: {} };
        if (bulkConforms(raw as never)) {
          accepted++;
          expect(STATE_SCHEMA.safeParse(raw).success).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
    // Not vacuous: some states conform (the empty ones among them, and others).
    expect(accepted).toBeGreaterThan(100);
  });
});
