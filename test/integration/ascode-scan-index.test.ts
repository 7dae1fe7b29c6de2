// The index of the last scan (src/ascode/scan-index.ts): a file whose lstat still gives the
// key it had when it was read, and whose digest is the one the state recorded at the last
// sync, is not read again. Whatever changes a file's content changes its key (an edit that
// keeps the size and puts the modification time back still moves the change time), a
// folder's new or removed suite file is listed, a link put in a file's place is refused, a
// damaged or foreign index is no index, and a file changed too recently is not recorded.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProjectFs } from '../../src/ascode/paths.js';
import { fileDigest, FORMAT_VERSION, scanProject, type Scan, type ScannedFile } from '../../src/ascode/scan.js';
import { INDEX_FILE, RACY_MS, ScanIndex } from '../../src/ascode/scan-index.js';
import type { Kind } from '../../src/ascode/model.js';

const agent = (name: string) => `---\nname: ${name}\nengine: realtime\nvoice:\n  name: Ava\n  language: en-US\n---\nYou answer the phone.\n`;
const suite = (name: string) => `name: ${name}\niterations: 1\nstatus: ready\ngate: true\ncriteria:\n  - key: tone\n    name: Tone\n    weight: 1\n`;

function project(n: number): string {
  const root = mkdtempSync(join(tmpdir(), 'vap-index-'));
  writeFileSync(join(root, 'vap.yaml'), 'version: 1\n');
  mkdirSync(join(root, '.vap'));
  for (let i = 0; i < n; i++) {
    mkdirSync(join(root, 'agents', `agent-${i}`, 'evals'), { recursive: true });
    writeFileSync(join(root, 'agents', `agent-${i}`, 'agent.md'), agent(`Agent ${i}`));
    writeFileSync(join(root, 'agents', `agent-${i}`, 'evals', 'smoke.yaml'), suite('Smoke'));
  }
  writeFileSync(join(root, 'agents', 'agent-0', 'agent.md'), `\ufeff${agent('With a BOM')}`.replace(/\n/g, '\r\n'));
  return root;
}

/** As if every file had been still for long enough (a scan RACY_MS and more later). */
const later = () => Date.now() + RACY_MS + 60_000;

/** A state that recorded every file as it is now (what a sync leaves), as readFiles looks it up. */
function syncedAll(scan: Scan): (kind: Kind, key: string) => string | undefined {
  const digests = new Map(scan.files.flatMap((f) => ('digest' in f ? [[`${f.kind}:${f.kind === 'suite' ? `${f.agentSlug}/${f.slug}` : f.slug}`, f.digest] as const] : [])));
  return (kind, key) => digests.get(`${kind}:${key}`);
}

async function scanWithIndex(root: string, synced: (kind: Kind, key: string) => string | undefined, now = later()): Promise<Scan> {
  const fs = new ProjectFs(root);
  const index = ScanIndex.load(fs, FORMAT_VERSION, now);
  const scan = await scanProject(fs.root, {}, { index, synced });
  index.save(fs);
  return scan;
}

const byFile = (scan: Scan) => new Map(scan.files.map((f) => [f.file, f] as const));
const indexed = (f: ScannedFile | undefined) => Boolean(f && 'indexed' in f && f.indexed);

