// Agents as code in a repository vap can be trusted with: a tampered state, hostile names
// and links never make pull, diff, push or mv write, read or remove outside the project;
// removes take only vap's own content; another organization's key deletes nothing; text
// from the platform is never a template. Each case reproduces an attack and asserts the
// refusal and that nothing outside the project changed.
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
  existsSync,
  closeSync,
  openSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ORG_A, ORG_B, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

let emu: TestEmulator;
/** The sandbox: `outside/` holds a victim's files, `project/` the project. */
let sandbox: string;
let dir: string;
let outside: string;

beforeAll(async () => {
  emu = await startTestEmulator({ allowLoopbackUrls: true, timeScale: 2000 });
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(() => {
  sandbox = mkdtempSync(join(tmpdir(), 'vap-confine-'));
  dir = join(sandbox, 'project');
  outside = join(sandbox, 'outside');
  mkdirSync(dir);
  mkdirSync(join(outside, 'victimdir', 'deep'), { recursive: true });
  writeFileSync(join(outside, 'victimdir', 'precious.txt'), 'do not delete\n');
  writeFileSync(join(outside, 'victimdir', 'deep', 'agent.md'), "not vap's\n");
});

type Org = typeof ORG_A;

function vap(args: string[], o: { org?: Org; profile?: string; tty?: boolean; env?: Record<string, string> } = {}) {
  return runCli(['--profile', o.profile ?? 'staging', ...args, '--dir', dir], { env: { ...cliEnv(emu.url, (o.org ?? ORG_A).apiKey), ...o.env }, tty: o.tty });
}

/**
 * Every file, folder and link under a folder, with contents, modes and link targets: what must
 * not change.
 */
function snapshot(root: string, skip?: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d).sort()) {
      const p = join(d, e);
      if (skip && p === skip) continue;
      const st = lstatSync(p);
      const rel = relative(root, p);
      if (st.isSymbolicLink()) out.set(rel, `link → ${readlinkSync(p)}`);
      else if (st.isDirectory()) {
        out.set(rel, `dir ${st.mode.toString(8)}`);
        walk(p);
      } else out.set(rel, `file ${st.mode.toString(8)} ${st.mtimeMs} ${readFileSync(p, 'utf8')}`);
    }
  };
  walk(root);
  return out;
}
/** The sandbox without the project: everything a run must leave alone. */
const outsideSnapshot = () => snapshot(sandbox, dir);

let seq = 0;
async function seedAgent(org: Org = ORG_A, name = `Desk ${++seq}`, extra: { goal?: string } = {}) {
  const key = org.apiKey;
  const a = (await emu.api('POST', '/api/v1/agents', { name, instructions: 'Greet the caller.', engine: 'realtime', variables: [] }, key)).body.data;
  const s = (await emu.api('POST', `/api/v1/agents/${a.id}/evals`, { name: 'Booking', iterationsPerScenario: 1 }, key)).body.data;
  await emu.api(
    'POST',
    `/api/v1/agents/${a.id}/evals/${s.id}/scenarios`,
    { name: 'Book', persona: 'Maria', goal: extra.goal ?? 'Book a cleaning', category: 'happy_path' },
    key,
  );
  return { agentId: a.id as string, suiteId: s.id as string, name };
}

const statePath = (profile = 'staging') => join(dir, '.vap', `state.${profile}.json`);
const readState = (profile = 'staging') => JSON.parse(readFileSync(statePath(profile), 'utf8'));
const writeState = (s: unknown, profile = 'staging') => {
  mkdirSync(join(dir, '.vap'), { recursive: true });
  writeFileSync(statePath(profile), typeof s === 'string' ? s : JSON.stringify(s, null, 2));
};
const entry = (id: string) => ({ id, hash: '0000000000000000', fields: {} });

