// Agents, eval suites and webhook endpoints as code: `vap pull`, `vap diff`, `vap push`,
// `vap mv`, in-process against a real emulator with two organizations.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

let emu: TestEmulator;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator({ allowLoopbackUrls: true, timeScale: 2000 });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vap-ascode-'));
});

type Org = typeof ORG_A;

/** `vap <args> --profile <profile> --dir <dir>` as the organization's key. */
function vap(args: string[], o: { org?: Org; profile?: string; cwd?: string; tty?: boolean } = {}) {
  return runCli(['--profile', o.profile ?? 'staging', ...args, '--dir', o.cwd ?? dir], { env: cliEnv(emu.url, (o.org ?? ORG_A).apiKey), tty: o.tty });
}

async function tools(org: string): Promise<Array<{ id: string; name: string }>> {
  const r = await emu.control<{ orgs: Array<{ tools: Array<{ id: string; name: string }> }> }>('GET', `/tools?org=${org}`);
  return r.orgs[0]!.tools;
}

let seq = 0;
/** An agent with a tool, a voice, and a ready suite of two scenarios, made through the API. */
async function seedAgent(org: Org = ORG_A, name = `Front Desk ${++seq}`) {
  const key = org.apiKey;
  const a = (
    await emu.api(
      'POST',
      '/api/v1/agents',
      {
        name,
        instructions: 'You are the front desk of Acme Dental.\nGreet callers with "Hello".\nAlways ask for the patient name.',
        engine: 'realtime',
        variables: [{ name: 'patient_name', description: 'who calls' }],
      },
      key,
    )
  ).body.data;
  const t = await tools(org.name);
  await emu.api('PUT', `/api/v1/agents/${a.id}/tools`, { toolIds: [t[0]!.id] }, key);
  const s = (await emu.api('POST', `/api/v1/agents/${a.id}/evals`, { name: 'Booking', iterationsPerScenario: 1 }, key)).body.data;
  await emu.api(
    'POST',
    `/api/v1/agents/${a.id}/evals/${s.id}/scenarios`,
    { name: 'Book a cleaning', persona: 'Maria, polite', goal: 'Book a cleaning next week', category: 'happy_path' },
    key,
  );
  await emu.api(
    'POST',
    `/api/v1/agents/${a.id}/evals/${s.id}/scenarios`,
    { name: 'Angry caller', persona: 'Tom, angry', goal: 'Cancel an appointment', category: 'edge_case' },
    key,
  );
  await emu.api('PATCH', `/api/v1/agents/${a.id}/evals/${s.id}`, { status: 'ready' }, key);
  return { agentId: a.id as string, suiteId: s.id as string, name };
}

/** The project's files and contents. */
function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(root, p), readFileSync(p, 'utf8'));
    }
  };
  walk(root);
  return out;
}

const state = (profile = 'staging', root = dir) => JSON.parse(readFileSync(join(root, '.vap', `state.${profile}.json`), 'utf8'));
const agentMd = (slug: string) => join(dir, 'agents', slug, 'agent.md');

async function versions(agentId: string, key = ORG_A.apiKey) {
  return (await emu.api('GET', `/api/v1/agents/${agentId}/versions?limit=200`, undefined, key)).body.data;
}

async function writes(): Promise<Array<{ method: string; path: string }>> {
  return (await emu.requests()).filter((r) => r.method !== 'GET');
}

