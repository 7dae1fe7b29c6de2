import { createHmac } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, ROOT } from '../helpers/built.js';
import { examplePages, pageExamples } from '../helpers/doc-examples.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';

// Every example of the README and of docs/ (the topics, each command group's page with the
// examples of every command's help) runs, as written, against a seeded emulator: with the
// built vap on PATH, in bash, in a folder holding the files the examples name. The ids of
// the examples (ag_123, ev_123, cl_123, a call's UUID, …) stand for the seeded resources of
// their kind, and the shell variables ($CAMPAIGN, $CALL, …) are set to them. An example
// "runs" when it exits 0, or 3 (a gate or a check that did its job). One that cannot run
// here is marked in its source (`<!-- not run: why -->`, see test/helpers/doc-examples.ts);
// an unmarked example that fails fails this test, and so does a marker that names nothing.

let emu: TestEmulator;
let work: string;
let env: Record<string, string>;
/** Pages whose examples work on the project of agents as code. */
const AS_CODE = /^(README\.md|docs\/(as-code|ci)\.md|docs\/commands\/(pull|diff|push|mv|preview|promote)\.md)$/;
/** Pages whose examples run in the real-time world (see seedCampaigns). */
const REAL_TIME = ['docs/commands/campaigns.md'];
let ids: Record<string, string> = {};

/** Runs a command line in bash as the examples are run (vap on PATH, the seeded environment). */
async function sh(command: string, opts: { env?: Record<string, string>; timeout?: number } = {}) {
  const r = await execa('bash', ['-c', command], {
    cwd: work,
    env: opts.env ?? env,
    extendEnv: false,
    reject: false,
    timeout: opts.timeout ?? 30_000,
    stdin: 'ignore',
  });
  return { code: r.timedOut ? 124 : (r.exitCode ?? 1), stdout: String(r.stdout), stderr: String(r.stderr) };
}

