import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import type { Command } from 'commander';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { assertBuilt, BIN, ROOT } from '../helpers/built.js';
import { startHookSink, type HookSink } from '../helpers/hook-sink.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { rows, waitFor } from '../helpers/emulator-workload.js';
import { testStateDir } from '../helpers/state-dir.js';
import { hasTmux, shellQuote, TmuxSession } from '../helpers/tmux.js';

// Every listing and every live view of the command tree, in a real terminal at 80 and at 40
// columns, against an emulator seeded with real-looking data (UUID call and campaign ids,
// long names, descriptions and summaries): no line on the screen is wider than the pane.
// tmux wraps a wider line and `capture-pane -J` joins it back, so a table cell, a hint or a
// progress frame that does not fit shows up as a long line; so does the trail a redrawn
// progress line leaves when it is wider than the terminal. The verbs are taken from the
// command tree itself: a verb that lists (its module prints through Output.list or the calls
// table) and is not run here fails the test, so no new listing escapes it.

const WIDTHS = [80, 40];

/** The verbs run here: their command line, from the seeded ids. */
type Line = (s: Seeded) => string;

/** Every listing: a table of records on a terminal. */
const LISTINGS: Record<string, Line> = {
  'config list': () => 'config list',
  'agents list': () => 'agents list',
  'agents versions': (s) => `agents versions ${s.agentId}`,
  'agents tools': (s) => `agents tools ${s.agentId}`,
  'voices list': () => 'voices list',
  'tools list': () => 'tools list',
  'evals list': (s) => `evals list --agent ${s.agentId}`,
  'evals scenarios list': (s) => `evals scenarios list ${s.evalId} --agent ${s.agentId}`,
  'evals runs list': (s) => `evals runs list ${s.evalId} --agent ${s.agentId}`,
  'evals runs results': (s) => `evals runs results ${s.evalId} ${s.runId} --agent ${s.agentId}`,
  'evals imports sources': (s) => `evals imports sources ${s.evalId} --agent ${s.agentId}`,
  'evals imports candidates': (s) => `evals imports candidates ${s.evalId} --agent ${s.agentId} --source ${s.sourceId}`,
  'evals imports list': (s) => `evals imports list ${s.evalId} --agent ${s.agentId}`,
  'evals imports calls': (s) => `evals imports calls ${s.evalId} ${s.importId} --agent ${s.agentId}`,
  'evals imports create-scenarios': (s) => `evals imports create-scenarios ${s.evalId} ${s.importId} --agent ${s.agentId} --all`,
  'events types': () => 'events types',
  'webhooks list': () => 'webhooks list',
  'webhooks deliveries': (s) => `webhooks deliveries ${s.endpointId}`,
  'calls list': () => 'calls list',
  'calls recording': (s) => `calls recording ${s.callId}`,
  'calls transcript': (s) => `calls transcript ${s.callId}`,
  'campaigns list': () => 'campaigns list',
  'campaigns contacts list': (s) => `campaigns contacts list ${s.campaignId}`,
  'campaigns calls list': (s) => `campaigns calls list ${s.campaignId}`,
  'campaigns calls queue': (s) => `campaigns calls queue ${s.draftId} --all-pending`,
  'campaigns runs': (s) => `campaigns runs ${s.campaignId}`,
  'contact-lists list': () => 'contact-lists list',
  'contact-lists create': () =>
    'contact-lists create --name "Patients of the north-east practice, spring recall" --field name:string:required --field phone:phone:required --field preferred_contact_time:string --dry-run',
  'contacts list': (s) => `contacts list ${s.listId}`,
  'import-jobs list': () => 'import-jobs list',
};

