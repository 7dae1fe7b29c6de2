import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let stateDir: string | undefined;

/** One temporary state directory per test process (import resume state), so tests never write to ~/.local/state. */
export function testStateDir(): string {
  return (stateDir ??= mkdtempSync(join(tmpdir(), 'vap-test-state-')));
}
