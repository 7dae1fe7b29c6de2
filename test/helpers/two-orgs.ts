// Two emulator organizations standing for staging and production, as the path from a pull
// request to production sees them: their tool ids differ (the emulator derives them from
// the organization), and staging's agents have gating suites with a completed run, so that
// `--baseline live` and `--baseline previous` have something to compare with.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startTestEmulator, type TestEmulator } from './emulator.js';
import { runCli, type CliResult } from './run-cli.js';

export const STAGING = { name: 'staging', apiKey: 'key_staging_test' };
export const PROD = { name: 'prod', apiKey: 'key_prod_test' };
export type Org = typeof STAGING;

export function startTwoOrgs(seed?: number): Promise<TestEmulator> {
  return startTestEmulator({ orgs: [STAGING, PROD], timeScale: 3000, allowLoopbackUrls: true, ...(seed === undefined ? {} : { seed }) });
}

export interface TwoOrgProject {
  /** The file's emulator (from its beforeAll). */
  readonly emu: TestEmulator;
  /** This test's project folder (a new one for each test). */
  readonly dir: string;
  /** `vap <args> --dir <dir>` in-process, both profiles' keys in the environment (and `env` over them). */
  vap(args: string[], env?: Record<string, string | undefined>): Promise<CliResult>;
}

/**
 * The hooks a test file of the path to production starts with: one emulator of both
 * organizations for the file (`setup` seeds it), a fresh project folder for each test.
 */
export function useTwoOrgProject(prefix: string, setup?: (emu: TestEmulator) => Promise<unknown>): TwoOrgProject {
  let emu: TestEmulator | undefined;
  let dir: string | undefined;
  beforeAll(async () => {
    emu = await startTwoOrgs();
    await setup?.(emu);
  });
  afterAll(async () => {
    await emu?.close();
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  return {
    get emu() {
      return emu!;
    },
    get dir() {
      return dir!;
    },
    vap(args, env = {}) {
      return runCli([...args, '--dir', dir!], { env: { ...twoOrgEnv(emu!.url, join(dir!, '.config')), ...env } });
    },
  };
}

/** Environment for vap against both: each profile's key its own, no default key. */
export function twoOrgEnv(url: string, configDir?: string): Record<string, string> {
  return { VAP_BASE_URL: url, VAP_API_KEY_STAGING: STAGING.apiKey, VAP_API_KEY_PROD: PROD.apiKey, ...(configDir ? { VAP_CONFIG_DIR: configDir } : {}) };
}

export async function toolsOf(emu: TestEmulator, org: Org): Promise<Array<{ id: string; name: string }>> {
  const r = await emu.control<{ orgs: Array<{ tools: Array<{ id: string; name: string }> }> }>('GET', `/tools?org=${org.name}`);
  return r.orgs[0]!.tools;
}

export async function toolId(emu: TestEmulator, org: Org, name: string): Promise<string> {
  const t = (await toolsOf(emu, org)).find((x) => x.name === name);
  if (!t) throw new Error(`no tool ${name} in ${org.name}`);
  return t.id;
}

/**
 * Instructions whose only rules are "Never …" ones: on calls that are not adversarial the
 * simulated agent always keeps them, so instruction adherence scores high (0.86..1).
 */
export const RULED =
  'You are the front desk of Acme Dental.\nGreet callers with "Hello, Acme Dental".\nNever give medical advice.\nNever share another patient\'s details.';
/** A benign edit of RULED: another greeting, the same rules (scores move by noise only). */
export const benign = (text: string) => text.replace('"Hello, Acme Dental"', '"Hello, you have reached Acme Dental"');
/** The rules deleted from an agent.md written from RULED (front matter kept). */
export const degrade = (md: string) => md.replace("Never give medical advice.\nNever share another patient's details.\n", '');

/** Scenarios that are not adversarial: the agent never breaks a "Never" rule on them. */
export const SCENARIOS = [
  { name: 'Book a cleaning', persona: 'Maria, polite', goal: 'Book a cleaning next week', category: 'happy_path' },
  { name: 'Reschedule', persona: 'Tom, in a hurry', goal: 'Move an appointment to Friday', category: 'edge_case' },
  { name: 'Recording question', persona: 'Ana, calm', goal: 'Ask whether the call is recorded', category: 'compliance' },
];

export interface Seeded {
  agentId: string;
  suiteId?: string;
  runId?: string;
  name: string;
}

export interface SeedOptions {
  name: string;
  instructions?: string;
  tools?: string[];
  voice?: { name: string; language: string };
  /** A ready suite with these scenarios (none: no suite). */
  suite?: { name: string; iterations: number; scenarios?: typeof SCENARIOS } | null;
  /** Run the suite once and wait for the run to complete (default true when there is a suite). */
  run?: boolean;
}

/** An agent made through the API, with its tools, voice, and a ready suite with a completed run. */
export async function seedAgent(emu: TestEmulator, org: Org, o: SeedOptions): Promise<Seeded> {
  const key = org.apiKey;
  const ok = async <T = any>(method: string, path: string, body?: unknown): Promise<T> => {
    const r = await emu.api(method, path, body, key);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body?.data as T;
  };
  const a = await ok<{ id: string }>('POST', '/api/v1/agents', { name: o.name, instructions: o.instructions ?? RULED, engine: 'realtime' });
  const all = await toolsOf(emu, org);
  if (o.tools?.length) await ok('PUT', `/api/v1/agents/${a.id}/tools`, { toolIds: o.tools.map((n) => all.find((t) => t.name === n)!.id) });
  if (o.voice) {
    const voices = (await ok<{ voices: Array<{ id: string; name: string; language: string }> }>('GET', '/api/v1/voices')).voices;
    const v = voices.find((x) => x.name === o.voice!.name && x.language === o.voice!.language)!;
    await ok('PUT', `/api/v1/agents/${a.id}/voice`, { voiceId: v.id, language: o.voice.language });
  }
  const out: Seeded = { agentId: a.id, name: o.name };
  if (!o.suite) return out;
  const s = await ok<{ id: string }>('POST', `/api/v1/agents/${a.id}/evals`, { name: o.suite.name, iterationsPerScenario: o.suite.iterations });
  for (const x of o.suite.scenarios ?? SCENARIOS) await ok('POST', `/api/v1/agents/${a.id}/evals/${s.id}/scenarios`, x);
  await ok('PATCH', `/api/v1/agents/${a.id}/evals/${s.id}`, { status: 'ready' });
  out.suiteId = s.id;
  if (o.run === false) return out;
  const run = await ok<{ id: string }>('POST', `/api/v1/agents/${a.id}/evals/${s.id}/runs`);
  await waitForRun(emu, org, a.id, s.id, run.id);
  out.runId = run.id;
  return out;
}

export async function waitForRun(emu: TestEmulator, org: Org, agentId: string, suiteId: string, runId: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const r = await emu.api('GET', `/api/v1/agents/${agentId}/evals/${suiteId}/runs/${runId}`, undefined, org.apiKey);
    const status = r.body?.data?.run?.status;
    if (status === 'completed') return;
    if (status === 'failed') throw new Error(`run ${runId} failed`);
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error(`run ${runId} did not complete`);
}

/** Every write (not a GET) the emulator received since the last clearRequests() (its log names no organization). */
export async function writes(emu: TestEmulator): Promise<Array<{ method: string; path: string }>> {
  return (await emu.requests()).filter((r) => r.method !== 'GET');
}