/** The columns each listing keeps at any width (its ColumnPolicy, src/ui/columns.ts): what it is for. */
const KEPT: Record<string, string[]> = {
  'evals list': ['ID', 'NAME', 'STATUS'],
  'evals scenarios list': ['ID', 'NAME', 'CATEGORY'],
  'evals runs list': ['ID', 'RUN', 'STATUS', 'SCORE'],
  'evals imports sources': ['TYPE', 'ID', 'NAME'],
  'evals imports candidates': ['ID', 'STARTED'],
  'evals imports list': ['ID', 'LABEL', 'STATUS'],
  'evals imports calls': ['ID', 'TRIAGE'],
  'config list': ['KEY', 'VALUE'],
  'agents list': ['ID', 'NAME'],
  'agents versions': ['VERSION', 'CHANGE', 'CURRENT'],
  'agents tools': ['ID', 'NAME'],
  'voices list': ['ID', 'NAME', 'LANGUAGE'],
  'tools list': ['ID', 'NAME'],
  'events types': ['TYPE'],
  'webhooks list': ['ID', 'NAME', 'ENABLED'],
  'webhooks deliveries': ['ID', 'EVENT', 'STATUS'],
  'calls list': ['ID', 'STATUS', 'CALLEE'],
  'calls recording': ['SID'],
  'campaigns list': ['ID', 'NAME', 'STATUS'],
  'campaigns contacts list': ['CONTACT', 'NAME', 'STATUS'],
  'campaigns calls list': ['ID', 'STATUS', 'NAME'],
  'campaigns calls queue': ['ID', 'STATUS', 'NAME'],
  'campaigns runs': ['ID', 'STARTED', 'CALLS', 'COMPLETED'],
  'contact-lists list': ['ID', 'NAME', 'CONTACTS'],
  'contact-lists create': ['FIELD', 'TYPE', 'REQUIRED'],
  'contacts list': ['ID', 'NAME'],
  'import-jobs list': ['ID', 'STATUS'],
};

/** Listings that are not drawn as a table on a terminal (a transcript is a chat there, a run's results each a transcript and its scores). */
const NOT_A_TABLE = new Set(['calls transcript', 'evals runs results']);

/** Every detail view: one record, its facts under labels (`get` of each group, and what reads like one). */
const DETAILS: Record<string, Line> = {
  'auth status': () => 'auth status',
  'agents get': (s) => `agents get ${s.agentId}`,
  'evals get': (s) => `evals get ${s.evalId} --agent ${s.agentId}`,
  'webhooks get': (s) => `webhooks get ${s.endpointId}`,
  'calls get': (s) => `calls get ${s.callId}`,
  'campaigns get': (s) => `campaigns get ${s.campaignId}`,
  'contact-lists get': (s) => `contact-lists get ${s.listId}`,
  'import-jobs get': (s) => `import-jobs get ${s.jobId}`,
  'analytics overview': () => 'analytics overview',
};

/** Listings that show no id (settings, event types, a schema's fields, a transcript as a chat): no --wide. */
const WITHOUT_IDS = new Set(['config list', 'events types', 'contact-lists create', 'calls transcript']);

/** Every live view: drawn while it runs (progress bars, watches, streams). Each has its own test below. */
const LIVE_VIEWS = [
  'events tail',
  'calls tail',
  'evals run',
  'evals runs get',
  'push',
  'preview',
  'promote',
  'import-jobs watch',
  'campaigns analytics',
  'contacts import',
  'evals imports triage',
  'webhooks listen',
  'calls audio',
];

/** The other verbs, and why they are neither: they print a record, a prompt, a file or a message. */
const NEITHER: Record<string, string> = {
  'auth login': 'a prompt',
  'auth logout': 'a message',
  'config get': 'one value',
  'config set': 'a message',
  'agents create': 'a detail view',
  'agents update': 'a detail view',
  'agents delete': 'a prompt',
  'agents rollback': 'a detail view',
  'agents voice': 'a detail view',
  'voices preview': 'a file',
  'evals create': 'a detail view',
  'evals update': 'a detail view',
  'evals delete': 'a prompt',
  'evals scenarios add': 'a detail view',
  'evals runs delete': 'a prompt',
  'evals runs diff': 'a report (its tables fit as the listings do)',
  'agents bisect': 'a report: a line a step, then the result',
  bisect: 'a report: a line a step, then the result',
  'evals import': 'the wizard: prompts',
  'evals imports create': 'a detail view',
  'webhooks create': 'a detail view',
  'webhooks update': 'a detail view',
  'webhooks enable': 'a message',
  'webhooks disable': 'a message',
  'webhooks rotate-secret': 'a secret',
  'webhooks delete': 'a prompt',
  'webhooks verify': 'a verdict',
  'calls cancel': 'a message',
  'campaigns create': 'a detail view',
  'campaigns update': 'a detail view',
  'campaigns delete': 'a prompt',
  'campaigns start': 'a message',
  'campaigns pause': 'a message',
  'campaigns trigger': 'a detail view',
  'campaigns contacts add': 'a message',
  'campaigns contacts remove': 'a message',
  'contact-lists update-schema': 'a prompt',
  'import-jobs cancel': 'a message',
  'emulator start': 'a server',
  pull: 'files',
  diff: 'a plan',
  mv: 'files',
  api: 'a raw response',
  completion: 'a script',
  'github comment': 'a request to GitHub',
  'mcp config': 'a configuration snippet',
};