describe('a tampered state never reaches outside the project', () => {
  it('an agent key "../../victimdir" whose id answers 404 removes nothing outside', async () => {
    await vap(['pull', '--all']);
    const before = outsideSnapshot();
    const s = readState();
    s.agents['../../outside/victimdir'] = entry('ag_doesnotexist0000');
    writeState(s);
    const r = await vap(['pull', '--force', '--yes']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('.vap/state.staging.json: agents["../../outside/victimdir"]: not a safe slug');
    expect(r.stderr).not.toContain('unexpected');
    expect(outsideSnapshot()).toEqual(before);
  });

  it('an agent key "../../../escaped-agent" with a live id writes no agent.md outside', async () => {
    const { agentId } = await seedAgent();
    writeFileSync(join(dir, 'vap.yaml'), 'version: 1\nprofiles:\n  staging:\n');
    writeState({ format: 1, profile: 'staging', agents: { '../../outside/escaped-agent': entry(agentId) }, suites: {}, webhooks: {}, tools: {}, intents: {} });
    const before = outsideSnapshot();
    for (const args of [['pull', '--force', '--yes'], ['diff'], ['push', '--yes', '--force', '--prune']]) {
      const r = await vap(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toContain('not a safe slug');
    }
    expect(outsideSnapshot()).toEqual(before);
    expect(existsSync(join(outside, 'escaped-agent'))).toBe(false);
  });

  it('a webhook key cannot name a path ending in .yaml elsewhere, nor a suite key a second level', async () => {
    writeFileSync(join(dir, 'vap.yaml'), 'version: 1\nprofiles:\n  staging:\n');
    for (const tampered of [
      { webhooks: { '../outside/victimdir/x': entry('we_x') } },
      { suites: { 'a/../../x': entry('ev_x') } },
      { suites: { 'a/b/c': entry('ev_x') } },
      { intents: { 'agent:../x': { op: 'create', kind: 'agent', push: 'p', at: 'now', name: 'x', target: {} } } },
      { agents: { con: entry('ag_x') } },
      { agents: { ['a'.repeat(300)]: entry('ag_x') } },
      { agents: { ok: { ...entry('ag_x'), id: '../../agents' } } },
    ]) {
      writeState({ format: 1, profile: 'staging', agents: {}, suites: {}, webhooks: {}, tools: {}, intents: {}, ...tampered });
      const r = await vap(['pull', '--force', '--yes']);
      expect(r.code, JSON.stringify(tampered)).toBe(2);
      expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
      expect(r.stderr).toMatch(/^error: \.vap\/state\.staging\.json: /);
    }
  });

  it('a state that is null, of the wrong shape, a folder, or holding a 300-character slug is exit 2 naming it, never an unexpected error', async () => {
    writeFileSync(join(dir, 'vap.yaml'), 'version: 1\nprofiles:\n  staging:\n');
    const cases: Array<[string | (() => void), RegExp]> = [
      ['null', /state\.staging\.json does not hold a state/],
      ['[]', /does not hold a state/],
      ['{"format":1,"profile":"staging","agents":{"x":{"id":7}}}', /agents\.x\.id: /],
      ['{"format":1,"profile":"staging","agents":{"x":"ag_1"}}', /agents\.x: /],
      ['{"format":2,"profile":"staging"}', /format: is not 1/],
      ['{"format":1,"profile":"prod"}', /holds the state of profile "prod"/],
      [`{"format":1,"profile":"staging","agents":{"${'a'.repeat(300)}":{"id":"ag_1","hash":"","fields":{}}}}`, /300 characters long/],
      [
        () => {
          mkdirSync(statePath(), { recursive: true });
        },
        /state\.staging\.json is not a file/,
      ],
    ];
    for (const [make, message] of cases) {
      rmSync(join(dir, '.vap'), { recursive: true, force: true });
      if (typeof make === 'string') writeState(make);
      else make();
      for (const args of [['pull'], ['diff'], ['push', '--yes']]) {
        const r = await vap(args);
        expect(r.code, `${String(make)} ${args[0]}`).toBe(2);
        expect(r.stderr).toMatch(message);
        expect(r.stderr).not.toContain('unexpected');
      }
    }
  });
});

describe('pull removes only what vap wrote', () => {
  it("a removed agent's folder keeps the user's files, and pull says so", async () => {
    const { agentId } = await seedAgent();
    const { agentId: other } = await seedAgent();
    const third = await seedAgent();
    expect((await vap(['pull', '--all'])).code).toBe(0);
    const slug = Object.entries(readState().agents).find(([, e]) => (e as { id: string }).id === agentId)![0];
    mkdirSync(join(dir, 'agents', slug, 'prompts'));
    writeFileSync(join(dir, 'agents', slug, 'NOTES.md'), 'my notes\n');
    writeFileSync(join(dir, 'agents', slug, 'prompts', 'v2.txt'), 'draft\n');
    await emu.api('DELETE', `/api/v1/agents/${agentId}`);
    const r = await vap(['pull']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`removed agents/${slug}/agent.md`);
    expect(r.stderr).toContain(`removed agents/${slug}/evals/booking.yaml`);
    expect(r.stderr).toMatch(new RegExp(`kept +agents/${slug}/: it holds files vap did not write \\(NOTES\\.md, prompts\\)`));
    expect(readFileSync(join(dir, 'agents', slug, 'NOTES.md'), 'utf8')).toBe('my notes\n');
    expect(readFileSync(join(dir, 'agents', slug, 'prompts', 'v2.txt'), 'utf8')).toBe('draft\n');
    expect(existsSync(join(dir, 'agents', slug, 'agent.md'))).toBe(false);
    // The folder left behind is no agent: the next commands work.
    expect((await vap(['diff', '--exit-code'])).code).toBe(0);
    void other;
    void third;
  });

  it("a removed agent whose file was edited keeps the file under --force (only vap's own content is removed)", async () => {
    const a = await seedAgent();
    await seedAgent();
    await seedAgent();
    expect((await vap(['pull', '--all'])).code).toBe(0);
    const slug = Object.entries(readState().agents).find(([, e]) => (e as { id: string }).id === a.agentId)![0];
    const md = join(dir, 'agents', slug, 'agent.md');
    writeFileSync(md, readFileSync(md, 'utf8').replace('Greet the caller.', 'Greet the caller warmly.'));
    await emu.api('DELETE', `/api/v1/agents/${a.agentId}`);
    const refused = await vap(['pull']);
    expect(refused.code).toBe(1);
    const r = await vap(['pull', '--force']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`kept    agents/${slug}/agent.md: its content is not the one vap last wrote`);
    expect(readFileSync(md, 'utf8')).toContain('warmly');
  });

  it("another organization's key deletes nothing: it is said, and too many 404s need --yes", async () => {
    for (let i = 0; i < 4; i++) await seedAgent();
    expect((await vap(['pull', '--all'])).code).toBe(0);
    const files = snapshot(dir);
    const r = await vap(['pull'], { org: ORG_B });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('was synced with another key');
    expect(r.stderr).toMatch(
      /error: \d+ of the \d+ resources \.vap\/state\.staging\.json tracks answer 404 .*the key probably belongs to another organization/,
    );
    expect(snapshot(dir)).toEqual(files);
    for (const args of [['diff'], ['push', '--yes', '--prune']]) {
      const d = await vap(
        args.filter((a) => a !== '--yes'),
        { org: ORG_B },
      );
      expect(d.code, args.join(' ')).toBe(2);
      expect(d.stderr).toContain('the key probably belongs to another organization');
    }
    expect(snapshot(dir)).toEqual(files);
    // The key's fingerprint, never the key, is in the state.
    const text = readFileSync(statePath(), 'utf8');
    expect(text).not.toContain(ORG_A.apiKey);
    expect(readState().origin).toMatchObject({ baseUrl: emu.url, keys: [expect.stringMatching(/^[0-9a-f]{16}$/)] });
  });

  it('a different base URL is said before anything is touched, and a terminal asks once', async () => {
    await seedAgent();
    expect((await vap(['pull', '--all'])).code).toBe(0);
    const s = readState();
    s.origin.baseUrl = 'https://api.example.com';
    writeState(s);
    const piped = await vap(['diff']);
    expect(piped.code).toBe(0);
    expect(piped.stderr).toContain(`this run uses the base URL ${emu.url} (it was synced with https://api.example.com)`);
    expect((await vap(['pull', '--yes'])).code).toBe(0);
    expect(readState().origin.baseUrl).toBe(emu.url);
    expect((await vap(['diff'])).stderr).not.toContain('synced with another');
  });
});

describe('links are never followed', () => {
  for (const link of ['agents', 'webhooks', '.vap']) {
    it(`a project whose ${link}/ is a link to a folder elsewhere is refused, naming it`, async () => {
      await seedAgent();
      const target = join(outside, 'linked');
      mkdirSync(target);
      writeFileSync(join(dir, 'vap.yaml'), 'version: 1\nprofiles:\n  staging:\n');
      symlinkSync(target, join(dir, link));
      const before = outsideSnapshot();
      for (const args of [['pull', '--all', '--force', '--yes'], ['diff'], ['push', '--yes'], ['mv', 'a', 'b']]) {
        const r = await vap(args);
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stderr).toContain(`${link} is a symbolic link; vap never reads, writes or removes through one`);
      }
      expect(outsideSnapshot()).toEqual(before);
    });
  }

  it("an agent's evals/ or folder as a link is refused, and nothing is written through it", async () => {
    const { agentId } = await seedAgent();
    expect((await vap(['pull', '--agent', agentId])).code).toBe(0);
    const slug = readdirSync(join(dir, 'agents'))[0]!;
    rmSync(join(dir, 'agents', slug, 'evals'), { recursive: true });
    symlinkSync(join(outside, 'victimdir'), join(dir, 'agents', slug, 'evals'));
    const before = outsideSnapshot();
    for (const args of [['pull', '--force', '--yes'], ['diff'], ['push', '--yes']]) {
      const r = await vap(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`^error: agents/${slug}/evals:? is a symbolic link; vap never reads, writes or removes through one`));
    }
    expect(outsideSnapshot()).toEqual(before);
  });
});

