import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { assertBuilt, bundleInputs, ROOT } from '../helpers/built.js';

const HEAVY = /node_modules\/(undici|@inquirer|csv-parse|ora|fastify|stream-json|libphonenumber-js|cli-table3)\/|src\/emulator\/|src\/api\/client\.ts|src\/contacts\/(?!validate)/;
const TRACE = fileURLToPath(new URL('../helpers/trace-loads.mjs', import.meta.url));

/** Every source input bundled into the dist files a command loaded. */
async function loadedInputs(args: string[]): Promise<string[]> {
  const file = join(mkdtempSync(join(tmpdir(), 'vap-trace-')), 'loads.txt');
  await execa('node', ['--import', TRACE, join(ROOT, 'bin/vap.js'), ...args], { env: { VAP_TRACE_FILE: file, NO_COLOR: '1' }, reject: false });
  const urls = readFileSync(file, 'utf8').split('\n').filter((u) => u.startsWith('file:'));
  const dist = urls.map((u) => relative(ROOT, fileURLToPath(u))).filter((p) => p.startsWith('dist/'));
  const inputs = bundleInputs();
  const external = urls.map((u) => fileURLToPath(u)).filter((p) => p.includes('/node_modules/'));
  return [...dist.flatMap((d) => inputs.get(d) ?? []), ...external];
}

beforeAll(() => assertBuilt());

describe('start-up loads only what it needs', () => {
  it('vap --version loads no HTTP client, prompts, CSV parser, spinner or emulator', async () => {
    const loaded = await loadedInputs(['--version']);
    // bin/vap.js answers it from package.json: nothing of dist/ or node_modules is loaded.
    expect(loaded.filter((p) => HEAVY.test(p))).toEqual([]);
    expect(loaded.some((p) => p.includes('commander'))).toBe(false);
  });

  it('vap agents --help loads no HTTP client, prompts, CSV parser, spinner or emulator', async () => {
    const loaded = await loadedInputs(['agents', '--help']);
    expect(loaded.some((p) => p.includes('src/commands/agents/'))).toBe(true);
    expect(loaded.filter((p) => HEAVY.test(p))).toEqual([]);
  });

  it('vap contacts --help loads no CSV parser either', async () => {
    const loaded = await loadedInputs(['contacts', '--help']);
    expect(loaded.filter((p) => HEAVY.test(p))).toEqual([]);
  });
});
