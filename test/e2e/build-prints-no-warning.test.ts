import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/built.js';

// `npm run build` is `npm run typecheck && npm run bundle`: both steps, as npm runs them,
// print nothing but npm's own lines naming the script (`> vap@0.1.0 bundle`, `> node …`).
// The bundle is written to a folder of its own (`--out`), so dist/ is left to the other tests.

const out = mkdtempSync(join(tmpdir(), 'vap-build-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The lines a script printed that are not npm's banner (`> name@version script` and the command under it). */
function ownLines(output: string): string[] {
  return output.split('\n').filter((l) => l.trim() !== '' && !/^> /.test(l));
}

describe('npm run build', () => {
  it('prints no warning: the type check and the bundle print nothing of their own', { timeout: 240_000 }, async () => {
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? out };
    const typecheck = await execa('npm', ['run', 'typecheck'], { cwd: ROOT, env, extendEnv: false, reject: false, all: true });
    expect(typecheck.exitCode, String(typecheck.all)).toBe(0);
    expect(ownLines(String(typecheck.all))).toEqual([]);
    const bundle = await execa('npm', ['run', 'bundle', '--', '--out', join(out, 'dist')], { cwd: ROOT, env, extendEnv: false, reject: false, all: true });
    expect(bundle.exitCode, String(bundle.all)).toBe(0);
    expect(ownLines(String(bundle.all))).toEqual([]);
    for (const f of ['cli.js', 'contacts-worker.js', 'chunks/undici.js', 'verbs.json', 'THIRD_PARTY_NOTICES.txt'])
      expect(existsSync(join(out, 'dist', f)), f).toBe(true);
  });
});