async function vapJson<T = any>(args: string): Promise<T> {
  const r = await sh(`vap ${args} --json`);
  if (r.code !== 0) throw new Error(`seed: vap ${args}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

async function vapQ(args: string): Promise<string> {
  const r = await sh(`vap ${args} -q`);
  // An eval run below a gate (exit 3) is a run all the same.
  if (r.code !== 0 && !(r.code === 3 && args.startsWith('evals run '))) throw new Error(`seed: vap ${args}: ${r.stderr}`);
  return r.stdout.trim().split('\n')[0]!;
}

const LEADS =
  'name,phone,email,signed_up\nAda Lovelace,+14155550100,ada@example.com,2024-03-01\nAlan Turing,(415) 555-0101,alan@example.com,2024-03-02\nGrace Hopper,not-a-phone,grace@example,2024-02-30\n';

/** The files the examples name, in the folder they run in. */
function writeFiles(dir: string): void {
  const files: Record<string, string> = {
    'leads.csv': LEADS,
    'excel-export.csv': 'name,phone\nJos\xe9 Garc\xeda,+14155550102\n',
    'export.json': JSON.stringify([{ name: 'Edsger Dijkstra', phone: '+14155550103', email: 'ed@example.com', signed_up: '2024-03-03' }]),
    'desk.md': 'You are the front desk of Acme Dental. Greet callers with "Hola, Acme Dental".\n',
    'prompt.md': 'You are the front desk. Greet callers and book appointments.\n',
    'recepcion.md': 'Eres la recepción. Saluda y agenda citas.\n',
    'support.md': 'You are support. Help customers with their orders.\n',
    'prompt.txt': "You are the intake line. Ask for the caller's name and reason.\n",
    'agent.json': JSON.stringify({ name: 'From a file', instructions: 'Greet callers.', engine: 'realtime', variables: [] }),
    'schema.json': JSON.stringify({
      fields: [
        { name: 'name', type: 'string', required: true },
        { name: 'phone', type: 'phone', required: true },
        { name: 'notes', type: 'string', required: false },
      ],
    }),
    'changes.json': JSON.stringify({ fields: [{ name: 'company', type: 'string', required: false }] }),
    'body.json': WEBHOOK_BODY,
    'vap-secret': `${WEBHOOK_SECRET}\n`,
    '.seed-leads.csv':
      'name,phone,email,signed_up\nKatherine Johnson,+14155550104,kj@example.com,2024-03-04\nDorothy Vaughan,+14155550105,dv@example.com,2024-03-05\nMary Jackson,+14155550106,mj@example.com,2024-03-06\n',
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), name === 'excel-export.csv' ? Buffer.from(text, 'latin1') : text);
  // A project's folders that examples write into (an assistant's configuration).
  for (const d of ['reports', '.cursor', '.vscode']) mkdirSync(join(dir, d), { recursive: true });
}

/** A delivery as `vap webhooks verify` checks it: the body, the secret, and a signature made now. */
const WEBHOOK_SECRET = 'whsec_docs_examples_secret';
const WEBHOOK_BODY = JSON.stringify({
  id: 'evt_1',
  type: 'call.ended',
  organizationId: 'org_1',
  callId: null,
  occurredAt: '2026-11-01T00:00:00.000Z',
  data: {},
});
function signature(): string {
  const t = Math.floor(Date.now() / 1000);
  return `t=${t},v1=${createHmac('sha256', WEBHOOK_SECRET).update(`${t}.${WEBHOOK_BODY}`).digest('hex')}`;
}

/** An emulator, the folder the examples run in (vap on PATH, the files they name), their environment and the seeded ids. */
interface World {
  emu: TestEmulator;
  work: string;
  env: Record<string, string>;
  ids: Record<string, string>;
}

async function makeWorld(timeScale: number): Promise<World> {
  const w: World = {
    emu: await startTestEmulator({ allowLoopbackUrls: true, timeScale }),
    work: mkdtempSync(join(tmpdir(), 'vap-examples-')),
    env: {},
    ids: {},
  };
  const bin = join(w.work, '.bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'vap'), `#!/bin/sh\nexec node ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(join(bin, 'vap'), 0o755);
  const home = join(w.work, '.home');
  mkdirSync(join(home, '.config/fish/completions'), { recursive: true });
  w.env = {
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOME: home,
    NO_COLOR: '1',
    VAP_BASE_URL: w.emu.url,
    VAP_API_KEY: ORG_A.apiKey,
    VAP_CONFIG_DIR: join(home, 'config'),
    VAP_STATE_DIR: join(home, 'state'),
  };
  writeFiles(w.work);
  return w;
}

/** The world the helpers below act in. */
function use(w: World): void {
  ({ emu, work, env, ids } = w);
}

let fast: World;
let slow: World | undefined;

beforeAll(async () => {
  assertBuilt();
  fast = await makeWorld(1000);
  use(fast);
  await seed();
}, 120_000);

afterAll(async () => {
  await fast?.emu.close();
  await slow?.emu.close();
});

/**
 * The campaigns' page walks one campaign through its life (contacts, queued calls, start,
 * pause, start again): on an emulator in real time, so that it is still running when the
 * page pauses it (at 1000 times, its calls would be over first).
 */
async function seedCampaigns(): Promise<void> {
  ids.agent = await vapQ('agents create --name "Front desk" --engine realtime --instructions-file desk.md');
  ids.list = await vapQ(
    'contact-lists create --name Leads --field name:string:required --field phone:phone:required --field email:email --field signed_up:date',
  );
  await sh(`vap contacts import ${ids.list} .seed-leads.csv`);
  const contactIds = (await sh(`vap contacts list ${ids.list} --all -q`)).stdout.trim().split('\n');
  [ids.ct1, ids.ct2, ids.ct3] = [contactIds[0]!, contactIds[1]!, contactIds[2]!];
  ids.campaign = await vapQ(`campaigns create --name "November renewals" --agent ${ids.agent} --contact-list ${ids.list}`);
  const phones = await emu.control<{ orgs: Array<{ org: string; phoneNumbers: Array<{ id: string }> }> }>('GET', '/phone-numbers');
  ids.phone = phones.orgs.find((o) => o.org === ORG_A.name)!.phoneNumbers[0]!.id;
  ids.inbound = await vapQ(`campaigns create --name "Front desk line" --agent ${ids.agent} --direction inbound --phone-number-id ${ids.phone}`);
  ids.apiCampaign = await vapQ(`campaigns create --name "Web callbacks" --agent ${ids.agent} --type api`);
  await sh(`vap campaigns start ${ids.apiCampaign}`);
  Object.assign(env, { AGENT: ids.agent, LIST: ids.list, CAMPAIGN: ids.campaign, INBOUND: ids.inbound, API_CAMPAIGN: ids.apiCampaign });
}

/** What the examples act on: an agent with a suite and two completed runs, a list, an import, a webhook, campaigns and their calls. */
async function seed(): Promise<void> {
  // The API has no tool listing: a tool is known by name once an agent has it.
  const tools = await emu.control<{ orgs: Array<{ org: string; tools: Array<{ id: string; name: string }> }> }>('GET', '/tools');
  const orgTools = tools.orgs.find((o) => o.org === ORG_A.name)!.tools;
  ids.tool1 = orgTools.find((t) => t.name === 'Calendar booking')!.id;
  ids.tool2 = orgTools.find((t) => t.name === 'CRM lookup')!.id;
  ids.tool3 = orgTools.find((t) => t.name === 'Transfer to human')!.id;
  ids.agent = await vapQ(
    `agents create --name "Front desk" --engine realtime --instructions-file desk.md --voice Lucía --tool ${ids.tool1} --tool ${ids.tool2} --tool ${ids.tool3}`,
  );
  // An agent no example changes, holding the tools the examples name (a tool is found by name among the agents' tools).
  await vapQ(`agents create --name Support --engine pipeline --instructions-file support.md --tool ${ids.tool1} --tool ${ids.tool2} --tool ${ids.tool3}`);
  ids.suite = await vapQ(`evals create --agent ${ids.agent} --name Booking --iterations 2`);
  await vapQ(
    `evals scenarios add ${ids.suite} --agent ${ids.agent} --name Reschedule --category happy_path --persona "A patient booked for Monday" --goal "Move the appointment to Friday"`,
  );
  await vapQ(
    `evals scenarios add ${ids.suite} --agent ${ids.agent} --name "Book a cleaning" --category happy_path --persona "Maria, polite" --goal "Book a cleaning next week"`,
  );
  await sh(`vap evals update ${ids.suite} --agent ${ids.agent} --status ready`);
  ids.run1 = await vapQ(`evals run ${ids.suite} --agent ${ids.agent} --wait`);
  ids.run2 = await vapQ(`evals run ${ids.suite} --agent ${ids.agent} --wait`);

  ids.list = await vapQ(
    'contact-lists create --name Leads --field name:string:required --field phone:phone:required --field email:email --field signed_up:date',
  );
  await sh(`vap contacts import ${ids.list} .seed-leads.csv`);
  const contacts = await vapJson<any>(`contacts list ${ids.list} --all`);
  const contactIds: string[] = (Array.isArray(contacts) ? contacts : (contacts.contacts ?? contacts.items ?? [])).map((c: any) => c.id);
  [ids.ct1, ids.ct2, ids.ct3] = [contactIds[0]!, contactIds[1]!, contactIds[2]!];
  ids.job = await vapQ(`import-jobs list --list ${ids.list}`);

  ids.hook = await vapQ(`webhooks create --name CRM --url http://127.0.0.1:9/hook --events call.ended --secret-file .seed-secret`);

  ids.campaign = await vapQ(`campaigns create --name "November renewals" --agent ${ids.agent} --contact-list ${ids.list}`);
  await sh(`vap campaigns contacts add ${ids.campaign} --contacts ${contactIds.join(',')}`);
  await sh(`vap campaigns calls queue ${ids.campaign} --all-pending`);
  await sh(`vap campaigns start ${ids.campaign}`);
  for (let i = 0; i < 200 && !ids.call; i++) {
    const calls = await sh(`vap calls list --campaign ${ids.campaign} --status completed -q`);
    ids.call = calls.stdout.trim().split('\n').filter(Boolean)[0] ?? '';
    if (!ids.call) await new Promise((r) => setTimeout(r, 100));
  }
  ids.campaignRun = (await sh(`vap campaigns runs ${ids.campaign} -q`)).stdout.trim().split('\n')[0] ?? '';
  const phones = await emu.control<{ orgs: Array<{ org: string; phoneNumbers: Array<{ id: string }> }> }>('GET', '/phone-numbers');
  ids.phone = phones.orgs.find((o) => o.org === ORG_A.name)!.phoneNumbers[0]!.id;
  ids.inbound = await vapQ(`campaigns create --name "Front desk line" --agent ${ids.agent} --direction inbound --phone-number-id ${ids.phone}`);
  ids.apiCampaign = await vapQ(`campaigns create --name "Web callbacks" --agent ${ids.agent} --type api`);

  ids.voice = (await sh(`vap voices list --language es -q`)).stdout.trim().split('\n')[0]!;

  const sources = await vapJson<any>(`evals imports sources ${ids.suite} --agent ${ids.agent}`);
  ids.callCenter = sources.callCenters[0].id;
  ids.outboundSource = sources.outboundCampaigns[0].id;
  ids.inboundSource = sources.inboundCampaigns[0].id;
  ids.recording = /\bRE[0-9A-Za-z]+/.exec((await sh(`vap calls recording ${ids.call} --json`)).stdout)?.[0] ?? 'RE_none';
  // The project the commands of agents as code work in: the examples run in it.
  await sh('vap pull --all');
  await sh('vap pull --profile staging --all');
  const candidates = await vapJson<any>(`evals imports candidates ${ids.suite} --agent ${ids.agent} --source ${ids.callCenter}`);
  const cands: any[] = candidates;
  ids.import = await vapQ(
    `evals imports create ${ids.suite} --agent ${ids.agent} --source ${ids.callCenter} --calls ${cands
      .slice(0, 2)
      .map((c) => c.id)
      .join(',')}`,
  );
  await sh(`vap evals imports triage ${ids.import} --eval ${ids.suite} --agent ${ids.agent}`);

  Object.assign(env, {
    AGENT: ids.agent,
    SUITE: ids.suite,
    RUN: ids.run2,
    RUN_ID: ids.campaignRun,
    LIST: ids.list,
    HOOK: ids.hook,
    CALL: ids.call,
    CAMPAIGN: ids.campaign,
    INBOUND: ids.inbound,
    API_CAMPAIGN: ids.apiCampaign,
    VAP_KEY: ORG_A.apiKey,
    // The profiles the examples of agents as code name: staging and prod, one organization here.
    VAP_API_KEY_STAGING: ORG_A.apiKey,
    VAP_API_KEY_PROD: ORG_A.apiKey,
    WHSEC: WEBHOOK_SECRET,
  });
}

/** Resources made for one destructive example, so that it deletes (or rotates, clears) something of its own. */
async function fresh(command: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  if (/\bag_|\$AGENT/.test(command) && /\bagents\b/.test(command))
    out.agent = await vapQ(`agents create --name "To delete" --engine realtime --instructions "Hi." --tool ${ids.tool1}`);
  if (/\bevals\b.*\bdelete\b/.test(command) && !/\bruns\b/.test(command)) out.suite = await vapQ(`evals create --agent ${ids.agent} --name "To delete"`);
  if (/\bruns delete\b/.test(command)) out.run2 = await vapQ(`evals run ${ids.suite} --agent ${ids.agent} --wait`);
  if (/\bwebhooks\b/.test(command))
    out.hook = await vapQ(`webhooks create --name "To delete" --url http://127.0.0.1:9/hook --events call.ended --secret-file .fresh-secret-${Date.now()}`);
  if (SCHEMA.test(command))
    out.list = await vapQ(`contact-lists create --name "To change" --field name:string:required --field phone:phone:required --field email:email`);
  if (/\bcampaigns contacts remove\b/.test(command)) {
    out.campaign = await vapQ(`campaigns create --name "To empty" --agent ${ids.agent} --contact-list ${ids.list}`);
    await sh(`vap campaigns contacts add ${out.campaign} --contacts ${ids.ct1},${ids.ct2},${ids.ct3}`);
  }
  if (/\bcampaigns (delete|update)\b/.test(command))
    out.campaign = await vapQ(`campaigns create --name "To delete" --agent ${ids.agent} --contact-list ${ids.list}`);
  return out;
}

/** An example's ids made the seeded ones: each placeholder of the manual stands for the resource of its kind. */
function substitute(command: string, own: Record<string, string> = {}): string {
  const id = (k: string) => own[k] ?? ids[k]!;
  const table: Array<[RegExp, string]> = [
    [/\bag_(?:123|456|789|3k9x0c1m2p8q7r4t)\b/g, id('agent')],
    [/\bev_(?:123|456)\b/g, id('suite')],
    [/\brun_001\b/g, id('run1')],
    [/\brun_(?:789|002)\b/g, id('run2')],
    [/\bcl_(?:123|456)\b/g, id('list')],
    [/\bct_1\b/g, id('ct1')],
    [/\bct_[29]\b/g, id('ct2')],
    [/\bct_3\b/g, id('ct3')],
    [/\bwe_123\b/g, id('hook')],
    [/\bjob_123\b/g, id('job')],
    [/\bimp_(?:789\b|…)/g, id('import')],
    [/\bcc_(?:7h2k(?:\.\.\.)?|1\b|…)/g, id('callCenter')],
    [/\bpn_1\b/g, id('phone')],
    [/\btool_(?:calendar01|b)\b/g, id('tool1')],
    [/\btool_crm02\b/g, id('tool2')],
    [/\bvoice_(?:znruc1uit24f|x)\b/g, id('voice')],
    [
      /\b(?:0b6d2f7c-5b8e-4c8e-9d0e-3f7a1c2b4d5e|d44e6810-1f03-4f32-a301-15479464f30c|15eb9c0a-b827-44ef-9aa0-55bc6ec1c5f8)\b|\bcall_8f2k1m\b|<callId>/g,
      id('call'),
    ],
    // `0b7c…` is a campaign of the kind the command takes: an API campaign is triggered, an inbound one has --inbound figures.
    [/\btrigger 0b7c…/g, `trigger ${id('apiCampaign')}`],
    [/\b0b7c…(?= --inbound)/g, id('inbound')],
    [/\b6f1c2a9e-…|\b0b7c…/g, id('campaign')],
    [/\b5e21…/g, id('campaignRun')],
    [/\b6f1c2d3e-…|\b6f1c…/g, id('inboundSource')],
    [/\b3f1e\.\.\./g, id('outboundSource')],
    [/\bRE1f…/g, id('recording')],
    [/http:\/\/127\.0\.0\.1:4010/g, emu.url],
  ];
  let out = table.reduce((c, [re, v]) => c.replace(re, v), command);
  if (own.campaign) out = out.replace(/\$CAMPAIGN\b/g, own.campaign);
  return out;
}

/** Examples that change what others read run after them, on their page: deletions, cancellations, rotations. */
const DESTRUCTIVE = /\b(delete|rm|cancel|remove|rotate-secret|logout)\b|--clear\b/;
/** Examples that change a list's schema, which the imports of other examples rely on: a list of their own. */
const SCHEMA = /update-schema|contact-lists\/cl_\w+\/schema/;

const pages = examplePages(ROOT);

describe('the examples of the README and docs/', () => {
  it('are found on the pages, and every "not run" marker names an example', () => {
    const all = pages.flatMap((p) => pageExamples(ROOT, p));
    expect(all.length).toBeGreaterThan(300);
    expect(all.filter((e) => e.page === 'README.md' && !e.notRun).length).toBeGreaterThan(8);
  });

  it.each(pages)(
    '%s: each runs against the emulator, or says why not',
    async (page) => {
      if (REAL_TIME.includes(page)) {
        if (!slow) {
          slow = await makeWorld(1);
          use(slow);
          await seedCampaigns();
        }
        use(slow);
      } else {
        use(fast);
        // The commands of agents as code start in a project of their own, pulled from the
        // platform (the seeded agent and its suite), whatever the pages before changed there.
        if (AS_CODE.test(page)) {
          work = mkdtempSync(join(fast.work, '.project-'));
          writeFiles(work);
          for (const profile of ['default', 'staging']) await sh(`vap pull --agent ${ids.agent} --profile ${profile}`);
        }
      }
      const examples = pageExamples(ROOT, page).filter((e) => !e.notRun);
      const ordered = [...examples.filter((e) => !DESTRUCTIVE.test(e.command)), ...examples.filter((e) => DESTRUCTIVE.test(e.command))];
      const failed: string[] = [];
      // A page's examples share its shell variables (`export VAP_AGENT=…` holds for the rest of
      // the page); each runs with a state folder of its own, as on a machine of its own.
      const pageEnv: Record<string, string> = { ...env, SIG: signature() };
      for (const e of ordered) {
        const own = DESTRUCTIVE.test(e.command) || SCHEMA.test(e.command) ? await fresh(e.command) : {};
        // A campaign's run is known once the page has started it.
        if (/\$RUN_ID|5e21…/.test(e.command))
          pageEnv.RUN_ID = ids.campaignRun = (await sh(`vap campaigns runs ${ids.campaign} -q`)).stdout.trim().split('\n')[0] ?? '';
        const command = substitute(e.command, own);
        const exported = /^export (\w+)=(\S+)$/.exec(command);
        if (exported) {
          pageEnv[exported[1]!] = exported[2]!;
          continue;
        }
        const state = mkdtempSync(join(work, '.state-'));
        const r = await sh(command, { env: { ...pageEnv, VAP_STATE_DIR: state }, timeout: 20_000 });
        const ok = e.exits === undefined ? r.code === 0 || r.code === 3 : r.code === e.exits;
        if (!ok)
          failed.push(
            `${e.page}:${e.line}: ${e.command}\n    exit ${r.code}${e.exits === undefined ? '' : ` (${e.exits} expected)`}: ${(r.stderr.trim() || r.stdout.trim()).split('\n').slice(-2).join(' | ').slice(0, 300)}`,
          );
      }
      expect(failed.join('\n')).toBe('');
    },
    300_000,
  );
});
