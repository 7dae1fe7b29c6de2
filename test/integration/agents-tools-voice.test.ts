import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await emu.close();
});
beforeEach(async () => {
  await emu.clearRequests();
});

const vap = (argv: string[], opts: RunOptions = {}, key = ORG_A.apiKey) => runCli(argv, { env: cliEnv(emu.url, key), ...opts });

async function createAgent(engine = 'realtime'): Promise<string> {
  const r = await vap(['agents', 'create', '--name', 'Tooled', '--engine', engine, '--instructions', 'x', '-q']);
  expect(r.code).toBe(0);
  return r.stdout.trim();
}

/** The tools of an organization, from the emulator's control path (the API has no tool listing). */
async function tools(org: string): Promise<Array<{ id: string; name: string }>> {
  const r = await emu.control<{ orgs: Array<{ tools: Array<{ id: string; name: string }> }> }>('GET', `/tools?org=${org}`);
  return r.orgs[0]!.tools;
}

describe('vap agents tools', () => {
  it('lists, replaces (duplicates collapse) and clears the tool list', async () => {
    const id = await createAgent();
    const [t1, t2, t3] = await tools(ORG_A.name);
    const empty = await vap(['agents', 'tools', id], { tty: true });
    expect(empty.code).toBe(0);
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toContain(`Agent ${id} has no tools.`);

    const set = await vap(['agents', 'tools', id, '--set', ` ${t1!.id}, ${t2!.id},${t1!.id},`]);
    expect(set.code).toBe(0);
    expect(set.stdout).toBe(`${t1!.id}\t${t1!.name}\n${t2!.id}\t${t2!.name}\n`);
    expect(set.stderr).toContain('now has 2 tools');
    const put = (await emu.requests()).find((r) => r.method === 'PUT');
    expect(put?.path).toBe(`/api/v1/agents/${id}/tools`);

    const table = await vap(['agents', 'tools', id], { tty: true });
    expect(table.stdout).toMatch(/^ID +NAME\n/);
    expect(table.stdout).toContain(t2!.name);

    await vap(['agents', 'tools', id, '--set', t3!.id]);
    expect(JSON.parse((await vap(['agents', 'tools', id, '--json'])).stdout)).toEqual([{ id: t3!.id, name: t3!.name }]);
    expect((await vap(['agents', 'tools', id, '-q'])).stdout).toBe(`${t3!.id}\n`);

    const cleared = await vap(['agents', 'tools', id, '--clear']);
    expect(cleared.code).toBe(0);
    expect(cleared.stderr).toContain('Removed every tool');
    expect(JSON.parse((await vap(['agents', 'tools', id, '--json'])).stdout)).toEqual([]);
  });

  it('an empty --set is refused before anything is sent: clearing is --clear', async () => {
    const id = await createAgent();
    const [t1] = await tools(ORG_A.name);
    await vap(['agents', 'tools', id, '--set', t1!.id]);
    await emu.clearRequests();
    for (const empty of ['', ' , ,']) {
      const r = await vap(['agents', 'tools', id, '--set', empty]);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`error: --set "${empty}" names no tool; give the tool ids or names (--set tool_a,tool_b), or pass --clear to remove every tool\n`);
    }
    const both = await vap(['agents', 'tools', id, '--set', t1!.id, '--clear']);
    expect(both.code).toBe(2);
    expect(both.stderr).toBe('error: --set and --clear disagree; give --set id,… to replace the tools, or --clear to remove them all\n');
    expect(await emu.requests()).toEqual([]);
    expect(JSON.parse((await vap(['agents', 'tools', id, '--json'])).stdout).map((t: any) => t.id)).toEqual([t1!.id]);
  });

  it('refuses a tool of another tenant, naming it, and leaves the list as it was', async () => {
    const id = await createAgent();
    const [mine] = await tools(ORG_A.name);
    const [theirs] = await tools(ORG_B.name);
    await vap(['agents', 'tools', id, '--set', mine!.id]);
    const r = await vap(['agents', 'tools', id, '--set', `${mine!.id},${theirs!.id}`]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(
      new RegExp(`^error: tool "${theirs!.id}" does not exist or is not available to this organization \\(HTTP 422, request id req_\\w+\\)\\n$`),
    );
    expect(JSON.parse((await vap(['agents', 'tools', id, '--json'])).stdout).map((t: any) => t.id)).toEqual([mine!.id]);
  });
});

describe('vap agents voice', () => {
  it('shows the current voice and changes it; the language defaults to the voice’s own', async () => {
    const id = await createAgent();
    const shown = await vap(['agents', 'voice', id]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^voiceId\tvoice_\w+\nname\t\S+\nlanguage\ten-US\n$/);

    const voices = JSON.parse((await vap(['voices', 'list', '--language', 'es', '--json'])).stdout);
    const mx = voices.find((v: any) => v.language === 'es-MX');
    const set = await vap(['agents', 'voice', id, '--set', mx.id, '--language', 'es-mx', '--json']);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ voiceId: mx.id, name: mx.name, language: 'es-MX' });
    expect(set.stderr).toContain(`now speaks with ${mx.name} (es-MX)`);

    const es = voices.find((v: any) => v.language === 'es-ES');
    const noLang = await vap(['agents', 'voice', id, '--set', es.id, '-q']);
    expect(noLang.stdout).toBe(`${es.id}\n`);
    expect(JSON.parse((await vap(['agents', 'voice', id, '--json'])).stdout).language).toBe('es-ES');
    expect(JSON.parse((await vap(['agents', 'get', id, '--json'])).stdout).voice).toEqual({ name: es.name, language: 'es-ES' });
  });

  it('reports an unknown voice (exit 2, before anything changes) or a language the voice does not speak (exit 1)', async () => {
    const id = await createAgent();
    const unknown = await vap(['agents', 'voice', id, '--set', 'voice_nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--set "voice_nope" is neither the id nor the name of a voice/);
    const voices = JSON.parse((await vap(['voices', 'list', '--language', 'de', '--json'])).stdout);
    const lang = await vap(['agents', 'voice', id, '--set', voices[0].id, '--language', 'fr-FR']);
    expect(lang.code).toBe(1);
    expect(lang.stderr).toMatch(/speaks de-DE, not fr-FR/);
  });

  it('on a speech-to-speech agent, the refusal reaches the user as one line saying why', async () => {
    const id = await createAgent('speech-to-speech');
    const voices = JSON.parse((await vap(['voices', 'list', '--json'])).stdout);
    const r = await vap(['agents', 'voice', id, '--set', voices[0].id, '--language', voices[0].language]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^error: agent ag_\w+ uses the speech-to-speech engine, which speaks with its model's own voice; its voice cannot be set \(HTTP 422, request id req_\w+\)\n$/,
    );
    const shown = JSON.parse((await vap(['agents', 'voice', id, '--json'])).stdout);
    expect(shown).toEqual({ voiceId: 'model_native', name: "Model's own voice", language: 'en-US' });
  });

  it('--language without --set is a usage error (nothing sent)', async () => {
    const r = await vap(['agents', 'voice', 'ag_x', '--language', 'es']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--language only goes with --set/);
    expect(await emu.requests()).toEqual([]);
  });
});
