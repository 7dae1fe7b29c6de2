// Tool ids per profile: the files name tools, each organization has its own ids for them.
// A push to a profile vap.yaml does not list yet adds it and learns the ids from the tools of
// that organization's agents; a name no agent there uses yet is listed, all at once, with
// the vap.yaml lines to paste, and once pasted the push goes through.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { PROD, seedAgent, STAGING, toolId, writes, useTwoOrgProject } from '../helpers/two-orgs.js';

const t = useTwoOrgProject('vap-tool-ids-', (emu) => seedAgent(emu, PROD, { name: 'Reception', tools: ['Calendar booking', 'CRM lookup'] }));

const vap = (args: string[]) => t.vap(args);

async function pulledFromStaging(name: string, tools: string[]): Promise<string> {
  const s = await seedAgent(t.emu, STAGING, { name, tools });
  const r = await vap(['--profile', 'staging', 'pull', '--agent', s.agentId]);
  expect(r.code, r.stderr).toBe(0);
  return s.agentId;
}

async function prodTools(name: string): Promise<Array<{ id: string; name: string }>> {
  const agents = (await t.emu.api('GET', '/api/v1/agents?limit=100', undefined, PROD.apiKey)).body.data.agents as Array<{ id: string; name: string }>;
  const a = agents.find((x) => x.name === name);
  expect(a, `prod has ${name}`).toBeDefined();
  return (await t.emu.api('GET', `/api/v1/agents/${a!.id}/tools`, undefined, PROD.apiKey)).body.data.tools;
}

describe('tool ids per profile', () => {
  it("a push to a profile vap.yaml does not list adds it and learns the ids from the tools of its organization's agents", async () => {
    await pulledFromStaging('Learning Desk', ['Calendar booking', 'CRM lookup']);
    expect(readFileSync(join(t.dir, 'vap.yaml'), 'utf8')).not.toMatch(/^ {2}prod:/m);
    const r = await vap(['--profile', 'prod', 'push', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Added profile "prod" to vap.yaml');
    const want = [
      { id: await toolId(t.emu, PROD, 'Calendar booking'), name: 'Calendar booking' },
      { id: await toolId(t.emu, PROD, 'CRM lookup'), name: 'CRM lookup' },
    ];
    expect(want.map((t) => t.id)).not.toContain(await toolId(t.emu, STAGING, 'Calendar booking'));
    expect(await prodTools('Learning Desk')).toEqual(want);
    // Learned into prod's state, not written into vap.yaml; staging's ids are untouched.
    const state = JSON.parse(readFileSync(join(t.dir, '.vap', 'state.prod.json'), 'utf8'));
    expect(state.tools).toEqual({ 'Calendar booking': want[0]!.id, 'CRM lookup': want[1]!.id });
    // Added with an empty `tools:` (block style), where the lines of a fix paste as they are printed.
    expect(parse(readFileSync(join(t.dir, 'vap.yaml'), 'utf8')).profiles.prod.tools).toBeNull();
    expect(readFileSync(join(t.dir, 'vap.yaml'), 'utf8')).toContain('\n  prod:\n    vars:\n    tools:\n');
    expect(JSON.parse(readFileSync(join(t.dir, '.vap', 'state.staging.json'), 'utf8')).tools['Calendar booking']).toBe(
      await toolId(t.emu, STAGING, 'Calendar booking'),
    );
    expect((await vap(['--profile', 'prod', 'diff', '--exit-code'])).code).toBe(0);
  });

  it('names no agent of the organization uses are listed at once, with the vap.yaml lines to paste; pasted, the push works', async () => {
    await pulledFromStaging('Pasting Desk', ['Calendar booking', 'Send SMS', 'Knowledge base search']);
    await t.emu.clearRequests();
    const r = await vap(['--profile', 'prod', 'push', '--yes']);
    expect(r.code).toBe(2);
    expect(await writes(t.emu)).toEqual([]);
    // Each unknown name at its line; the one an agent of prod uses is not among them.
    expect(r.stderr).toMatch(/agents\/pasting-desk\/agent\.md:\d+: tools: no tool named "Send SMS" is known in profile "prod"/);
    expect(r.stderr).toMatch(/agents\/pasting-desk\/agent\.md:\d+: tools: no tool named "Knowledge base search" is known in profile "prod"/);
    expect(r.stderr).not.toContain('"Calendar booking"');
    const lines = r.stderr.split('\n');
    const at = lines.findIndex((l) => l.startsWith('No agent of profile "prod" uses these tools yet'));
    expect(at).toBeGreaterThanOrEqual(0);
    expect(lines[at]).toContain('Add their ids to vap.yaml, under profiles.prod.tools:');
    const snippet = lines.slice(at + 1).filter((l) => l.startsWith('      '));
    expect(snippet).toEqual(["      Knowledge base search: <the tool's id in profile prod>", "      Send SMS: <the tool's id in profile prod>"]);

    // Pasted as printed, right under prod's `tools:`, with the ids filled in.
    const ids: Record<string, string> = {
      'Send SMS': await toolId(t.emu, PROD, 'Send SMS'),
      'Knowledge base search': await toolId(t.emu, PROD, 'Knowledge base search'),
    };
    const toolLines = snippet.map((l) =>
      l.replace(/^(\s+)(.+): <the tool's id in profile prod>$/, (_m, sp: string, name: string) => `${sp}${name}: ${ids[name]}`),
    );
    const yamlFile = join(t.dir, 'vap.yaml');
    const text = readFileSync(yamlFile, 'utf8');
    const pasted = text.replace(/(\n {2}prod:\n(?: {4}.*\n)*? {4}tools:\n)/, `$1${toolLines.join('\n')}\n`);
    expect(pasted).not.toBe(text);
    writeFileSync(yamlFile, pasted);

    const again = await vap(['--profile', 'prod', 'push', '--yes']);
    expect(again.code, again.stderr).toBe(0);
    expect(await prodTools('Pasting Desk')).toEqual([
      { id: await toolId(t.emu, PROD, 'Calendar booking'), name: 'Calendar booking' },
      { id: ids['Send SMS'], name: 'Send SMS' },
      { id: ids['Knowledge base search'], name: 'Knowledge base search' },
    ]);
  });
});
