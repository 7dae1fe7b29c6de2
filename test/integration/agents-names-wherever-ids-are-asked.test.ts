import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

// Names wherever ids are asked: a voice by id or by name (with --language where several
// voices share a name), a tool by id or by name where names are known (the tools of agents
// the key can read; the API has no tool listing), `agents create --voice --tool`, `agents
// get` with the tools, and `agents rollback` saying what it changes before it changes it.

let emu: TestEmulator;
let tools: Array<{ id: string; name: string }>;
let voices: Array<{ id: string; name: string; language: string }>;

beforeAll(async () => {
  emu = await startTestEmulator();
  tools = (await emu.control<{ orgs: Array<{ tools: Array<{ id: string; name: string }> }> }>('GET', `/tools?org=${ORG_A.name}`)).orgs[0]!.tools.map(
    ({ id, name }) => ({ id, name }),
  );
  voices = (await emu.api('GET', '/api/v1/voices')).body.data.voices;
});
afterAll(async () => {
  await emu.close();
});
beforeEach(async () => {
  await emu.clearRequests();
});

const vap = (argv: string[], opts: RunOptions = {}) => runCli(argv, { ...opts, env: { ...cliEnv(emu.url, ORG_A.apiKey), ...opts.env } });
const tool = (name: string) => tools.find((t) => t.name === name)!;
const voice = (name: string, language: string) => voices.find((v) => v.name === name && v.language === language)!;
const sent = async () => (await emu.requests()).map((r) => `${r.method} ${r.path}`);
const changes = async () => (await sent()).filter((r) => !r.startsWith('GET '));