describe('vap pull and vap diff', () => {
  it('pull then diff shows nothing, and a second pull changes no byte', async () => {
    const { agentId } = await seedAgent();
    const pulled = await vap(['pull', '--agent', agentId]);
    expect(pulled.code, pulled.stderr).toBe(0);
    const slug = readdirSync(join(dir, 'agents'))[0]!;
    const md = readFileSync(agentMd(slug), 'utf8');
    expect(md).toMatch(/^---\nname: Front Desk \d+\nengine: realtime\nvoice:\n  name: Ava\n  language: en-US\ntools:\n  - Calendar booking\n/);
    expect(md.endsWith('---\nYou are the front desk of Acme Dental.\nGreet callers with "Hello".\nAlways ask for the patient name.\n')).toBe(true);
    expect(readFileSync(join(dir, 'agents', slug, 'evals', 'booking.yaml'), 'utf8')).toContain('gate: true');
    expect(readFileSync(join(dir, 'vap.yaml'), 'utf8')).toContain('staging:');

    const diff = await vap(['diff', '--exit-code']);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain('No changes');

    const before = snapshot(dir);
    const again = await vap(['pull']);
    expect(again.code, again.stderr).toBe(0);
    expect(snapshot(dir)).toEqual(before);
    const json = JSON.parse((await vap(['diff', '--json'])).stdout);
    expect(json.changes).toBe(false);
    expect(json.resources.map((r: { action: string }) => r.action)).toEqual(['unchanged', 'unchanged']);
  });

  it('writes the state with sorted keys, one resource per line', async () => {
    await seedAgent();
    await seedAgent();
    expect((await vap(['pull', '--all'])).code).toBe(0);
    const text = readFileSync(join(dir, '.vap', 'state.staging.json'), 'utf8');
    const agentLines = text.split('\n').filter((l) => /^ {4}"front-desk-\d+": \{"fields"/.test(l));
    expect(agentLines.length).toBeGreaterThanOrEqual(2);
    const keys = agentLines.map((l) => JSON.parse(`{${l.replace(/,$/, '')}}`)).map((o) => Object.keys(o)[0]);
    expect(keys).toEqual([...keys].sort());
    expect(JSON.parse(text).format).toBe(1);
  });

  it('refuses to overwrite a file changed locally since the last sync, and names it (--force overwrites)', async () => {
    const { agentId } = await seedAgent();
    await vap(['pull', '--agent', agentId]);
    const slug = readdirSync(join(dir, 'agents'))[0]!;
    writeFileSync(agentMd(slug), readFileSync(agentMd(slug), 'utf8').replace('Hello', 'Hi there'));
    await emu.api('PATCH', `/api/v1/agents/${agentId}`, { name: 'Renamed on the platform' });
    const r = await vap(['pull']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`agents/${slug}/agent.md was changed locally since the last sync`);
    expect(readFileSync(agentMd(slug), 'utf8')).toContain('Hi there');
    const forced = await vap(['pull', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(agentMd(slug), 'utf8')).toContain('name: Renamed on the platform');
    expect(readFileSync(agentMd(slug), 'utf8')).not.toContain('Hi there');
  });
});

describe('vap push', () => {
  it('an edited instructions file shows as a unified diff, and the push makes exactly one new version with the reason', async () => {
    const { agentId } = await seedAgent();
    await vap(['pull', '--agent', agentId]);
    const slug = readdirSync(join(dir, 'agents'))[0]!;
    writeFileSync(
      agentMd(slug),
      readFileSync(agentMd(slug), 'utf8').replace('Greet callers with "Hello".', 'Greet callers warmly with "Hi, this is Acme Dental".'),
    );
    const diff = await vap(['diff', '--exit-code']);
    expect(diff.code).toBe(3);
    expect(diff.stdout).toContain(`~ update    agent ${slug}`);
    expect(diff.stdout).toContain('-Greet callers with "Hello".');
    expect(diff.stdout).toContain('+Greet callers warmly with "Hi, this is Acme Dental".');
    expect(diff.stdout).toContain(' You are the front desk of Acme Dental.');

    const before = await versions(agentId);
    const push = await vap(['push', '--yes', '--reason', 'friendlier greeting']);
    expect(push.code, push.stderr).toBe(0);
    const after = await versions(agentId);
    expect(after.total).toBe(before.total + 1);
    expect(after.versions[0]).toMatchObject({ changeType: 'prompt_updated', changedFields: ['instructions'] });
    expect(after.versions[0].reason).toMatch(/^friendlier greeting \(vap push \S+\)$/);
    const listed = await runCli(['agents', 'versions', agentId, '--limit', '1'], { env: cliEnv(emu.url, ORG_A.apiKey) });
    expect(listed.stdout).toMatch(/\tprompt_updated\t.*\tinstructions: friendlier greeting \(vap push \S+\)\n$/);
    expect((await vap(['diff', '--exit-code'])).code).toBe(0);
    const files = snapshot(dir);
    expect((await vap(['pull'])).code).toBe(0);
    expect(snapshot(dir)).toEqual(files);
  });

  it('creates agents, suites and webhooks from files, resolving tools and voices by name, and reads them back', async () => {
    writeFileSync(
      join(dir, 'vap.yaml'),
      `version: 1\nprofiles:\n  staging:\n    vars:\n      HOOK: http://127.0.0.1:9/hooks/vap\n    tools:\n      CRM lookup: ${(await tools('acme')).find((t) => t.name === 'CRM lookup')!.id}\n`,
    );
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'agents', 'reception', 'evals'), { recursive: true });
    mkdirSync(join(dir, 'webhooks'), { recursive: true });
    writeFileSync(
      agentMd('reception'),
      '---\nname: Reception\nengine: realtime\nvoice: { name: Mateo, language: es-MX }\ntools: [CRM lookup]\n---\nYou are the receptionist.\nGreet callers with "Hola".\n',
    );
    writeFileSync(
      join(dir, 'agents', 'reception', 'evals', 'smoke.yaml'),
      'name: Smoke\nstatus: ready\ngate: true\niterations: 1\ncriteria:\n  - { key: goal_completion, name: Goal, weight: 2 }\n  - { key: tone, name: Tone, weight: 2 }\nscenarios:\n  - { name: Greeting, category: happy_path, persona: "Ana, polite", goal: Get a greeting }\n',
    );
    writeFileSync(join(dir, 'webhooks', 'crm.yaml'), '# where call events go\nname: CRM\nurl: ${vars.HOOK}\nevents: [call.ended]\n');
    const secretFile = join(dir, 'crm.secret');
    const r = await vap(['push', '--yes', '--secret-file', secretFile]);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(secretFile, 'utf8')).toMatch(/^whsec_/);
    expect(statSync(secretFile).mode & 0o777).toBe(0o600);
    const s = state();
    const agent = (await emu.api('GET', `/api/v1/agents/${s.agents.reception.id}`)).body.data;
    expect(agent.voice).toEqual({ name: 'Mateo', language: 'es-MX' });
    expect((await emu.api('GET', `/api/v1/agents/${s.agents.reception.id}/tools`)).body.data.tools.map((t: { name: string }) => t.name)).toEqual([
      'CRM lookup',
    ]);
    expect((await emu.api('GET', `/api/v1/webhook-endpoints/${s.webhooks.crm.id}`)).body.data.url).toBe('http://127.0.0.1:9/hooks/vap');
    expect(s.suites['reception/smoke'].id).toMatch(/^ev_/);
    // Weights the platform normalises (2, 2 → 0.5, 0.5) are not a difference.
    expect((await vap(['diff', '--exit-code'])).code).toBe(0);
    const files = snapshot(dir);
    expect((await vap(['pull'])).code).toBe(0);
    expect(snapshot(dir)).toEqual(files);
  });

  it('two profiles against two organizations keep their own ids, versions and state files', async () => {
    const { agentId } = await seedAgent(ORG_A);
    expect((await vap(['pull', '--agent', agentId], { profile: 'staging' })).code).toBe(0);
    const slug = readdirSync(join(dir, 'agents'))[0]!;
    const globexTool = (await tools('globex')).find((t) => t.name === 'Calendar booking')!.id;
    writeFileSync(join(dir, 'vap.yaml'), `${readFileSync(join(dir, 'vap.yaml'), 'utf8')}  prod:\n    tools:\n      Calendar booking: ${globexTool}\n`);
    // A profile vap.yaml does not list is added by the push, as pull adds it.
    const dry = await vap(['push', '--dry-run'], { org: ORG_B, profile: 'nowhere' });
    expect(dry.stderr).toContain('Added profile "nowhere" to vap.yaml');
    // No agent of globex uses the tool yet: the fix is printed, ready to paste.
    expect(dry.code).toBe(2);
    expect(dry.stderr).toContain("under profiles.nowhere.tools:\n      Calendar booking: <the tool's id in profile nowhere>\n");
    expect(readFileSync(join(dir, 'vap.yaml'), 'utf8')).toMatch(/\n  nowhere:\n/);

    const prod = await vap(['push', '--yes'], { org: ORG_B, profile: 'prod' });
    expect(prod.code, prod.stderr).toBe(0);
    const s1 = state('staging');
    const s2 = state('prod');
    expect(s2.agents[slug].id).not.toBe(s1.agents[slug].id);
    expect(s2.suites[`${slug}/booking`].id).not.toBe(s1.suites[`${slug}/booking`].id);
    expect(s2.tools['Calendar booking']).toBe(globexTool);
    expect(s1.tools['Calendar booking']).not.toBe(globexTool);
    // The agent exists in globex with globex's tool, and not in acme twice.
    expect((await emu.api('GET', `/api/v1/agents/${s2.agents[slug].id}`, undefined, ORG_B.apiKey)).status).toBe(200);
    expect((await emu.api('GET', `/api/v1/agents/${s2.agents[slug].id}`, undefined, ORG_A.apiKey)).status).toBe(404);

    writeFileSync(agentMd(slug), readFileSync(agentMd(slug), 'utf8').replace('Hello', 'Good morning'));
    expect((await vap(['push', '--yes'], { profile: 'staging' })).code).toBe(0);
    expect((await vap(['diff', '--exit-code'], { profile: 'staging' })).code).toBe(0);
    const prodDiff = await vap(['diff', '--exit-code'], { org: ORG_B, profile: 'prod' });
    expect(prodDiff.code).toBe(3);
    expect(prodDiff.stdout).toContain('+Greet callers with "Good morning".');
    expect((await versions(s1.agents[slug].id)).currentVersion).toBe(s1.agents[slug].version + 1);
    expect((await versions(s2.agents[slug].id, ORG_B.apiKey)).currentVersion).toBe(s2.agents[slug].version);
    expect(existsSync(join(dir, '.vap', 'state.staging.json')) && existsSync(join(dir, '.vap', 'state.prod.json'))).toBe(true);
  });

  it('a change made through the API after the last pull is drift: diff reports it, push refuses it without --force', async () => {
    const { agentId } = await seedAgent();
    await vap(['pull', '--agent', agentId]);
    await emu.api('PATCH', `/api/v1/agents/${agentId}`, { instructions: 'Changed in the product.' });
    const diff = await vap(['diff', '--exit-code']);
    expect(diff.code).toBe(3);
    expect(diff.stdout).toMatch(/! drift\s+agent \S+ .*: changed on the platform since the last sync \(instructions\)/);
    const json = JSON.parse((await vap(['diff', '--json'])).stdout);
    expect(json.resources.find((r: { kind: string }) => r.kind === 'agent')).toMatchObject({ action: 'drift', drift: ['instructions'] });

    await emu.clearRequests();
    const push = await vap(['push', '--yes']);
    expect(push.code).toBe(1);
    expect(push.stderr).toMatch(/not applied: agent \S+: changed on the platform since the last sync \(instructions\)/);
    expect(await writes()).toEqual([]);

    const forced = await vap(['push', '--yes', '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect((await emu.api('GET', `/api/v1/agents/${agentId}`)).body.data.instructions).toContain('Greet callers with "Hello".');
    expect((await vap(['diff', '--exit-code'])).code).toBe(0);
  });

  it('a change on both sides is a conflict', async () => {
    const { agentId } = await seedAgent();
    await vap(['pull', '--agent', agentId]);
    const slug = readdirSync(join(dir, 'agents'))[0]!;
    await emu.api('PATCH', `/api/v1/agents/${agentId}`, { name: 'Platform name' });
    writeFileSync(agentMd(slug), readFileSync(agentMd(slug), 'utf8').replace('Hello', 'Hi'));
    const diff = await vap(['diff']);
    expect(diff.stdout).toMatch(/! conflict\s+agent .*platform: name; files: instructions/);
  });

  it('an unknown tool name and an invalid front matter are exit 2 with the file and line, and nothing is sent', async () => {
    const { agentId } = await seedAgent();
    await vap(['pull', '--agent', agentId]);
    const slug = readdirSync(join(dir, 'agents'))[0]!;
    const good = readFileSync(agentMd(slug), 'utf8');

    writeFileSync(agentMd(slug), good.replace('  - Calendar booking', '  - Calendar booking\n  - Teleporter'));
    await emu.clearRequests();
    const unknownTool = await vap(['push', '--yes']);
    expect(unknownTool.code).toBe(2);
    expect(unknownTool.stderr).toBe(
      [
        `agents/${slug}/agent.md:9: tools: no tool named "Teleporter" is known in profile "staging"`,
        'No agent of profile "staging" uses this tool yet, and the API has no tool listing. Add its id to vap.yaml, under profiles.staging.tools:',
        "      Teleporter: <the tool's id in profile staging>",
        `error: agents/${slug}/agent.md:9: tools: no tool named "Teleporter" is known in profile "staging" (the fix is above); nothing was sent`,
        '',
      ].join('\n'),
    );
    expect(await writes()).toEqual([]);

    writeFileSync(agentMd(slug), good.replace('engine: realtime', 'engine: turbo'));
    await emu.clearRequests();
    const invalid = await vap(['push', '--yes']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(new RegExp(`^error: agents/${slug}/agent\\.md:3: engine: .*realtime.*; nothing was sent\\n$`));
    expect(await emu.requests()).toEqual([]);

    writeFileSync(agentMd(slug), good.replace('engine: realtime\n', 'engine: realtime\n  oops: [\n'));
    const broken = await vap(['diff']);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(new RegExp(`agents/${slug}/agent\\.md:\\d+: not valid YAML`));
  });

  it('--prune deletes what the files no longer have, and is confirmed (without a terminal --yes is needed)', async () => {
    const { agentId } = await seedAgent();
    await vap(['pull', '--agent', agentId]);
    const slug = readdirSync(join(dir, 'agents'))[0]!;
    rmSync(join(dir, 'agents', slug), { recursive: true });
    const diff = await vap(['diff', '--exit-code']);
    expect(diff.code).toBe(3);
    expect(diff.stdout).toContain(`- delete    agent ${slug}`);
    const noPrune = await vap(['push', '--yes']);
    expect(noPrune.code, noPrune.stderr).toBe(0);
    expect(noPrune.stderr.trim().split('\n').at(-1)).toMatch(
      /^\d+ deletions? not applied \(.*\): their files were removed; `vap push --prune --profile staging` deletes/,
    );
    expect((await emu.api('GET', `/api/v1/agents/${agentId}`)).status).toBe(200);

    await emu.clearRequests();
    const unconfirmed = await vap(['push', '--prune']);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('pass --yes');
    expect(unconfirmed.stderr).toContain(`It deletes agent ${slug}, suite ${slug}/booking.`);
    expect(await writes()).toEqual([]);

    const pruned = await vap(['push', '--prune', '--yes']);
    expect(pruned.code, pruned.stderr).toBe(0);
    expect((await emu.api('GET', `/api/v1/agents/${agentId}`)).status).toBe(404);
    expect(state().agents).toEqual({});
    expect(state().suites).toEqual({});
  });

  it('an edited scenario is not applicable through the API; --replace-suite replaces the suite after confirmation and says the history is lost', async () => {
    const { agentId, suiteId } = await seedAgent();
    await vap(['pull', '--agent', agentId]);
    const slug = readdirSync(join(dir, 'agents'))[0]!;
    const file = join(dir, 'agents', slug, 'evals', 'booking.yaml');
    await emu.api('POST', `/api/v1/agents/${agentId}/evals/${suiteId}/runs`);
    writeFileSync(file, readFileSync(file, 'utf8').replace('goal: Cancel an appointment', 'goal: Move an appointment'));

    const diff = await vap(['diff', '--exit-code']);
    expect(diff.code).toBe(3);
    expect(diff.stdout).toMatch(/✗ blocked\s+suite .*"Angry caller" edited.*not applicable through the API; `vap push --replace-suite --profile staging`/);
    const push = await vap(['push', '--yes']);
    expect(push.code).toBe(1);
    expect(push.stderr).toContain('not applied: suite');

    await emu.clearRequests();
    const unconfirmed = await vap(['push', '--replace-suite']);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain(`replaces suite ${slug}/booking (their run history is lost)`);
    expect(await writes()).toEqual([]);

    const replaced = await vap(['push', '--replace-suite', '--yes']);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stderr).toMatch(new RegExp(`suite ${slug}/booking: replaced \\(${suiteId} deleted with its run history; new suite ev_`));
    const suites = (await emu.api('GET', `/api/v1/agents/${agentId}/evals`)).body.data.evals;
    expect(suites).toHaveLength(1);
    expect(suites[0].id).not.toBe(suiteId);
    expect(suites[0].runCount).toBe(0);
    expect(state().suites[`${slug}/booking`].id).toBe(suites[0].id);
    expect((await vap(['diff', '--exit-code'])).code).toBe(0);
  });

  it('reads each resource back and reports a field the platform did not keep', async () => {
    writeFileSync(join(dir, 'vap.yaml'), 'version: 1\nprofiles:\n  staging: {}\n');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'webhooks'));
    // The platform stores the normalised URL (a path of "/" added).
    writeFileSync(join(dir, 'webhooks', 'hook.yaml'), 'name: Hook\nurl: http://127.0.0.1:9\nevents: [call.ended]\n');
    const r = await vap(['push', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('webhook hook: the platform did not keep url (sent "http://127.0.0.1:9", it has "http://127.0.0.1:9/")');
    expect(r.stdout).toMatch(/secret of webhook hook \(we_\w+\): whsec_/);
    const diff = await vap(['diff', '--exit-code']);
    expect(diff.code).toBe(3);
    expect(diff.stdout).toContain('url: "http://127.0.0.1:9/" → "http://127.0.0.1:9"');
  });

  it('adds a scenario to a suite without touching the others', async () => {
    const { agentId, suiteId } = await seedAgent();
    await vap(['pull', '--agent', agentId]);
    const slug = readdirSync(join(dir, 'agents'))[0]!;
    const file = join(dir, 'agents', slug, 'evals', 'booking.yaml');
    writeFileSync(
      file,
      `${readFileSync(file, 'utf8')}  - name: Wrong number\n    category: edge_case\n    persona: Bob, confused\n    goal: Find out who he called\n`,
    );
    const push = await vap(['push', '--yes']);
    expect(push.code, push.stderr).toBe(0);
    const scenarios = (await emu.api('GET', `/api/v1/agents/${agentId}/evals/${suiteId}/scenarios`)).body.data.scenarios;
    expect(scenarios.map((s: { name: string }) => s.name)).toEqual(['Book a cleaning', 'Angry caller', 'Wrong number']);
  });
});

describe('vap push --eval', () => {
  async function pushedProject() {
    const { agentId } = await seedAgent();
    await vap(['pull', '--agent', agentId]);
    const slug = readdirSync(join(dir, 'agents'))[0]!;
    return { agentId, slug };
  }

  it('a failing gate rolls every changed agent back, restores its voice and tools, and the version history shows why', async () => {
    const { agentId, slug } = await pushedProject();
    const from = (await versions(agentId)).currentVersion;
    writeFileSync(
      agentMd(slug),
      readFileSync(agentMd(slug), 'utf8')
        .replace('Hello', 'Yo')
        .replace('  name: Ava\n  language: en-US', '  name: Olivia\n  language: en-GB')
        .replace('  - Calendar booking', '  - Calendar booking\n  - CRM lookup'),
    );
    writeFileSync(
      join(dir, 'vap.yaml'),
      readFileSync(join(dir, 'vap.yaml'), 'utf8').replace(
        'tools: {}',
        `tools:\n      CRM lookup: ${(await tools('acme')).find((t) => t.name === 'CRM lookup')!.id}`,
      ),
    );
    const r = await vap(['push', '--yes', '--eval', '--min-score', '0.999', '--reason', 'try a casual greeting']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`↩ rolled back agent ${slug}`);
    expect(r.stderr).toContain('failed a gate');
    const v = await versions(agentId);
    const rollback = v.versions.find((x: { changeType: string }) => x.changeType === 'rollback');
    expect(rollback.rolledBackTo).toBe(from);
    expect(rollback.reason).toMatch(/^vap push \S+: eval gate failed on .*booking \(--min-score 0\.999: overall score [\d.]+ < 0\.999\)/);
    const agent = (await emu.api('GET', `/api/v1/agents/${agentId}`)).body.data;
    expect(agent.instructions).toContain('Greet callers with "Hello".');
    expect(agent.voice).toEqual({ name: 'Ava', language: 'en-US' });
    expect((await emu.api('GET', `/api/v1/agents/${agentId}/tools`)).body.data.tools.map((t: { name: string }) => t.name)).toEqual(['Calendar booking']);
    // The history lists it too, as `vap agents versions` shows it.
    const listed = await runCli(['agents', 'versions', agentId], { env: cliEnv(emu.url, ORG_A.apiKey) });
    expect(listed.stdout).toMatch(new RegExp(`rollback\\t.*to version ${from}: vap push \\S+: eval gate failed`));
    // The files still hold the change: the next diff shows it again.
    expect((await vap(['diff', '--exit-code'])).code).toBe(3);
  });

  it('a failed run rolls back too (exit 1)', async () => {
    const { agentId, slug } = await pushedProject();
    writeFileSync(agentMd(slug), readFileSync(agentMd(slug), 'utf8').replace('Hello', 'Howdy'));
    await emu.control('POST', '/evals/next-run', { outcome: 'fail', reason: 'tester unavailable' });
    const r = await vap(['push', '--yes', '--eval']);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`↩ rolled back agent ${slug}`);
    const v = await versions(agentId);
    expect(v.versions[0]).toMatchObject({ changeType: 'rollback' });
    expect(v.versions[0].reason).toMatch(/eval run failed/);
  });

  it('passing gates keep the new version', async () => {
    const { agentId, slug } = await pushedProject();
    writeFileSync(agentMd(slug), readFileSync(agentMd(slug), 'utf8').replace('Hello', 'Good afternoon'));
    const reports = join(dir, 'reports', 'evals.json');
    const r = await vap(['push', '--yes', '--eval', '--min-score', '0.1', '--report', `json=${reports}`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('evals passed (1 suite): the new versions stay');
    const v = await versions(agentId);
    expect(v.versions[0]).toMatchObject({ changeType: 'prompt_updated', isCurrent: true });
    expect(v.versions.some((x: { changeType: string }) => x.changeType === 'rollback')).toBe(false);
    expect(JSON.parse(readFileSync(reports, 'utf8')).gates.every((g: { passed: boolean }) => g.passed)).toBe(true);
  });

  it('--timeout leaves the platform as pushed and prints what finishes the gate or the rollback', async () => {
    const { agentId, slug } = await pushedProject();
    writeFileSync(agentMd(slug), readFileSync(agentMd(slug), 'utf8').replace('Hello', 'Hey'));
    await emu.control('POST', '/evals/next-run', { outcome: 'hold' });
    const r = await vap(['push', '--yes', '--eval', '--min-score', '0.5', '--timeout', '1s']);
    expect(r.code).toBe(124);
    expect(r.stderr).toMatch(/finish the gate of .*: vap evals runs get run_\S+ --eval ev_\S+ --agent ag_\S+ --wait --min-score 0\.5/);
    expect(r.stderr).toMatch(new RegExp(`or roll back agent ${slug}: vap agents rollback ${agentId} --version \\d+ --reason`));
    const v = await versions(agentId);
    expect(v.versions[0].changeType).toBe('prompt_updated');
    await emu.control('DELETE', '/evals/next-run');
  });

  it('Ctrl-C while the evals run leaves the platform as pushed and prints what finishes the gate or the rollback (exit 130)', async () => {
    const { agentId, slug } = await pushedProject();
    writeFileSync(agentMd(slug), readFileSync(agentMd(slug), 'utf8').replace('Hello', 'Hiya'));
    await emu.control('POST', '/evals/next-run', { outcome: 'hold' });
    await emu.clearRequests();
    const ctrlC = new AbortController();
    const running = runCli(['--profile', 'staging', 'push', '--yes', '--eval', '--dir', dir], { env: cliEnv(emu.url, ORG_A.apiKey), signal: ctrlC.signal });
    for (let i = 0; i < 200 && !(await emu.requests()).some((q) => q.method === 'POST' && q.path.endsWith('/runs')); i++)
      await new Promise((res) => setTimeout(res, 20));
    await new Promise((res) => setTimeout(res, 100));
    ctrlC.abort();
    const r = await running;
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('The push is applied; its evals did not finish, so nothing was rolled back.');
    expect(r.stderr).toMatch(/finish the gate of .*: vap evals runs get run_\S+ --eval ev_\S+ --agent ag_\S+ --wait/);
    expect(r.stderr).toMatch(new RegExp(`or roll back agent ${slug}: vap agents rollback ${agentId} --version \\d+`));
    expect((await emu.api('GET', `/api/v1/agents/${agentId}`)).body.data.instructions).toContain('Hiya');
    await emu.control('DELETE', '/evals/next-run');
  });

  it('gate flags without --eval are a usage error', async () => {
    const r = await vap(['push', '--min-score', '0.8']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--min-score needs --eval');
  });
});

describe('vap mv', () => {
  it('renames an agent folder and its state entries in every profile: the next push is not a delete and a create', async () => {
    const { agentId } = await seedAgent();
    await vap(['pull', '--agent', agentId]);
    const slug = readdirSync(join(dir, 'agents'))[0]!;
    const r = await vap(['mv', slug, 'reception']);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(agentMd('reception'))).toBe(true);
    expect(state().agents.reception.id).toBe(agentId);
    expect(Object.keys(state().suites)).toEqual(['reception/booking']);
    expect((await vap(['diff', '--exit-code'])).code).toBe(0);
    const suite = await vap(['mv', 'reception/evals/booking', 'booking-happy']);
    expect(suite.code, suite.stderr).toBe(0);
    expect(Object.keys(state().suites)).toEqual(['reception/booking-happy']);
    expect((await vap(['diff', '--exit-code'])).code).toBe(0);
    const taken = await vap(['mv', 'reception', 'reception']);
    expect(taken.code).toBe(2);
  });
});
