// An atomic write (a report, a project file) goes through `.<name>.<pid>-<random>.tmp`
// beside its target; a killed writer leaves that file. The next write of the same target
// removes such leftovers when their writer is gone and they are old enough, and never a
// live writer's, a fresh one, a link, or another target's.
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, lutimesSync, mkdtempSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeStaleTemps, STALE_TEMP_MS, tempOwner, tempPathFor, writeFileAtomic } from '../../src/write-atomic.js';

const dead = spawnSync(process.execPath, ['-e', '']).pid!;
const old = () => (Date.now() - 2 * STALE_TEMP_MS) / 1000;

function plant(path: string, age: 'old' | 'fresh' = 'old'): string {
  writeFileSync(path, '<testsuites><testsu');
  if (age === 'old') utimesSync(path, old(), old());
  return path;
}

describe('temporary names', () => {
  it('carry the writer’s pid, and are told from other names', () => {
    const name = basename(tempPathFor('/x/reports/evals.xml'));
    expect(name).toMatch(new RegExp(`^\\.evals\\.xml\\.${process.pid}-[0-9a-f]{12}[0-9a-z]+\\.tmp$`));
    expect(tempOwner(name)).toBe(process.pid);
    expect(tempOwner(name, 'evals.xml')).toBe(process.pid);
    expect(tempOwner(name, 'other.xml')).toBeUndefined();
    expect(tempOwner('.state.prod.json.0123456789ab3f.tmp')).toBeNull();
    for (const other of [
      '.notes.tmp',
      'evals.xml.12-0123456789ab0.tmp',
      '.evals.xml.12-0123456789ab0.tmp.bak',
      '.evals.xml.0-0123456789ab0.tmp',
      '.evals.xml.12-0123456789a.tmp',
      '.evals.xml.99999999999-0123456789ab0.tmp',
    ]) {
      expect(tempOwner(other), other).toBeUndefined();
    }
  });
});

describe('an atomic write', () => {
  it('removes its target’s temporary files a killed writer left, and keeps the rest', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-atomic-'));
    const target = join(dir, 'evals.xml');
    const leftover = plant(join(dir, `.evals.xml.${dead}-0123456789ab0.tmp`));
    const older = plant(join(dir, '.evals.xml.0123456789ab.tmp'));
    const fresh = plant(join(dir, `.evals.xml.${dead}-0123456789ab1.tmp`), 'fresh');
    const live = plant(join(dir, `.evals.xml.${process.pid}-0123456789ab2.tmp`));
    const otherTarget = plant(join(dir, `.evals.md.${dead}-0123456789ab3.tmp`));
    writeFileSync(join(dir, 'elsewhere.txt'), 'keep\n');
    const link = join(dir, `.evals.xml.${dead}-0123456789ab4.tmp`);
    symlinkSync(join(dir, 'elsewhere.txt'), link);
    lutimesSync(link, old(), old());

    await writeFileAtomic(target, '<testsuites/>\n');

    expect(readFileSync(target, 'utf8')).toBe('<testsuites/>\n');
    expect(existsSync(leftover)).toBe(false);
    expect(existsSync(older)).toBe(false);
    for (const kept of [fresh, live, otherTarget]) expect(existsSync(kept), kept).toBe(true);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'elsewhere.txt'), 'utf8')).toBe('keep\n');
  });

  it('removeStaleTemps without a target takes every stale leftover of the folder, and says which', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-atomic-'));
    plant(join(dir, `.agent.md.${dead}-0123456789ab0.tmp`));
    plant(join(dir, `.booking.yaml.${dead}-0123456789ab1.tmp`));
    plant(join(dir, `.booking.yaml.${dead}-0123456789ab2.tmp`), 'fresh');
    expect(removeStaleTemps(dir).sort()).toEqual([`.agent.md.${dead}-0123456789ab0.tmp`, `.booking.yaml.${dead}-0123456789ab1.tmp`]);
    expect(removeStaleTemps(join(dir, 'missing'))).toEqual([]);
  });
});