async function agent(name = 'Named', extra: string[] = []): Promise<string> {
  const r = await vap(['agents', 'create', '--name', name, '--engine', 'realtime', '--instructions', 'Greet callers.', '-q', ...extra]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

describe('agents voice --set: by id or by name', () => {
  it('takes a name as `vap voices list` shows it, ignoring case and accents', async () => {
    const id = await agent();
    const lucia = voice('Lucía', 'es-ES');
    for (const name of ['Lucía', 'lucía', 'LUCIA', 'lucia']) {
      await vap(['agents', 'voice', id, '--set', 'Ava']);
      const r = await vap(['agents', 'voice', id, '--set', name, '--json']);
      expect(r.code, `${name}: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ voiceId: lucia.id, name: 'Lucía', language: 'es-ES' });
    }
    // An id still works, and a bare language code with a name.
    expect(JSON.parse((await vap(['agents', 'voice', id, '--set', voice('Mateo', 'es-MX').id, '--json'])).stdout).name).toBe('Mateo');
    expect(JSON.parse((await vap(['agents', 'voice', id, '--set', 'Lucía', '--language', 'es', '--json'])).stdout).language).toBe('es-ES');
  });

  it('several voices share a name: refused without --language, listing them; --language picks one', async () => {
    const id = await agent();
    const both = voices.filter((v) => v.name === 'Sofía');
    expect(both.map((v) => v.language).sort()).toEqual(['en-US', 'es-US']);
    await emu.clearRequests();
    const r = await vap(['agents', 'voice', id, '--set', 'Sofía']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: 2 voices are named Sofía: (es-US|en-US) \(voice_\w+\), (es-US|en-US) \(voice_\w+\); pass --language (es-US|en-US) or (es-US|en-US), or the voice's id\n$/,
    );
    expect(await changes()).toEqual([]);

    const en = await vap(['agents', 'voice', id, '--set', 'sofia', '--language', 'en-us', '--json']);
    expect(en.code, en.stderr).toBe(0);
    expect(JSON.parse(en.stdout)).toEqual({ voiceId: voice('Sofía', 'en-US').id, name: 'Sofía', language: 'en-US' });
    const es = await vap(['agents', 'voice', id, '--set', 'Sofía', '--language', 'es', '--json']);
    expect(JSON.parse(es.stdout)).toEqual({ voiceId: voice('Sofía', 'es-US').id, name: 'Sofía', language: 'es-US' });

    const none = await vap(['agents', 'voice', id, '--set', 'Sofía', '--language', 'fr-FR']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/none of the voices named Sofía speaks fr-FR/);
  });

  it('an unknown voice is refused before anything changes, with the nearest names', async () => {
    const id = await agent();
    await emu.clearRequests();
    const r = await vap(['agents', 'voice', id, '--set', 'Lucya']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: --set "Lucya" is neither the id nor the name of a voice; did you mean Lucía? see `vap voices list`\n');
    const byId = await vap(['agents', 'voice', id, '--set', 'voice_nope']);
    expect(byId.code).toBe(2);
    expect(byId.stderr).toMatch(/--set "voice_nope" is neither the id nor the name of a voice/);
    expect(await changes()).toEqual([]);
  });
});

describe('agents tools --set: by id or by name', () => {
  it("finds names among the agent's own tools without reading other agents", async () => {
    const id = await agent();
    expect((await vap(['agents', 'tools', id, '--set', `${tool('Calendar booking').id},${tool('CRM lookup').id}`])).code).toBe(0);
    await emu.clearRequests();
    const r = await vap(['agents', 'tools', id, '--set', 'crm lookup', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([tool('CRM lookup')]);
    expect(await sent()).toEqual([`GET /api/v1/agents/${id}/tools`, `PUT /api/v1/agents/${id}/tools`]);
  });

  it("finds names among other agents' tools (the API has no tool listing), mixed with ids", async () => {
    const donor = await agent('Donor');
    await vap(['agents', 'tools', donor, '--set', `${tool('Send SMS').id},${tool('Transfer to human').id}`]);
    const id = await agent('Receiver');
    await emu.clearRequests();
    const r = await vap(['agents', 'tools', id, '--set', `Send SMS,${tool('End call').id},Transfer to human`, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).map((t: { name: string }) => t.name)).toEqual(['Send SMS', 'End call', 'Transfer to human']);
    // One page of the organization's agents was read, then their tools.
    expect((await sent()).filter((s) => s === 'GET /api/v1/agents')).toHaveLength(1);
  });

  it('a name no readable agent has is refused before anything changes, saying where names come from', async () => {
    const id = await agent();
    await emu.clearRequests();
    const r = await vap(['agents', 'tools', id, '--set', 'Knowledge base search']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: --set: no tool named "Knowledge base search" among the tools of the agents this key can read \(the API has no tool listing\); /,
    );
    expect(await changes()).toEqual([]);
    // By id it works (the server knows its tools).
    const byId = await vap(['agents', 'tools', id, '--set', tool('Knowledge base search').id, '-q']);
    expect(byId.stdout).toBe(`${tool('Knowledge base search').id}\n`);
  });

  it('says in its help how tool names are found', async () => {
    const r = await vap(['agents', 'tools', '--help']);
    expect(r.stdout).toContain('The API has no tool listing, so a name is found');
    expect(r.stdout).toContain('the first 200 agents of the organization');
  });
});

describe('agents create --voice --tool, and agents get shows the tools', () => {
  it('creates an agent with its voice and tools, by name, in one command', async () => {
    const donor = await agent('Tool donor');
    await vap(['agents', 'tools', donor, '--set', `${tool('Calendar booking').id},${tool('Transfer to human').id}`]);
    const r = await vap([
      'agents',
      'create',
      '--name',
      'Recepción',
      '--engine',
      'realtime',
      '--instructions',
      'Saluda.',
      '--voice',
      'Lucía',
      '--tool',
      'Calendar booking',
      '--tool',
      tool('Transfer to human').id,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const created = JSON.parse(r.stdout);
    expect(created).toMatchObject({ name: 'Recepción', currentVersion: 3, voice: { name: 'Lucía', language: 'es-ES' } });
    expect(created.tools.map((t: { name: string }) => t.name)).toEqual(['Calendar booking', 'Transfer to human']);
    expect(r.stderr).toContain(`Created agent Recepción (${created.id}) at version 3, with voice Lucía (es-ES) and 2 tools`);

    const got = await vap(['agents', 'get', created.id], { tty: true });
    expect(got.stdout).toMatch(/^voice +Lucía \(es-ES\)$/m);
    expect(got.stdout).toMatch(/^tools +Calendar booking, Transfer to human$/m);
    const json = JSON.parse((await vap(['agents', 'get', created.id, '--json'])).stdout);
    expect(json.tools).toEqual([tool('Calendar booking'), tool('Transfer to human')]);
    const piped = await vap(['agents', 'get', created.id]);
    expect(piped.stdout).toContain('tools\tCalendar booking,Transfer to human\n');
  });

  it('an unknown voice or tool name, or a voice for speech-to-speech, creates nothing', async () => {
    await emu.clearRequests();
    for (const [extra, err] of [
      [['--voice', 'Nobody'], /--voice "Nobody" is neither the id nor the name of a voice/],
      [['--voice', 'Sofía'], /2 voices are named Sofía/],
      [['--tool', 'No such tool'], /--tool: no tool named "No such tool"/],
      [['--voice', 'Ava', '--engine', 'speech-to-speech'], /--voice does not go with --engine speech-to-speech/],
      [['--language', 'es-ES'], /--language only goes with --voice/],
    ] as const) {
      const argv = [
        'agents',
        'create',
        '--name',
        'Never',
        '--instructions',
        'x',
        ...((extra as readonly string[]).includes('--engine') ? [] : ['--engine', 'realtime']),
        ...extra,
      ];
      const r = await vap(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(err);
    }
    expect(await changes()).toEqual([]);
  });

  it('a tool the server refuses after the agent is made names the agent and the command that finishes', async () => {
    const r = await vap(['agents', 'create', '--name', 'Half', '--engine', 'realtime', '--instructions', 'x', '--tool', 'tool_doesnotexist00']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^error: created agent Half \((ag_\w+)\) at version 1, but setting its tools failed: tool "tool_doesnotexist00" does not exist or is not available to this organization; finish with `vap agents tools \1 --set tool_doesnotexist00`\n$/,
    );
  });
});

describe('agents rollback says what it changes and asks', () => {
  it('without a terminal it needs --yes: exit 2 naming the flag, nothing read or sent', async () => {
    const id = await agent();
    await vap(['agents', 'update', id, '--instructions', 'v2']);
    await emu.clearRequests();
    const r = await vap(['agents', 'rollback', id, '--version=1', '--reason', 'r']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: cannot ask "Roll agent ${id} back to version 1?" without a terminal; pass --yes\n`);
    expect(await sent()).toEqual([]);
  });

  it('back to version 1: the voice and tools it drops are shown, not dropped silently', async () => {
    const id = await agent('Front desk');
    await vap(['agents', 'update', id, '--instructions', 'Greet callers.\nBook appointments.']);
    await vap(['agents', 'voice', id, '--set', 'Lucía']);
    await vap(['agents', 'tools', id, '--set', `${tool('Calendar booking').id},${tool('CRM lookup').id}`]);
    const r = await vap(['agents', 'rollback', id, '--version=1', '--reason', 'start over', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Rolling agent Front desk (${id}) back to version 1 changes:\n`);
    expect(r.stderr).toContain('  instructions:\n    @@ -1,2 +1,1 @@\n     Greet callers.\n    -Book appointments.\n');
    expect(r.stderr).toContain('  voice: Lucía (es-ES) → Ava (en-US)\n');
    expect(r.stderr).toContain('  tools: - Calendar booking, - CRM lookup\n');
    expect(r.stderr).toContain(`Rolled agent ${id} back to version 1; the new current version is 5`);
    expect(r.stderr).not.toContain('does not say');
    const after = JSON.parse((await vap(['agents', 'get', id, '--json'])).stdout);
    expect(after).toMatchObject({ currentVersion: 5, voice: { name: 'Ava', language: 'en-US' }, tools: [] });
  });
});
