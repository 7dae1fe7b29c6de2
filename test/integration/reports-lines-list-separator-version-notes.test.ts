import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

// Output read as people read it: a line per report saying where it was written, lists in
// pipes joined by commas (never a newline escaped as `\n`), and the fields a version changed
// in a person's words in the NOTE of `agents versions` (tools, not `toolIds`).

let emu: TestEmulator;
let dir: string;
let agentId: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), 'vap-small-things-'));
  agentId = (await emu.api('POST', '/api/v1/agents', { name: 'Reception', engine: 'realtime', instructions: 'Greet callers.' })).body.data.id;
});
afterAll(async () => {
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
});

const vap = (argv: string[], opts: RunOptions = {}) => runCli(argv, { ...opts, env: { ...cliEnv(emu.url, ORG_A.apiKey), COLUMNS: '80', ...opts.env } });

describe('evals run --report says where each report went', () => {
  it('one line per report written, on stderr, in the order given; -q leaves them out', async () => {
    const evalId = (await emu.api('POST', `/api/v1/agents/${agentId}/evals`, { name: 'Reports', iterationsPerScenario: 1 })).body.data.id;
    await emu.api('POST', `/api/v1/agents/${agentId}/evals/${evalId}/scenarios`, {
      name: 'Book',
      persona: 'A caller',
      goal: 'Book a visit',
      category: 'happy_path',
    });
    const [xml, md, html] = [join(dir, 'reports', 'evals.xml'), join(dir, 'reports', 'evals.md'), join(dir, 'evals.html')];
    const r = await vap([
      'evals',
      'run',
      evalId,
      '--agent',
      agentId,
      '--wait',
      '--report',
      `junit=${xml}`,
      '--report',
      `markdown=${md}`,
      '--report',
      `html=${html}`,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('Wrote '));
    expect(lines).toEqual([`Wrote ${xml} (JUnit)`, `Wrote ${md} (Markdown)`, `Wrote ${html} (HTML)`]);
    for (const f of [xml, md, html]) expect(existsSync(f)).toBe(true);
    expect(readFileSync(xml, 'utf8')).toContain('<testsuites');

    const quiet = await vap(['evals', 'run', evalId, '--agent', agentId, '--wait', '-q', '--report', `json=${join(dir, 'q.json')}`]);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).not.toContain('Wrote ');
    expect(existsSync(join(dir, 'q.json'))).toBe(true);
  });
});

describe('lists in pipes are comma-separated, as `webhooks list` does', () => {
  it('webhooks create, get and list give the events the same way piped; a terminal reads them with spaces', async () => {
    await emu.control('POST', '/webhooks/allow-loopback', { allow: true });
    const created = await vap(['webhooks', 'create', '--name', 'CRM', '--url', 'http://127.0.0.1:9/hook', '--events', 'call.ended,call.analysis.completed']);
    expect(created.code, created.stderr).toBe(0);
    const fields = Object.fromEntries(
      created.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t') as [string, string]),
    );
    expect(fields.events).toBe('call.ended,call.analysis.completed');
    const get = await vap(['webhooks', 'get', fields.id!]);
    expect(get.stdout).toContain('events\tcall.ended,call.analysis.completed\n');
    const list = await vap(['webhooks', 'list']);
    expect(
      list.stdout
        .split('\n')
        .find((l) => l.startsWith(fields.id!))!
        .split('\t')[3],
    ).toBe('call.ended,call.analysis.completed');
    const tty = await vap(['webhooks', 'get', fields.id!], { tty: true });
    expect(tty.stdout).toMatch(/^events +call\.ended, call\.analysis\.completed$/m);
  });

  it("an agent's tools and the event types' delivery too", async () => {
    const tools = (await emu.control<{ orgs: Array<{ tools: Array<{ id: string; name: string }> }> }>('GET', `/tools?org=${ORG_A.name}`)).orgs[0]!.tools;
    await vap(['agents', 'tools', agentId, '--set', `${tools[0]!.id},${tools[1]!.id}`]);
    const get = await vap(['agents', 'get', agentId]);
    expect(get.stdout).toContain(`tools\t${tools[0]!.name},${tools[1]!.name}\n`);
    const types = await vap(['events', 'types']);
    expect(types.stdout).toMatch(/^call\.ended\tstream,webhook\t/m);
  });
});

describe("agents versions: NOTE in a person's words", () => {
  it("a table says tools and voice where the API says toolIds; piped, the API's words stay", async () => {
    const id = (await vap(['agents', 'create', '--name', 'Noted', '--engine', 'realtime', '--instructions', 'Hi.', '-q'])).stdout.trim();
    const tools = (await emu.control<{ orgs: Array<{ tools: Array<{ id: string }> }> }>('GET', `/tools?org=${ORG_A.name}`)).orgs[0]!.tools;
    expect((await vap(['agents', 'tools', id, '--set', tools[0]!.id])).code).toBe(0);
    expect((await vap(['agents', 'voice', id, '--set', 'Lucía'])).code).toBe(0);
    const table = await vap(['agents', 'versions', id], { tty: true });
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/NOTE$/);
    expect(lines[1]).toMatch(/^3 +voice_updated .* voice$/);
    expect(lines[2]).toMatch(/^2 +tools_updated .* tools$/);
    expect(table.stdout).not.toContain('toolIds');
    const tsv = await vap(['agents', 'versions', id]);
    expect(tsv.stdout.split('\n')[1]!.split('\t').at(-1)).toBe('toolIds');
  });
});