describe('text from the platform is data, never a template', () => {
  it('${vars.X} in a webhook URL, an agent name and a scenario goal round-trips: pull then push is a no-op', async () => {
    const key = ORG_A.apiKey;
    const a = await seedAgent(ORG_A, 'Desk ${vars.SECRET}', { goal: 'Say ${vars.SECRET} aloud' });
    const hook = (
      await emu.api('POST', '/api/v1/webhook-endpoints', { name: 'Hook', url: 'http://127.0.0.1:9/h?x=${vars.SECRET}', events: ['call.ended'] }, key)
    ).body.data;
    writeFileSync(join(dir, 'vap.yaml'), 'version: 1\nprofiles:\n  staging:\n    vars:\n      SECRET: hunter2\n');
    expect((await vap(['pull', '--agent', a.agentId, '--webhooks'])).code).toBe(0);
    const slug = readdirSync(join(dir, 'agents'))[0]!;
    expect(readFileSync(join(dir, 'agents', slug, 'agent.md'), 'utf8')).toContain('name: Desk ${vars.SECRET}\n');
    expect(readFileSync(join(dir, 'webhooks', 'hook.yaml'), 'utf8')).toContain('url: http://127.0.0.1:9/h?x=$${vars.SECRET}\n');
    const diff = await vap(['diff', '--exit-code']);
    expect(diff.code, diff.stdout + diff.stderr).toBe(0);
    const push = await vap(['push', '--yes']);
    expect(push.code, push.stderr).toBe(0);
    expect(push.stderr).toContain('Nothing to push');
    expect((await emu.api('GET', `/api/v1/webhook-endpoints/${hook.id}`, undefined, key)).body.data.url).toBe('http://127.0.0.1:9/h?x=${vars.SECRET}');

    // A replaced suite carries the scenario text as it is, never a variable's value.
    const suite = join(dir, 'agents', slug, 'evals', 'booking.yaml');
    writeFileSync(suite, readFileSync(suite, 'utf8').replace('persona: Maria', 'persona: Maria, in a hurry'));
    const replaced = await vap(['push', '--yes', '--replace-suite']);
    expect(replaced.code, replaced.stderr).toBe(0);
    const suites = (await emu.api('GET', `/api/v1/agents/${a.agentId}/evals`, undefined, key)).body.data.evals;
    const scenarios = (await emu.api('GET', `/api/v1/agents/${a.agentId}/evals/${suites[0].id}/scenarios`, undefined, key)).body.data.scenarios;
    expect(scenarios[0].goal).toBe('Say ${vars.SECRET} aloud');
    expect(JSON.stringify(scenarios)).not.toContain('hunter2');
  });
});

