// Issue 10 (built binary): one cause, one line (point 4).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, vap } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
let env: Record<string, string>;
let dir: string;

async function createList(fields: unknown[]): Promise<string> {
  return (await emu.api<{ data: { id: string } }>('POST', '/api/v1/contact-lists', { name: 'i10', schema: { fields } })).body.data.id;
}

beforeAll(async () => {
  assertBuilt();
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), 'vap-e2e-i10-'));
  env = { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, VAP_CONFIG_DIR: join(dir, 'config'), VAP_STATE_DIR: join(dir, 'state') };
});
afterAll(async () => {
  await emu.close();
});

describe('one cause, one line (built binary)', () => {
  it('every phone without a country code: the cause once, the fix (--default-country), a few examples, the count', async () => {
    const listId = await createList([
      { name: 'name', type: 'string', required: true },
      { name: 'phone', type: 'phone', required: true },
    ]);
    const file = join(dir, 'national.csv');
    const n = 5000;
    let csv = 'name,Mobile\n';
    for (let i = 0; i < n; i++) csv += `Person ${i},(415) 555-${String(i % 10000).padStart(4, '0')}\n`;
    writeFileSync(file, csv);
    const r = await vap(['contacts', 'import', listId, file, '--map', 'Mobile=phone'], { env });
    expect(r.exitCode).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toBe(
      '5,000 of 5,000 rejected rows (100%) fail the same way: field phone: "…" is not in E.164 form (+14155550100); pass --default-country to convert national numbers',
    );
    expect(lines[1]).toMatch(/^likely fix: column "Mobile" holds national numbers without a country code: pass --default-country/);
    expect(lines.filter((l) => l.startsWith('row '))).toHaveLength(3);
    expect(lines.at(-1)).toBe(`… and 4,997 more, see ${join(dir, 'national.errors.csv')}`);
    expect(r.stdout).toMatch(/rejected locally\s+5,000/);

    // And the fix it names works.
    const fixed = await vap(['contacts', 'import', listId, file, '--map', 'Mobile=phone', '--default-country', 'US', '--force'], { env });
    expect(fixed.stderr).toBe('');
    expect(fixed.exitCode).toBe(0);
    expect(fixed.stdout).toMatch(/imported\s+5,000/);
  });
});