interface Seeded {
  agentId: string;
  evalId: string;
  runId: string;
  sourceId: string;
  importId: string;
  untriagedImportId: string;
  endpointId: string;
  callId: string;
  campaignId: string;
  draftId: string;
  listId: string;
  jobId: string;
  dir: string;
}

/** Every verb of the command tree (`group verb`, `group subgroup verb`, or a group that is a verb) with its long options. */
async function commandTree(): Promise<Map<string, string[]>> {
  const program = await buildProgram([], { stdout: process.stdout, stderr: process.stderr }, () => Promise.reject(new Error('not run')), true);
  const out = new Map<string, string[]>();
  const walk = (cmd: Command, path: string[]) => {
    // Help topics are hidden commands (`vap help accessibility`): pages of text, not verbs.
    const subs = cmd.commands.filter((c) => c.name() !== 'help' && !(c as Command & { _hidden?: boolean })._hidden);
    if (subs.length === 0 && path.length > 0)
      out.set(
        path.join(' '),
        cmd.options.map((o) => o.long ?? ''),
      );
    for (const c of subs) walk(c, [...path, c.name()]);
  };
  walk(program, []);
  return out;
}

/**
 * The verbs whose module lists records: it prints through Output.list (`out.list(`) or the
 * calls table. One verb per file under src/commands/<group>/ (a subgroup a folder), so the
 * file's place and its `new Command('name')` give the verb.
 */
function listingVerbsInSource(): string[] {
  const base = join(ROOT, 'src', 'commands');
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts')) {
        const text = readFileSync(p, 'utf8');
        const name = /new Command\('([^']+)'\)/.exec(text)?.[1];
        if (!name || !/\bout\.list\s*(<[^>(]*>)?\(|callTableRow\(/.test(text)) continue;
        const groups = relative(base, dir).split(sep).filter(Boolean);
        found.push([...groups, name].join(' '));
      }
    }
  };
  walk(base);
  return found.sort();
}

let emu: TestEmulator;
let seeded: Seeded;
let receiver: HookSink | undefined;
let receiverUrl: string;
let configDir: string;

const env = () => ({
  VAP_BASE_URL: emu.url,
  VAP_API_KEY: ORG_A.apiKey,
  VAP_API_KEY_STAGING: ORG_A.apiKey,
  VAP_CONFIG_DIR: configDir,
  VAP_STATE_DIR: testStateDir(),
  NO_COLOR: '1',
  TERM: 'xterm-256color',
});

const LONG_DESCRIPTION =
  'Calls patients of the north-east practice two days before their appointment to confirm, move or cancel it, and books a cleaning when one is due';
const LONG_SUMMARY =
  'Margaret Hamilton asked not to be called again and said her lawyer would hear about the repeated calls; the agent confirmed the number was removed from the calling list.';

