// A push interrupted after it had changed an agent on the platform, before it could record
// it, leaves an intent that tells the next push the platform already has those fields. When
// that next push announces an intent of its own for the agent (the files changed again) and
// then stops before its change reaches the platform (killed, or the change refused), what
// the first intent knew must not be lost with it: the push after that applies the files,
// instead of calling the agent changed on both sides. In-process against a real emulator.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stateFile } from '../../src/ascode/state.js';
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

const agentMd = (text: string) => `---\nname: Twice interrupted\nengine: realtime\nvoice: { name: Marcus, language: en-US }\n---\n${text}\n`;

describe('a push after two interrupted pushes of the same agent', () => {
  it('applies the files: what the first interrupted push had changed on the platform stays known', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vap-interrupted-'));
    writeFileSync(join(dir, 'vap.yaml'), 'version: 1\nprofiles:\n  staging: {}\n');
    mkdirSync(join(dir, 'agents', 'desk'), { recursive: true });
    const md = join(dir, 'agents', 'desk', 'agent.md');
    const statePath = join(dir, stateFile('staging'));
    writeFileSync(md, agentMd('You are the desk.'));
    expect((await vap(dir, ['push', '--yes'])).code).toBe(0);
    const synced = JSON.parse(readFileSync(statePath, 'utf8'));

    // The first interrupted push: its update reached the platform, its record did not (the
    // state is the one before it, with the intent it had written).
    writeFileSync(md, agentMd('You are the desk. Round one.'));
    expect((await vap(dir, ['push', '--yes'])).code).toBe(0);
    const after = JSON.parse(readFileSync(statePath, 'utf8'));
    const id = after.agents.desk.id as string;
    const interrupted = {
      ...synced,
      intents: {
        'agent:desk': {
          kind: 'agent',
          op: 'update',
          name: 'Twice interrupted',
          id,
          target: after.agents.desk.fields,
          push: '20261202T000000Z-dead',
          at: new Date().toISOString(),
        },
      },
    };
    writeFileSync(statePath, JSON.stringify(interrupted));

    // The second: the files changed again; it announces its intent, and its update is refused.
    writeFileSync(md, agentMd('You are the desk. Round two.'));
    await emu.fault({ method: 'PATCH', path: `/api/v1/agents/${id}`, status: 422, count: 1 });
    try {
      const second = await vap(dir, ['push', '--yes']);
      expect(second.code, second.stderr).toBe(1);
    } finally {
      await emu.control('DELETE', '/faults');
    }

    const last = await vap(dir, ['push', '--yes']);
    expect(last.code, last.stderr).toBe(0);
    expect(last.stderr).not.toMatch(/changed in the files and on the platform/);
    const agent = (await emu.api('GET', `/api/v1/agents/${id}`)).body.data;
    expect(agent.instructions).toBe('You are the desk. Round two.');
    expect(JSON.parse(readFileSync(statePath, 'utf8')).intents).toEqual({});
    expect((await vap(dir, ['diff', '--exit-code'])).code).toBe(0);
  });
});
