// `vap promote --from staging --to prod`: production gets only what passed in staging.
// In-process against one emulator holding both organizations (their tool ids differ).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benign, degrade, PROD, seedAgent, STAGING, toolId, writes, useTwoOrgProject } from '../helpers/two-orgs.js';

// Production uses the same tools, so their ids there are learned from its agents.
const t = useTwoOrgProject('vap-promote-', (emu) => seedAgent(emu, PROD, { name: 'Reception', tools: ['Calendar booking', 'CRM lookup'] }));
let n = 0;

const vap = (args: string[], env: Record<string, string | undefined> = {}) => t.vap(args, env);

/** A staging agent with a gating suite (one iteration a scenario), pulled into the project; its slug. */
async function stagingAgent(label: string, o: { suite?: boolean } = {}): Promise<{ slug: string; agentId: string }> {
  const s = await seedAgent(t.emu, STAGING, {
    name: `${label} ${++n}`,
    tools: ['Calendar booking'],
    suite: o.suite === false ? null : { name: 'Booking', iterations: 1 },
    run: false,
  });
  const r = await vap(['--profile', 'staging', 'pull', '--agent', s.agentId]);
  expect(r.code, r.stderr).toBe(0);
  return { slug: `${label.toLowerCase().replace(/ /g, '-')}-${n}`, agentId: s.agentId };
}

const md = (slug: string) => join(t.dir, 'agents', slug, 'agent.md');
const edit = (slug: string, f: (s: string) => string) => writeFileSync(md(slug), f(readFileSync(md(slug), 'utf8')));

/** A gated push to staging that passes (failed iterations are not what this file tests). */
async function gatedPush() {
  const r = await vap(['--profile', 'staging', 'push', '--yes', '--eval', '--allow-failed-iterations', '10']);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain('recorded as passed in profile "staging"');
  return r;
}

async function prodAgentNamed(name: string) {
  const list = (await t.emu.api('GET', '/api/v1/agents?limit=100', undefined, PROD.apiKey)).body.data.agents as Array<{ id: string; name: string }>;
  return list.find((a) => a.name === name);
}