describe('the scan index', () => {
  it('reads again only what changed since the last scan, with the same texts, digests and forms as a full scan', async () => {
    const root = project(6);
    const full = await scanProject(root, {});
    const synced = syncedAll(full);
    const first = await scanWithIndex(root, synced);
    expect(first.files.some(indexed)).toBe(false);
    expect(readFileSync(join(root, '.vap', 'cache', '.gitignore'), 'utf8')).toMatch(/^\*$/m);

    const second = await scanWithIndex(root, synced);
    expect(second.files.every(indexed)).toBe(true);
    const f = byFile(full);
    for (const s of second.files) {
      const want = f.get(s.file)!;
      expect({ file: s.file, digest: 'digest' in s && s.digest, form: 'form' in s && s.form, text: 'text' in s && s.text }).toEqual({ file: want.file, digest: 'digest' in want && want.digest, form: 'form' in want && want.form, text: 'text' in want && want.text });
    }
    expect(byFile(second).get('agents/agent-0/agent.md')).toMatchObject({ form: { bom: true, crlf: true } });
  });

  it('reads a file whose digest is not the one the state recorded (an edit not pushed yet)', async () => {
    const root = project(3);
    const synced = syncedAll(await scanProject(root, {}));
    await scanWithIndex(root, synced);
    const notSynced = (kind: Kind, key: string) => (kind === 'agent' && key === 'agent-1' ? 'ffffffffffffffff' : synced(kind, key));
    const again = byFile(await scanWithIndex(root, notSynced));
    expect(indexed(again.get('agents/agent-1/agent.md'))).toBe(false);
    expect(indexed(again.get('agents/agent-2/agent.md'))).toBe(true);
  });

  it('sees an edit that keeps the size and puts the modification time back', async () => {
    const root = project(3);
    const file = join(root, 'agents', 'agent-1', 'agent.md');
    // A whole second, which utimes puts back exactly.
    const then = 1_700_000_000;
    utimesSync(file, then, then);
    const synced = syncedAll(await scanProject(root, {}));
    await scanWithIndex(root, synced);
    const edited = agent('Agent 1').replace('You answer', 'You ANSWER');
    writeFileSync(file, edited);
    utimesSync(file, then, then);
    expect(statSync(file).mtimeMs).toBe(then * 1000);
    const got = byFile(await scanWithIndex(root, synced)).get('agents/agent-1/agent.md');
    expect(indexed(got)).toBe(false);
    expect(got).toMatchObject({ text: edited, digest: fileDigest('agent', edited, {}) });
  });

  it('lists an indexed evals/ folder again when a suite file is added or removed, and refuses a link put in a file’s place', async () => {
    const root = project(3);
    const synced = syncedAll(await scanProject(root, {}));
    await scanWithIndex(root, synced);
    const evals = join(root, 'agents', 'agent-1', 'evals');
    writeFileSync(join(evals, 'extra.yaml'), suite('Extra'));
    rmSync(join(root, 'agents', 'agent-2', 'evals', 'smoke.yaml'));
    const outside = mkdtempSync(join(tmpdir(), 'vap-index-outside-'));
    writeFileSync(join(outside, 'agent.md'), agent('Outside'));
    rmSync(join(root, 'agents', 'agent-0', 'agent.md'));
    symlinkSync(join(outside, 'agent.md'), join(root, 'agents', 'agent-0', 'agent.md'));
    const again = await scanWithIndex(root, synced);
    const files = byFile(again);
    expect(files.get('agents/agent-1/evals/extra.yaml')).toMatchObject({ kind: 'suite', slug: 'extra', agentSlug: 'agent-1', text: suite('Extra') });
    expect(files.has('agents/agent-2/evals/smoke.yaml')).toBe(false);
    expect(files.get('agents/agent-0/agent.md')).toMatchObject({ problem: expect.stringMatching(/symbolic link/) });
    expect(indexed(files.get('agents/agent-1/agent.md'))).toBe(true);
  });

  it('does not record a file changed within RACY_MS of the scan', async () => {
    const root = project(2);
    const synced = syncedAll(await scanProject(root, {}));
    await scanWithIndex(root, synced, Date.now());
    const again = await scanWithIndex(root, synced, Date.now());
    expect(again.files.some(indexed)).toBe(false);
  });

  it('takes a damaged or foreign index for none, and never reads a name it holds that is not a suite file', async () => {
    const root = project(3);
    const synced = syncedAll(await scanProject(root, {}));
    await scanWithIndex(root, synced);
    const good = JSON.parse(readFileSync(join(root, INDEX_FILE), 'utf8'));
    const evalsKey = 'agents/agent-1/evals';
    for (const bad of [
      'not json',
      JSON.stringify({ ...good, format: 99 }),
      JSON.stringify({ ...good, digests: FORMAT_VERSION + 1 }),
      JSON.stringify({ ...good, files: [] }),
      JSON.stringify({ ...good, files: Object.fromEntries(Object.entries(good.files).map(([k, v]) => [k, [...(v as unknown[]).slice(0, 5), 'not a digest', 0]])) }),
      JSON.stringify({ ...good, files: Object.fromEntries(Object.entries(good.files).map(([k, v]) => [k, ['1', ...(v as unknown[]).slice(1)]])) }),
      JSON.stringify({ ...good, dirs: { ...good.dirs, [evalsKey]: [...good.dirs[evalsKey].slice(0, 5), ['../../../../etc/passwd.yaml', 'smoke.yaml']] } }),
    ]) {
      writeFileSync(join(root, INDEX_FILE), bad);
      const files = byFile(await scanWithIndex(root, synced));
      expect([...files.keys()].sort()).toEqual(['agents/agent-0/agent.md', 'agents/agent-0/evals/smoke.yaml', 'agents/agent-1/agent.md', 'agents/agent-1/evals/smoke.yaml', 'agents/agent-2/agent.md', 'agents/agent-2/evals/smoke.yaml']);
      for (const f of files.values()) expect('digest' in f && f.digest).toBe(synced(f.kind, f.kind === 'suite' ? `${f.agentSlug}/${f.slug}` : f.slug));
    }
  });

  it('says so when an indexed file changed after the scan and before its text was needed', async () => {
    const root = project(2);
    const synced = syncedAll(await scanProject(root, {}));
    await scanWithIndex(root, synced);
    const f = byFile(await scanWithIndex(root, synced)).get('agents/agent-1/agent.md')!;
    expect(indexed(f)).toBe(true);
    writeFileSync(join(root, 'agents', 'agent-1', 'agent.md'), agent('Changed meanwhile'));
    expect(() => 'text' in f && f.text).toThrow(/agents\/agent-1\/agent\.md changed while vap was reading the project/);
  });

  it('writes nothing in a project without a .vap folder', async () => {
    const root = project(2);
    rmSync(join(root, '.vap'), { recursive: true });
    await scanWithIndex(root, syncedAll(await scanProject(root, {})));
    expect(() => statSync(join(root, '.vap'))).toThrow(/ENOENT/);
  });
});