async function seed(): Promise<Seeded> {
  const must = async (method: string, path: string, body?: unknown) => {
    const r = await emu.api(method, path, body);
    if (r.status < 200 || r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const tools = (await emu.control<{ orgs: Array<{ tools: Array<{ id: string }> }> }>('GET', '/tools?org=acme')).orgs[0]!.tools;
  const voices = (await must('GET', '/api/v1/voices')).data.voices as Array<{ id: string }>;
  const agentId = (
    await must('POST', '/api/v1/agents', {
      name: 'North-east practice appointment reminders and rebooking',
      engine: 'realtime',
      description: LONG_DESCRIPTION,
      instructions: 'You are Ava from Bright Dental. You call patients to remind them about their appointments. Always confirm the date of birth.',
    })
  ).data.id as string;
  await must('PUT', `/api/v1/agents/${agentId}/tools`, { toolIds: tools.map((t) => t.id) });
  await must('PUT', `/api/v1/agents/${agentId}/voice`, { voiceId: voices[1]!.id });
  await must('PATCH', `/api/v1/agents/${agentId}`, {
    instructions:
      'You are Ava from Bright Dental. You call patients to remind them about their appointments and rebook them. Always confirm the date of birth.',
  });

  const listId = (
    await must('POST', '/api/v1/contact-lists', {
      name: 'Patients of the north-east practice due for a recall this spring',
      schema: {
        fields: [
          { name: 'name', type: 'string', required: true },
          { name: 'phone', type: 'phone', required: true },
          { name: 'preferred_contact_time', type: 'string' },
        ],
      },
    })
  ).data.id as string;
  const job = await must('POST', `/api/v1/contact-lists/${listId}/contacts`, {
    contacts: rows('Patient with a rather long name', 30, 5).map((r) => ({
      ...r,
      preferred_contact_time: 'weekday mornings before the school run, never on Fridays',
    })),
  });
  await waitFor(async () => (await must('GET', `/api/v1/import-jobs/${job.jobId}`)).status === 'completed');
  const jobId = job.jobId as string;
  const contactIds = ((await must('GET', `/api/v1/contact-lists/${listId}/contacts?limit=100`)).data as Array<{ id: string }>).map((c) => c.id);

  const endpointId = (
    await must('POST', '/api/v1/webhook-endpoints', {
      name: 'CRM sync for the north-east practice',
      url: receiverUrl,
      events: ['call.ended', 'call.started', 'campaign.status.updated', 'eval.run.completed'],
    })
  ).data.id as string;

  const campaignId = (
    await must('POST', '/api/v1/campaigns', {
      name: 'Spring recall for the north-east practice, first wave',
      description: LONG_DESCRIPTION,
      direction: 'outbound',
      contactListId: listId,
      agentId,
    })
  ).data.id as string;
  await must('POST', `/api/v1/campaigns/${campaignId}/contacts`, { contactIds: contactIds.slice(0, 10) });
  await must('POST', `/api/v1/campaigns/${campaignId}/calls`, { queueAllPending: true, priority: 7 });
  await must('POST', `/api/v1/campaigns/${campaignId}/start`);
  const draftId = (
    await must('POST', '/api/v1/campaigns', { name: 'Spring recall, second wave (draft)', direction: 'outbound', contactListId: listId, agentId })
  ).data.id as string;
  await must('POST', `/api/v1/campaigns/${draftId}/contacts`, { contactIds: contactIds.slice(10, 20) });
  await emu.control('POST', '/calls/seed', { org: 'acme', count: 40 });
  await waitFor(async () => (await must('GET', `/api/v1/campaigns/${campaignId}`)).data.status === 'completed', 30_000);
  const calls = (await must('GET', `/api/v1/calls?campaignId=${campaignId}&status=completed`)).data.calls as Array<{ id: string }>;

  const evalId = (
    await must('POST', `/api/v1/agents/${agentId}/evals`, { name: 'Appointment reminders: booking, moving and cancelling', iterationsPerScenario: 2 })
  ).data.id as string;
  for (const [name, category] of [
    ['Books a cleaning for next week after a reminder call', 'happy_path'],
    ['Wants a human and will not talk to a machine', 'escalation'],
  ] as const) {
    await must('POST', `/api/v1/agents/${agentId}/evals/${evalId}/scenarios`, {
      name,
      persona: 'A caller in a hurry who talks over the agent',
      goal: `${name} today`,
      category,
    });
  }
  await must('PATCH', `/api/v1/agents/${agentId}/evals/${evalId}`, { status: 'ready' });
  const runId = (await must('POST', `/api/v1/agents/${agentId}/evals/${evalId}/runs`)).data.id as string;
  await waitFor(async () => (await must('GET', `/api/v1/agents/${agentId}/evals/${evalId}/runs/${runId}`)).data.run.status === 'completed', 30_000);
  const sources = (await must('GET', `/api/v1/agents/${agentId}/evals/${evalId}/imports/sources`)).data;
  const sourceId = sources.callCenters[0].id as string;
  const cands = (await must('GET', `/api/v1/agents/${agentId}/evals/${evalId}/imports/candidates?sourceType=call_center&sourceId=${sourceId}&pageSize=12`)).data
    .calls as Array<{ id: string }>;
  const importId = (
    await must('POST', `/api/v1/agents/${agentId}/evals/${evalId}/imports`, {
      sourceType: 'call_center',
      sourceId,
      callIds: cands.slice(0, 4).map((c) => c.id),
    })
  ).data.id as string;
  await must('POST', `/api/v1/agents/${agentId}/evals/${evalId}/imports/${importId}/triage`, { batchSize: 4 });
  const untriagedImportId = (
    await must('POST', `/api/v1/agents/${agentId}/evals/${evalId}/imports`, {
      sourceType: 'call_center',
      sourceId,
      callIds: cands.slice(4, 12).map((c) => c.id),
    })
  ).data.id as string;

  // An as-code project with a gating suite: its first push creates the agent and runs the gate.
  const dir = mkdtempSync(join(tmpdir(), 'vap-fit-ascode-'));
  writeFileSync(join(dir, 'vap.yaml'), 'version: 1\nprofiles:\n  default: {}\n');
  mkdirSync(join(dir, 'agents', 'reception', 'evals'), { recursive: true });
  writeFileSync(
    join(dir, 'agents', 'reception', 'agent.md'),
    '---\nname: Reception of the north-east practice\nengine: realtime\nvoice: { name: Ava, language: en-US }\n---\nYou are the receptionist.\nGreet callers with "Hello".\n',
  );
  writeFileSync(
    join(dir, 'agents', 'reception', 'evals', 'smoke.yaml'),
    'name: Smoke test of the greeting and the booking flow\nstatus: ready\ngate: true\niterations: 3\ncriteria:\n  - { key: goal_completion, name: Goal, weight: 2 }\n  - { key: tone, name: Tone, weight: 2 }\nscenarios:\n  - { name: Greeting, category: happy_path, persona: "Ana, polite", goal: Get a greeting }\n  - { name: Booking, category: happy_path, persona: "Tom, in a hurry", goal: Book a cleaning }\n',
  );
  return { agentId, evalId, runId, sourceId, importId, untriagedImportId, endpointId, callId: calls[0]!.id, campaignId, draftId, listId, jobId, dir };
}

/** The screen's lines wider than the pane (trailing blanks aside, and the `^C` the terminal echoes for Ctrl-C), measured in display columns. */
function tooWide(screen: string, width: number): string[] {
  return screen
    .split('\n')
    .map((l) => l.replace(/\s+$/, '').replace(/^\^C/, ''))
    .filter((l) => stringWidth(l) > width);
}

function session(command: string, width: number): TmuxSession {
  return new TmuxSession(`node ${shellQuote(BIN)} ${command}`, { env: env(), width, height: 60 });
}

/** Runs a command to its end in a pane `width` wide; the screen, whose lines all fit, and the exit code. */
async function runAt(command: string, width: number, opts: { fits?: boolean } = {}): Promise<{ screen: string; code: number }> {
  const tty = session(command, width);
  try {
    const code = await tty.exitCode(30_000);
    const screen = tty.capture();
    if (opts.fits !== false) expect(tooWide(screen, width), `\`vap ${command}\` at ${width} columns:\n${screen}`).toEqual([]);
    return { screen, code };
  } finally {
    tty.kill();
  }
}

/** Captures the screen every 100 ms until `done` says so; every capture's lines must fit. */
async function watchWhile(tty: TmuxSession, width: number, label: string, done: (screen: string) => boolean, timeoutMs = 30_000): Promise<string> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const screen = tty.capture();
    expect(tooWide(screen, width), `${label} at ${width} columns:\n${screen}`).toEqual([]);
    if (done(screen)) return screen;
    if (Date.now() > end) throw new Error(`${label}: timed out; the screen:\n${screen}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const exited = (s: string) => /\[exit \d+\]/.test(s);
const exitOf = (s: string) => Number(/\[exit (\d+)\]/.exec(s)?.[1]);

describe.skipIf(!hasTmux())('every listing and live view fits the pane (tmux at 80 and 40 columns)', () => {
  beforeAll(async () => {
    assertBuilt();
    receiver = await startHookSink();
    receiverUrl = receiver.url;
    configDir = mkdtempSync(join(tmpdir(), 'vap-fit-config-'));
    emu = await startTestEmulator({ allowLoopbackUrls: true });
    seeded = await seed();
  }, 120_000);
  afterAll(async () => {
    await emu?.close();
    await receiver?.close();
  });

  it('covers the whole command surface: every verb is a listing, a live view or neither, each listing is run here, and each with ids takes --wide', async () => {
    const tree = await commandTree();
    const classified = new Set([...Object.keys(LISTINGS), ...Object.keys(DETAILS), ...LIVE_VIEWS, ...Object.keys(NEITHER)]);
    expect(
      [...tree.keys()].filter((v) => !classified.has(v)),
      'verbs not classified here: add each to LISTINGS, LIVE_VIEWS or NEITHER',
    ).toEqual([]);
    expect(
      [...classified].filter((v) => !tree.has(v)),
      'classified verbs the tree does not have',
    ).toEqual([]);
    expect(
      listingVerbsInSource().filter((v) => !(v in LISTINGS)),
      'verbs that list records but are not run by this test',
    ).toEqual([]);
    const undeclared = Object.keys(LISTINGS).filter((v) => v !== 'evals imports create-scenarios' && !NOT_A_TABLE.has(v) && !(v in KEPT));
    expect(undeclared, 'listings whose kept columns this test does not check: add each to KEPT').toEqual([]);
    for (const verb of Object.keys(LISTINGS)) expect(tree.get(verb)!.includes('--wide'), `${verb} --wide`).toBe(!WITHOUT_IDS.has(verb));
    for (const verb of ['events tail', 'calls tail']) expect(tree.get(verb)).toContain('--wide');
  });

  for (const width of WIDTHS) {
    it(`every listing at ${width} columns: no line wider than the pane`, async () => {
      const verbs = Object.entries(LISTINGS);
      // A few panes at once: each command is a process of its own.
      for (let i = 0; i < verbs.length; i += 4) {
        await Promise.all(
          verbs.slice(i, i + 4).map(async ([verb, line]) => {
            const { code, screen } = await runAt(line(seeded), width);
            expect(code, `${verb}:\n${screen}`).toBe(0);
            // What the listing is for stays: each kept column is in the header row.
            const kept = KEPT[verb];
            // `campaigns calls queue` queues the draft's pending calls: a table at the first width only.
            const header = kept && screen.split('\n').find((l) => l.startsWith(kept[0]!));
            if (kept && (header !== undefined || verb !== 'campaigns calls queue')) {
              expect((header ?? '').trim().split(/\s{2,}/), `${verb} at ${width} columns:\n${screen}`).toEqual(expect.arrayContaining(kept));
            }
          }),
        );
      }
    }, 180_000);

    it(`every detail view at ${width} columns: no line wider than the pane`, async () => {
      const verbs = Object.entries(DETAILS);
      for (let i = 0; i < verbs.length; i += 4) {
        await Promise.all(
          verbs.slice(i, i + 4).map(async ([verb, line]) => {
            const { code, screen } = await runAt(line(seeded), width);
            expect(code, `${verb}:\n${screen}`).toBe(0);
          }),
        );
      }
    }, 120_000);

    it(`calls get at ${width} columns: the id whole, the trailer wrapped between words with its command whole where it fits`, async () => {
      const { code, screen } = await runAt(`calls get ${seeded.callId}`, width);
      expect(code).toBe(0);
      const lines = screen.split('\n').map((l) => l.trimEnd());
      // The id is never split: a line holds it whole.
      expect(lines.some((l) => l.includes(seeded.callId))).toBe(true);
      expect(screen).toMatch(/^Call\b/m);
      expect(screen).toMatch(/completed · outbound · \d/);
      // The trailer reads as one sentence when its lines are joined with a space: no word was split.
      const start = lines.findIndex((l) => l.startsWith('Analysed '));
      const end = lines.findIndex((l, i) => i >= start && l.endsWith('for every field'));
      expect(start, screen).toBeGreaterThan(-1);
      expect(lines.slice(start, end + 1).join(' ')).toMatch(new RegExp(`^Analysed .+ · vap calls get ${seeded.callId} --json for every field$`));
      // Where the command fits a line, it is on one, to be copied whole.
      if (width === 80) expect(lines.slice(start, end + 1).some((l) => l.includes(`vap calls get ${seeded.callId} --json`))).toBe(true);
    });

    it(`calls list at ${width} columns: one line a row, short ids; --wide for whole ids and every column`, async () => {
      const { screen } = await runAt('calls list --limit 12', width);
      const rows = screen.split('\n').filter((l) => /^[0-9a-f]{8}  /.test(l));
      expect(rows).toHaveLength(12);
      // --wide: whole ids and every column, not fitted (a row may wrap: the person asked for all of it).
      const wide = await runAt('calls list --limit 3 --wide', width, { fits: false });
      expect(wide.screen.split('\n').filter((l) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}  /.test(l))).toHaveLength(3);
      expect(wide.screen).toMatch(/DIRECTION.*PHONE.*CREATED/);
    });

    it(`events tail and calls tail at ${width} columns: the views, their notices and the resume hint fit`, async () => {
      const callId = randomUUID();
      const publish = (type: string, data: Record<string, unknown>) => emu.control<{ lastId: string }>('POST', '/events', { type, callId, data });
      const first = (await publish('call.status.updated', { status: 'ringing', previousStatus: 'initiated' })).lastId;
      await publish('call.started', {
        status: 'in_progress',
        direction: 'outbound',
        phoneNumber: '+14155550108',
        calleeName: 'Margaret Hamilton',
        agentId: seeded.agentId,
        agentVersion: 2,
        campaignId: seeded.campaignId,
      });
      await publish('call.transcript.updated', {
        role: 'agent',
        text: "Hi, is this Margaret? This is Ava from Bright Dental, I'm calling about your appointment next Tuesday at half past three.",
        ordinal: 0,
        offsetSeconds: 0.4,
      });
      await publish('intelligence.speaker.identified', { speaker: 'Margaret Hamilton', confidence: 0.93 });
      await publish('call.ended', { status: 'completed', durationSeconds: 113, engine: 'realtime' });
      await publish('call.analysis.completed', {
        summary: LONG_SUMMARY,
        overallSentiment: 'negative',
        resolved: false,
        doNotCallRequested: true,
        legalThreatened: true,
        crisisDetected: false,
      });
      const events = await runAt(`events tail --last-event-id ${Number(first) - 1} --exit-on call.analysis.completed`, width);
      expect(events.code).toBe(0);
      expect(events.screen).toContain('call.analysis.completed');
      const call = await runAt(`calls tail ${callId}`, width);
      expect(call.code).toBe(0);
      // The notice and the hint break between words; the command stays copyable whole.
      const text = call.screen
        .split('\n')
        .map((l) => l.trim())
        .join(' ');
      expect(text).toContain(`call ${callId} is over: its analysis is in (6 events); --follow keeps listening`);
      expect(text).not.toContain('resume with');
    });

    it(`evals run --wait at ${width} columns: every frame of the bar fits, and none is left behind`, async () => {
      await emu.control('POST', '/evals/next-run', { outcome: 'hold', evalId: seeded.evalId });
      const tty = session(`evals run ${seeded.evalId} --agent ${seeded.agentId} --wait`, width);
      try {
        await watchWhile(tty, width, 'evals run --wait (held)', (s) => /run #\d+ (pending|running)/.test(s.replace(/\n/g, ' ')));
        // A few more redraws while it is held, then let it finish.
        await new Promise((r) => setTimeout(r, 1500));
        const runs = (await emu.api('GET', `/api/v1/agents/${seeded.agentId}/evals/${seeded.evalId}/runs`)).body.data.runs as Array<{
          id: string;
          status: string;
        }>;
        for (const r of runs.filter((x) => x.status === 'pending' || x.status === 'running')) await emu.control('POST', `/evals/runs/${r.id}/release`);
        const end = await watchWhile(tty, width, 'evals run --wait', exited);
        expect(exitOf(end)).toBe(0);
        expect(end).not.toMatch(/[░█]/);
      } finally {
        tty.kill();
      }
      const get = await runAt(`evals runs get ${seeded.evalId} ${seeded.runId} --agent ${seeded.agentId} --wait`, width);
      expect([0, 3]).toContain(get.code);
    });

    it(`evals run --wait --baseline previous and runs diff at ${width} columns: the change and its verdict are never dropped`, async () => {
      const run = await runAt(`evals run ${seeded.evalId} --agent ${seeded.agentId} --wait --baseline previous --allow-failed-iterations 100%`, width);
      expect([0, 3], run.screen).toContain(run.code);
      const headers = run.screen.split('\n').filter((l) => /^(SCENARIO|CRITERION)\b/.test(l));
      expect(headers, run.screen).toHaveLength(2);
      for (const h of headers) expect(h.trim().split(/\s{2,}/), `${width} columns:\n${run.screen}`).toEqual(expect.arrayContaining(['DELTA', 'VERDICT']));
      const runs = (await emu.api('GET', `/api/v1/agents/${seeded.agentId}/evals/${seeded.evalId}/runs`)).body.data.runs as Array<{
        id: string;
        status: string;
        runNumber: number;
      }>;
      const [b, a] = runs.filter((r) => r.status === 'completed').sort((x, y) => y.runNumber - x.runNumber);
      const diff = await runAt(`evals runs diff ${b!.id} --eval ${seeded.evalId} --agent ${seeded.agentId} --baseline ${a!.id}`, width);
      expect(diff.code, diff.screen).toBe(0);
      const diffHeaders = diff.screen.split('\n').filter((l) => /^(SCENARIO|CRITERION)\b/.test(l));
      expect(diffHeaders, diff.screen).toHaveLength(2);
      for (const h of diffHeaders) expect(h.trim().split(/\s{2,}/), `${width} columns:\n${diff.screen}`).toEqual(expect.arrayContaining(['DELTA', 'VERDICT']));
    });

    it(`push --eval, preview and promote --eval at ${width} columns: the plan and the gate's bar fit`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'vap-fit-push-'));
      for (const f of ['vap.yaml', join('agents', 'reception', 'agent.md'), join('agents', 'reception', 'evals', 'smoke.yaml')]) {
        mkdirSync(join(dir, f, '..'), { recursive: true });
        writeFileSync(join(dir, f), readFileSync(join(seeded.dir, f)));
      }
      await emu.control('POST', '/evals/next-run', { outcome: 'hold' });
      const tty = session(`push --yes --eval --dir ${shellQuote(dir)}`, width);
      try {
        await watchWhile(tty, width, 'push --eval (held)', (s) => /[░█]/.test(s));
        await new Promise((r) => setTimeout(r, 1000));
        // Release the held run: the newest run of any suite of the pushed agent.
        const state = JSON.parse(readFileSync(join(dir, '.vap', 'state.default.json'), 'utf8'));
        const agent = state.agents.reception.id as string;
        const suite = state.suites['reception/smoke'].id as string;
        const runs = (await emu.api('GET', `/api/v1/agents/${agent}/evals/${suite}/runs`)).body.data.runs as Array<{ id: string; status: string }>;
        for (const r of runs) await emu.control('POST', `/evals/runs/${r.id}/release`);
        const end = await watchWhile(tty, width, 'push --eval', exited, 60_000);
        expect(end).not.toMatch(/░/);
      } finally {
        tty.kill();
      }
      // The branch changes the agent: preview runs copies of its gating suite, promote carries what passed to another profile.
      const md = join(dir, 'agents', 'reception', 'agent.md');
      writeFileSync(
        md,
        readFileSync(md, 'utf8').replace('Greet callers with "Hello".', 'Greet callers with "Good morning, north-east practice, how can we help you today?".'),
      );
      for (const [label, command] of [
        ['preview', `preview --label fit-${width} --allow-failed-iterations 9 --dir ${shellQuote(dir)}`],
        ['push --eval (the change)', `push --yes --eval --allow-failed-iterations 9 --dir ${shellQuote(dir)}`],
        ['promote --eval', `promote --from default --to staging --yes --eval --allow-failed-iterations 9 --dir ${shellQuote(dir)}`],
      ] as const) {
        const run = session(command, width);
        try {
          const end = await watchWhile(run, width, label, exited, 60_000);
          expect([0, 3], `${label}:\n${end}`).toContain(exitOf(end));
        } finally {
          run.kill();
        }
      }
    });

    it(`import-jobs watch, contacts import and evals imports triage at ${width} columns: their bars fit`, async () => {
      const job = (await emu.api('POST', `/api/v1/contact-lists/${seeded.listId}/contacts`, { contacts: rows(`watch ${width}`, 3000, 20) })).body;
      const watch = await runAt(`import-jobs watch ${job.jobId}`, width);
      expect(watch.code).toBe(0);
      const file = join(mkdtempSync(join(tmpdir(), 'vap-fit-csv-')), 'patients-of-the-north-east-practice.csv');
      writeFileSync(
        file,
        `name,phone,preferred_contact_time\n${rows(`csv ${width}`, 4000, 3)
          .map((r) => `${r.name},${r.phone},weekday mornings`)
          .join('\n')}\n`,
      );
      const imported = await runAt(`contacts import ${seeded.listId} ${shellQuote(file)} --batch-size 500`, width);
      // Exit 1: three rows are rejected on purpose (a summary with an errors file).
      expect(imported.code).toBe(1);
      const triage = await runAt(`evals imports triage ${seeded.evalId} ${seeded.untriagedImportId} --agent ${seeded.agentId} --batch-size 2`, width);
      expect(triage.code).toBe(0);
    });

    it(`campaigns analytics --watch and webhooks listen at ${width} columns: the screen fits`, async () => {
      const tty = session(`campaigns analytics ${seeded.campaignId} --realtime --watch --interval 5`, width);
      try {
        await watchWhile(tty, width, 'campaigns analytics --watch', (s) => /Active calls/i.test(s));
        tty.sendKeys('C-c');
        await watchWhile(tty, width, 'campaigns analytics --watch', exited);
      } finally {
        tty.kill();
      }
      const listen = session(`webhooks listen --forward-to ${receiverUrl}`, width);
      try {
        await watchWhile(listen, width, 'webhooks listen', (s) => /Ctrl-C/.test(s));
        await emu.control('POST', '/events', { type: 'call.ended', callId: randomUUID(), data: { status: 'completed', durationSeconds: 42 } });
        await new Promise((r) => setTimeout(r, 1000));
        listen.sendKeys('C-c');
        await watchWhile(listen, width, 'webhooks listen', exited);
      } finally {
        listen.kill();
      }
      const audio = await runAt(`calls audio ${seeded.callId} -O ${shellQuote(join(mkdtempSync(join(tmpdir(), 'vap-fit-audio-')), 'call.mp3'))}`, width);
      expect(audio.code).toBe(0);
    });
  }
});