describe('vap promote', () => {
  it('refuses an agent that never passed, one edited since it passed and one that drifted in staging, by name, with exit 3 and nothing sent; then carries one that passed', async () => {
    const never = await stagingAgent('Never');
    const edited = await stagingAgent('Edited');
    const drifted = await stagingAgent('Drifted');
    const good = await stagingAgent('Good');
    // In the pull request: every agent changes; the push gates three of them (never is added after it).
    for (const a of [edited, drifted, good]) edit(a.slug, benign);
    await gatedPush();
    edit(never.slug, benign);
    edit(edited.slug, (s) => s.replace('Never share', 'Never ever share'));
    expect((await t.emu.api('PATCH', `/api/v1/agents/${drifted.agentId}`, { description: 'changed in the product' }, STAGING.apiKey)).status).toBe(200);

    await t.emu.clearRequests();
    const r = await vap(['promote', '--from', 'staging', '--to', 'prod', '--yes']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toContain(`✗ agent ${never.slug}: its files have no record of passing their gating suites in profile "staging"`);
    expect(r.stdout).toContain(`✗ agent ${edited.slug}: its files were edited since they passed in profile "staging"`);
    expect(r.stdout).toContain(`✗ agent ${drifted.slug}: it drifted in profile "staging" since it passed there`);
    expect(r.stdout).toContain(`✓ agent ${good.slug}: passed in profile "staging" (a gated push`);
    expect(r.stderr).toContain(`promotion refused for agent ${drifted.slug}, agent ${edited.slug}, agent ${never.slug}`);
    expect(r.stderr).toContain('nothing was sent');
    expect(await writes(t.emu)).toEqual([]);
    expect(await prodAgentNamed(`Good ${n}`)).toBeUndefined();

    // Without the three, the one that passed is carried, with production's tool ids.
    for (const a of [never, edited, drifted]) rmSync(join(t.dir, 'agents', a.slug), { recursive: true });
    const ok = await vap(['promote', '--from', 'staging', '--to', 'prod', '--yes']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(`✓ agent ${good.slug}: passed in profile "staging" (a gated push, runs run_`);
    const carried = await prodAgentNamed(`Good ${n}`);
    expect(carried).toBeDefined();
    const agent = (await t.emu.api('GET', `/api/v1/agents/${carried!.id}`, undefined, PROD.apiKey)).body.data;
    const live = (await t.emu.api('GET', `/api/v1/agents/${good.agentId}`, undefined, STAGING.apiKey)).body.data;
    expect(agent.instructions).toBe(live.instructions);
    const tools = (await t.emu.api('GET', `/api/v1/agents/${carried!.id}/tools`, undefined, PROD.apiKey)).body.data.tools;
    expect(tools).toEqual([{ id: await toolId(t.emu, PROD, 'Calendar booking'), name: 'Calendar booking' }]);
    // Applied as a push applies: the state of prod records it, and a second promotion has nothing to do.
    expect(JSON.parse(readFileSync(join(t.dir, '.vap', 'state.prod.json'), 'utf8')).agents[good.slug].id).toBe(carried!.id);
    const again = await vap(['promote', '--from', 'staging', '--to', 'prod', '--yes']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('Nothing to push: the platform already matches the files.');
  });

  for (const [what, make, why] of [
    ['never passed', async (a: { slug: string }) => edit(a.slug, benign), 'its files have no record of passing their gating suites in profile "staging"'],
    [
      'edited since it passed',
      async (a: { slug: string }) => {
        edit(a.slug, benign);
        await gatedPush();
        edit(a.slug, (s) => s.replace('Never share', 'Never ever share'));
      },
      'its files were edited since they passed in profile "staging"',
    ],
    [
      'drifted in staging since it passed',
      async (a: { slug: string; agentId: string }) => {
        edit(a.slug, benign);
        await gatedPush();
        await t.emu.api('PATCH', `/api/v1/agents/${a.agentId}`, { name: 'Renamed in the product' }, STAGING.apiKey);
      },
      'it drifted in profile "staging" since it passed there',
    ],
  ] as const) {
    it(`alone, an agent that ${what} is refused: exit 3, named, nothing sent`, async () => {
      const a = await stagingAgent('Alone');
      await make(a);
      await t.emu.clearRequests();
      const r = await vap(['promote', '--from', 'staging', '--to', 'prod', '--yes']);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stdout).toContain(`✗ agent ${a.slug}: ${why}`);
      expect(r.stderr).toContain(`error: promotion refused for agent ${a.slug}: not what passed in profile "staging" (listed above); nothing was sent`);
      expect(await writes(t.emu)).toEqual([]);
    });
  }

  it('files a preview passed but whose gated push then failed are refused as not passed, not as drift', async () => {
    const s = await seedAgent(t.emu, STAGING, { name: `Flaky ${++n}`, tools: ['Calendar booking'], suite: { name: 'Booking', iterations: 4 } });
    expect((await vap(['--profile', 'staging', 'pull', '--agent', s.agentId])).code).toBe(0);
    const slug = `flaky-${n}`;
    edit(slug, degrade);
    // A preview with no regression gate passes the edit; the gated push then finds the regression.
    const preview = await vap(['--profile', 'staging', 'preview', '--allow-failed-iterations', '12']);
    expect(preview.code, preview.stderr).toBe(0);
    const state = () => JSON.parse(readFileSync(join(t.dir, '.vap', 'state.staging.json'), 'utf8'));
    expect(state().passed[slug]).toMatchObject({ via: 'preview' });
    const push = await vap([
      '--profile',
      'staging',
      'push',
      '--yes',
      '--eval',
      '--baseline',
      'previous',
      '--fail-on-regression',
      '--allow-failed-iterations',
      '12',
    ]);
    expect(push.code, push.stderr).toBe(3);
    expect(push.stderr).toContain(`No longer recorded as passed in profile "staging": ${slug} (their files failed this gate)`);
    expect(push.stderr).toContain(`↩ rolled back agent ${slug}`);
    expect(state().passed?.[slug]).toBeUndefined();

    await t.emu.clearRequests();
    const r = await vap(['promote', '--from', 'staging', '--to', 'prod', '--yes']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toContain(`✗ agent ${slug}: its files have no record of passing their gating suites in profile "staging"`);
    expect(r.stdout).not.toContain('drifted');
    expect(await writes(t.emu)).toEqual([]);
  });

  it('refuses an agent with no gating suite and a webhook unless --allow-unevaluated, which carries both', async () => {
    const plain = await stagingAgent('Plain', { suite: false });
    mkdirSync(join(t.dir, 'webhooks'), { recursive: true });
    writeFileSync(join(t.dir, 'webhooks', 'crm.yaml'), 'name: CRM\nurl: http://127.0.0.1:9/hook\nevents: [call.ended]\n');
    await t.emu.clearRequests();
    const r = await vap(['promote', '--from', 'staging', '--to', 'prod', '--yes']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toContain(`✗ agent ${plain.slug}: has no gating suite (gate: true) to pass; --allow-unevaluated carries it anyway`);
    expect(r.stdout).toContain('✗ webhook crm: a webhook endpoint has no evals to pass; --allow-unevaluated carries it');
    expect(await writes(t.emu)).toEqual([]);

    const ok = await vap(['promote', '--from', 'staging', '--to', 'prod', '--yes', '--allow-unevaluated']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(`✓ agent ${plain.slug}: unevaluated: it has no gating suite (--allow-unevaluated)`);
    expect(ok.stdout).toContain('✓ webhook crm: unevaluated (--allow-unevaluated)');
    expect(await prodAgentNamed(`Plain ${n}`)).toBeDefined();
    const hooks = (await t.emu.api('GET', '/api/v1/webhook-endpoints', undefined, PROD.apiKey)).body.data;
    expect(JSON.stringify(hooks)).toContain('http://127.0.0.1:9/hook');
  });

  it('--dry-run prints the plan and what passed, and sends nothing; --json gives the refusal and the promotion as data', async () => {
    const a = await stagingAgent('Dry');
    edit(a.slug, benign);
    await gatedPush();
    await t.emu.clearRequests();
    const dry = await vap(['promote', '--from', 'staging', '--to', 'prod', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`+ create    agent ${a.slug}`);
    expect(dry.stdout).toContain(`From profile "staging":\n  ✓ agent ${a.slug}: passed in profile "staging"`);
    expect(await writes(t.emu)).toEqual([]);
    const dryJson = JSON.parse((await vap(['promote', '--from', 'staging', '--to', 'prod', '--dry-run', '--json'])).stdout);
    expect(dryJson).toMatchObject({ promoteId: null, dryRun: true });
    // Confirmed as a push is: without a terminal, --yes is needed, and nothing is sent.
    const unconfirmed = await vap(['promote', '--from', 'staging', '--to', 'prod']);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('--yes');
    expect(await writes(t.emu)).toEqual([]);

    edit(a.slug, (s) => s.replace('Never share', 'Never ever share'));
    const refused = await vap(['promote', '--from', 'staging', '--to', 'prod', '--yes', '--json']);
    expect(refused.code).toBe(3);
    const rj = JSON.parse(refused.stdout);
    expect(rj).toMatchObject({ promoteId: null, from: 'staging', to: 'prod', carried: [] });
    expect(rj.refused).toEqual([{ kind: 'agent', key: a.slug, why: expect.stringContaining('edited since they passed') }]);
    expect(await writes(t.emu)).toEqual([]);

    edit(a.slug, (s) => s.replace('Never ever share', 'Never share'));
    const done = await vap(['promote', '--from', 'staging', '--to', 'prod', '--yes', '--json']);
    expect(done.code, done.stderr).toBe(0);
    const dj = JSON.parse(done.stdout);
    expect(dj.promoteId).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{4}$/);
    expect(dj.profile).toBe('prod');
    expect(dj.applied).toEqual(
      expect.arrayContaining([
        { kind: 'agent', key: a.slug, action: 'create' },
        { kind: 'suite', key: `${a.slug}/booking`, action: 'create' },
      ]),
    );
  });

  it('--eval gates in the target as push --eval does: a failed gate rolls production back, the reason naming the promotion', async () => {
    const a = await stagingAgent('Gated');
    edit(a.slug, benign);
    await gatedPush();
    expect((await vap(['promote', '--from', 'staging', '--to', 'prod', '--yes'])).code).toBe(0);
    const prodId = JSON.parse(readFileSync(join(t.dir, '.vap', 'state.prod.json'), 'utf8')).agents[a.slug].id as string;
    const from = (await t.emu.api('GET', `/api/v1/agents/${prodId}`, undefined, PROD.apiKey)).body.data.currentVersion;
    edit(a.slug, (s) => s.replace('Never share', 'Never ever share'));
    await gatedPush();
    // Production's copy scores 0 from its next version on (a known truth), while staging's runs pass.
    await t.emu.control('POST', '/evals/score-shift', { shift: -1, agentId: prodId, fromVersion: from + 1 });
    const r = await vap(['promote', '--from', 'staging', '--to', 'prod', '--yes', '--eval', '--min-score', '0.05', '--allow-failed-iterations', '10']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/error: the evals of promote \S+ failed a gate; rolled back gated-\d+/);
    const v = (await t.emu.api('GET', `/api/v1/agents/${prodId}/versions?limit=20`, undefined, PROD.apiKey)).body.data;
    expect(v.versions[0]).toMatchObject({ changeType: 'rollback', rolledBackTo: from });
    expect(v.versions[0].reason).toMatch(/^vap promote \S+: eval gate failed on gated-\d+\/booking \(--min-score 0\.05/);
  });

  it('a broken file is exit 2 with nothing written, and the reads of the target it started stop at once', async () => {
    const a = await stagingAgent('Broken');
    edit(a.slug, benign);
    await gatedPush();
    edit(a.slug, (s) => s.replace(/^name: .*$/m, 'name: ['));
    await t.emu.clearRequests();
    const r = await vap(['promote', '--from', 'staging', '--to', 'prod', '--yes']);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^error: agents/${a.slug}/agent\\.md:\\d+: not valid YAML.*nothing was sent\\n$`, 'm'));
    expect(await writes(t.emu)).toEqual([]);
    const seen = (await t.emu.requests()).length;
    await new Promise((res) => setTimeout(res, 500));
    expect((await t.emu.requests()).length).toBe(seen);
  });

  it('the same profile on both sides is a usage error; a missing key of the other profile names VAP_API_KEY_<PROFILE>', async () => {
    const same = await vap(['promote', '--from', 'staging', '--to', 'staging']);
    expect(same.code).toBe(2);
    expect(same.stderr).toContain('--from and --to are both "staging"');

    const a = await stagingAgent('Keyless');
    edit(a.slug, benign);
    await gatedPush();
    await t.emu.clearRequests();
    const noProd = await vap(['promote', '--from', 'staging', '--to', 'prod', '--yes'], { VAP_API_KEY_PROD: undefined });
    expect(noProd.code).toBe(4);
    expect(noProd.stderr).toContain('VAP_API_KEY_PROD');
    const noStaging = await vap(['promote', '--from', 'staging', '--to', 'prod', '--yes'], { VAP_API_KEY_STAGING: undefined });
    expect(noStaging.code).toBe(4);
    expect(noStaging.stderr).toContain('VAP_API_KEY_STAGING');
    expect(await writes(t.emu)).toEqual([]);
  });
});