describe('an adopted webhook endpoint whose secret was never shown', () => {
  it('is said with the rotate-secret command, or rotated with --rotate-adopted-secrets', async () => {
    const key = ORG_A.apiKey;
    const created = (await emu.api('POST', '/api/v1/webhook-endpoints', { name: 'Adopted', url: 'http://127.0.0.1:9/a', events: ['call.ended'] }, key)).body
      .data;
    writeFileSync(join(dir, 'vap.yaml'), 'version: 1\nprofiles:\n  staging:\n');
    mkdirSync(join(dir, 'webhooks'));
    writeFileSync(join(dir, 'webhooks', 'adopted.yaml'), 'name: Adopted\nurl: http://127.0.0.1:9/a\nevents: [call.ended]\n');
    // What a push killed between the platform's answer and printing the secret leaves behind.
    const { fieldHashes } = await import('../../src/ascode/model.js');
    const target = fieldHashes('webhook', { name: 'Adopted', url: 'http://127.0.0.1:9/a', events: ['call.ended'] });
    writeState({
      format: 1,
      profile: 'staging',
      agents: {},
      suites: {},
      webhooks: {},
      tools: {},
      intents: { 'webhook:adopted': { op: 'create', kind: 'webhook', push: 'p1', at: new Date().toISOString(), name: 'Adopted', id: created.id, target } },
    });
    const said = await vap(['push', '--yes', '--dry-run']);
    expect(said.code).toBe(0);
    const r = await vap(['push', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `webhook adopted (${created.id}) was created by a push that was interrupted before its secret was shown, and nobody has it: make a new one with \`vap webhooks rotate-secret ${created.id}\``,
    );
    expect(readState().webhooks.adopted.id).toBe(created.id);

    // Again, rotated this time.
    const again = (await emu.api('POST', '/api/v1/webhook-endpoints', { name: 'Adopted 2', url: 'http://127.0.0.1:9/b', events: ['call.ended'] }, key)).body
      .data;
    writeFileSync(join(dir, 'webhooks', 'adopted-2.yaml'), 'name: Adopted 2\nurl: http://127.0.0.1:9/b\nevents: [call.ended]\n');
    const s = readState();
    s.intents['webhook:adopted-2'] = {
      op: 'create',
      kind: 'webhook',
      push: 'p2',
      at: new Date().toISOString(),
      name: 'Adopted 2',
      id: again.id,
      target: fieldHashes('webhook', { name: 'Adopted 2', url: 'http://127.0.0.1:9/b', events: ['call.ended'] }),
    };
    writeState(s);
    const rotated = await vap(['push', '--yes', '--rotate-adopted-secrets']);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toMatch(new RegExp(`secret of webhook adopted-2 \\(${again.id}\\): whsec_`));
    expect(/whsec_\S+/.exec(rotated.stdout)![0]).not.toBe(again.secret);
    expect((await emu.requests()).some((q) => q.method === 'POST' && q.path === `/api/v1/webhook-endpoints/${again.id}/rotate-secret`)).toBe(true);
  });
});

describe('bad local files are one-line usage errors, and nothing keeps running', () => {
  it('a YAML alias bomb is reported with its file and line', async () => {
    const { agentId } = await seedAgent();
    expect((await vap(['pull', '--agent', agentId])).code).toBe(0);
    const slug = readdirSync(join(dir, 'agents'))[0]!;
    const bomb = [
      'name: Bomb',
      'iterations: 1',
      'status: draft',
      'a: &a [x,x,x,x,x,x,x,x,x]',
      'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
      'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
      'd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
      '',
    ].join('\n');
    writeFileSync(join(dir, 'agents', slug, 'evals', 'booking.yaml'), bomb);
    const r = await vap(['diff']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^error: agents/${slug}/evals/booking\\.yaml:5: its aliases \\(\\*name\\) expand past 100 copies`));
  });

  it('a 600 MB agent.md is refused over the stated limit, unread', async () => {
    const { agentId } = await seedAgent();
    expect((await vap(['pull', '--agent', agentId])).code).toBe(0);
    const slug = readdirSync(join(dir, 'agents'))[0]!;
    const md = join(dir, 'agents', slug, 'agent.md');
    closeSync(openSync(md, 'a'));
    truncateSync(md, 600 * 1024 * 1024); // sparse: nothing is written to disk
    const r = await vap(['diff']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`agents/${slug}/agent.md: is 600 MiB, over vap's limit of 2.0 MiB for a project file`);
    expect(statSync(md).size).toBe(600 * 1024 * 1024);
  });

  it('after a local-file error against a platform answering 503, diff exits at once with no request left retrying and no stack trace', async () => {
    const { agentId } = await seedAgent();
    expect((await vap(['pull', '--agent', agentId])).code).toBe(0);
    const slug = readdirSync(join(dir, 'agents'))[0]!;
    writeFileSync(join(dir, 'agents', slug, 'agent.md'), '---\nname: [\n---\nx\n');
    await emu.clearRequests();
    await emu.fault({ path: '/api/v1/*', status: 503, count: 1000 });
    try {
      const r = await vap(['diff']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^error: agents\/.*agent\.md:2: not valid YAML/);
      expect(r.stderr).not.toMatch(/unhandled|at .*\.js:\d+|unexpected/i);
      const n = (await emu.requests()).length;
      await new Promise((res) => setTimeout(res, 1500));
      expect((await emu.requests()).length).toBe(n);
    } finally {
      await emu.control('DELETE', '/faults');
    }
  });
});

describe('small edges', () => {
  it('vap mv .., . and agents/.. name no resource and rename nothing', async () => {
    await seedAgent();
    expect((await vap(['pull', '--all'])).code).toBe(0);
    const before = snapshot(sandbox);
    for (const [from, to] of [
      ['..', 'x'],
      ['.', 'x'],
      ['agents/..', 'x'],
      [readdirSync(join(dir, 'agents'))[0]!, '..'],
      [readdirSync(join(dir, 'agents'))[0]!, 'con'],
    ]) {
      const r = await vap(['mv', from!, to!]);
      expect(r.code, `${from} ${to}`).toBe(2);
      expect(r.stderr).toMatch(/is not a slug/);
    }
    expect(snapshot(sandbox)).toEqual(before);
  });

  it('an agent.md that starts with a BOM is accepted, and kept when rewritten', async () => {
    const { agentId } = await seedAgent();
    expect((await vap(['pull', '--agent', agentId])).code).toBe(0);
    const slug = readdirSync(join(dir, 'agents'))[0]!;
    const md = join(dir, 'agents', slug, 'agent.md');
    writeFileSync(md, `\ufeff${readFileSync(md, 'utf8')}`);
    expect((await vap(['diff', '--exit-code'])).code).toBe(0);
    await emu.api('PATCH', `/api/v1/agents/${agentId}`, { instructions: 'Greet the caller twice.' });
    expect((await vap(['pull'])).code).toBe(0);
    const text = readFileSync(md, 'utf8');
    expect(text.charCodeAt(0)).toBe(0xfeff);
    expect(text).toContain('Greet the caller twice.');
  });

  it('a CRLF checkout shows no changes, and keeps its line endings when pull rewrites it', async () => {
    const { agentId } = await seedAgent();
    expect((await vap(['pull', '--agent', agentId])).code).toBe(0);
    const slug = readdirSync(join(dir, 'agents'))[0]!;
    const files = [join(dir, 'agents', slug, 'agent.md'), join(dir, 'agents', slug, 'evals', 'booking.yaml')];
    for (const f of files) writeFileSync(f, readFileSync(f, 'utf8').replace(/\n/g, '\r\n'));
    const d = await vap(['diff', '--exit-code']);
    expect(d.code, d.stdout).toBe(0);
    expect(d.stdout).not.toContain('\r');
    await emu.api('PATCH', `/api/v1/agents/${agentId}`, { instructions: 'Greet the caller.\nThen listen.' });
    expect((await vap(['pull'])).code).toBe(0);
    const text = readFileSync(files[0]!, 'utf8');
    expect(text).toContain('Greet the caller.\r\nThen listen.\r\n');
    expect(text.replace(/\r\n/g, '')).not.toContain('\n');
  });

  it('strings a YAML 1.1 reader takes as a boolean, a null or a date are written quoted', async () => {
    const key = ORG_A.apiKey;
    const a = (
      await emu.api(
        'POST',
        '/api/v1/agents',
        { name: 'yes', instructions: 'x', engine: 'realtime', variables: [{ name: 'off', description: '2001-01-01' }] },
        key,
      )
    ).body.data;
    expect((await vap(['pull', '--agent', a.id])).code).toBe(0);
    const md = readFileSync(join(dir, 'agents', 'yes', 'agent.md'), 'utf8');
    expect(md).toContain('name: "yes"\n');
    expect(md).toContain('- name: "off"\n    description: "2001-01-01"\n');
    expect((await vap(['diff', '--exit-code'])).code).toBe(0);
  });

  it('folder names Windows reserves (con, aux) are never created', async () => {
    const key = ORG_A.apiKey;
    for (const name of ['Con', 'AUX']) await emu.api('POST', '/api/v1/agents', { name, instructions: 'x', engine: 'realtime', variables: [] }, key);
    expect((await vap(['pull', '--all'])).code).toBe(0);
    const names = readdirSync(join(dir, 'agents'));
    expect(names).toContain('con-2');
    expect(names).toContain('aux-2');
    expect(names.filter((n) => /^(con|aux)$/i.test(n))).toEqual([]);
  });
});
