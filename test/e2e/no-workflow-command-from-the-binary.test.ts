import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, vap } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { commandLines, unescapeCommands } from '../helpers/runner-commands.js';

// The built binary under GITHUB_ACTIONS=true, its stdout a pipe as the runner's is: what vap
// writes straight to the descriptor (a listing's blocks) and through the streams passes the
// workflow-command filter, so names that look like commands are not read as commands.

let emu: TestEmulator;
const NAMES = ['::add-mask::s3cret', '::warning ::Deploy failed', '::stop-commands::t0k3n', 'Front ##[error]desk'];

beforeAll(async () => {
  assertBuilt();
  emu = await startTestEmulator();
  for (const name of NAMES) expect((await emu.api('POST', '/api/v1/agents', { name, engine: 'realtime', instructions: 'Greet callers.' })).status).toBe(201);
});
afterAll(async () => {
  await emu?.close();
});

const env = (extra: Record<string, string> = {}) => ({ VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, ...extra });

describe('the built vap under GitHub Actions', () => {
  it('a listing of names, one per line, and the same in JSON: no line reads as a command', async () => {
    const args = ['agents', 'list', '--all', '--query', '[].name', '-o', 'tsv'];
    const actions = await vap(args, { env: env({ GITHUB_ACTIONS: 'true' }) });
    expect(actions.exitCode, actions.stderr).toBe(0);
    expect(commandLines(actions.stdout)).toEqual([]);
    expect(commandLines(actions.stderr)).toEqual([]);
    expect(actions.stdout).toContain(':\\u003aadd-mask::s3cret\n');
    const plain = await vap(args, { env: env() });
    expect(commandLines(plain.stdout)).toHaveLength(NAMES.length);
    expect(unescapeCommands(actions.stdout)).toBe(plain.stdout);

    const json = await vap(['agents', 'list', '--all', '--json'], { env: env({ GITHUB_ACTIONS: 'true' }) });
    expect(commandLines(json.stdout)).toEqual([]);
    expect((JSON.parse(json.stdout) as Array<{ name: string }>).map((a) => a.name).sort()).toEqual([...NAMES].sort());
  });
});
