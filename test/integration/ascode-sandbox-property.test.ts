// Property: whatever the state file says and wherever links point, `vap pull`, `vap diff`,
// `vap push` and `vap mv` never write, change or remove anything outside the project. Each
// run builds a sandbox (the project beside a folder of someone else's files), a random
// state (hostile keys and ids among good ones) and a random layout of links out of the
// project, runs the verbs with every flag that lets them write or remove, and compares a
// snapshot of everything in the sandbox but the project, before and after.
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ allowLoopbackUrls: true, timeScale: 2000 });
});
afterAll(async () => {
  await emu?.close();
});

function snapshot(root: string, skip: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of readdirSync(d).sort()) {
      const p = join(d, e);
      if (p === skip) continue;
      const st = lstatSync(p);
      const rel = relative(root, p);
      if (st.isSymbolicLink()) out.set(rel, `link → ${readlinkSync(p)}`);
      else if (st.isDirectory()) {
        out.set(rel, `dir ${st.mode.toString(8)} ${st.mtimeMs}`);
        walk(p);
      } else out.set(rel, `file ${st.mode.toString(8)} ${st.mtimeMs} ${readFileSync(p, 'utf8')}`);
    }
  };
  walk(root);
  return out;
}

const SLUGS = [
  'desk',
  'front-desk',
  'hook',
  '..',
  '.',
  '../outside',
  '../../outside/victim',
  'a/b',
  'con',
  'x'.repeat(150),
  '',
  'ok.',
  '.hidden',
  'nul\u0000',
  'back\\slash',
  'evals',
];
const LINK_SPOTS = [
  'agents',
  'webhooks',
  '.vap',
  'agents/desk',
  'agents/desk/evals',
  'agents/desk/agent.md',
  'agents/desk/evals/booking.yaml',
  'webhooks/hook.yaml',
  '.vap/state.staging.json',
  'vap.yaml',
];

interface Case {
  state:
    | 'null'
    | 'garbage'
    | { agents: Array<[number, number]>; suites: Array<[number, number, number]>; webhooks: Array<[number, number]>; intents: Array<[number, number]> };
  links: Array<[number, boolean]>;
  files: boolean;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  state: fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom('null' as const, 'garbage' as const) },
    {
      weight: 8,
      arbitrary: fc.record({
        agents: fc.array(fc.tuple(fc.nat(SLUGS.length - 1), fc.nat(5)), { maxLength: 4 }),
        suites: fc.array(fc.tuple(fc.nat(SLUGS.length - 1), fc.nat(SLUGS.length - 1), fc.nat(5)), { maxLength: 3 }),
        webhooks: fc.array(fc.tuple(fc.nat(SLUGS.length - 1), fc.nat(5)), { maxLength: 2 }),
        intents: fc.array(fc.tuple(fc.nat(SLUGS.length - 1), fc.nat(5)), { maxLength: 2 }),
      }),
    },
  ),
  links: fc.array(fc.tuple(fc.nat(LINK_SPOTS.length - 1), fc.boolean()), { maxLength: 3 }),
  files: fc.boolean(),
});

describe('pull, diff, push and mv stay inside the project', () => {
  it('for random states and random links out of the project, nothing outside the project changes', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'vap-sandbox-'));
    let n = 0;
    try {
      await fc.assert(
        fc.asyncProperty(caseArb, async (c) => {
          const sandbox = join(parent, `case-${++n}`);
          const project = join(sandbox, 'project');
          const outside = join(sandbox, 'outside');
          mkdirSync(join(outside, 'victim', 'evals'), { recursive: true });
          mkdirSync(project);
          writeFileSync(join(outside, 'victim', 'agent.md'), '---\nname: Victim\n---\nnot vap\n');
          writeFileSync(join(outside, 'victim', 'evals', 'booking.yaml'), 'name: x\n');
          writeFileSync(join(outside, 'file.yaml'), 'outside\n');
          // Live ids on the platform, fresh for each case (a push --prune may delete them).
          const key = ORG_A.apiKey;
          const a = (await emu.api('POST', '/api/v1/agents', { name: `Desk ${n}`, instructions: 'Greet.', engine: 'realtime', variables: [] }, key)).body.data;
          const s = (await emu.api('POST', `/api/v1/agents/${a.id}/evals`, { name: 'Booking', iterationsPerScenario: 1 }, key)).body.data;
          const w = (await emu.api('POST', '/api/v1/webhook-endpoints', { name: `Hook ${n}`, url: 'http://127.0.0.1:9/h', events: ['call.ended'] }, key)).body
            .data;
          const ids = [a.id, s.id, w.id, 'ag_missing00000000', '../..', 'a/b'];
          const entry = (i: number) => ({ id: ids[i]!, hash: '', fields: {} });

          writeFileSync(join(project, 'vap.yaml'), 'version: 1\nprofiles:\n  staging:\n');
          if (c.files) {
            mkdirSync(join(project, 'agents', 'desk', 'evals'), { recursive: true });
            writeFileSync(join(project, 'agents', 'desk', 'agent.md'), '---\nname: Desk\nengine: speech-to-speech\n---\nHello.\n');
            writeFileSync(
              join(project, 'agents', 'desk', 'evals', 'booking.yaml'),
              'name: Booking\niterations: 1\nstatus: draft\ncriteria: [{ key: goal, name: Goal, weight: 1 }]\n',
            );
          }
          let stateText: string;
          if (c.state === 'null') stateText = 'null';
          else if (c.state === 'garbage') stateText = '{"format":1,"profile":"staging","agents":[1,2]}';
          else {
            const st = c.state;
            stateText = JSON.stringify({
              format: 1,
              profile: 'staging',
              agents: Object.fromEntries(st.agents.map(([k, i]) => [SLUGS[k]!, entry(i)])),
              suites: Object.fromEntries(st.suites.map(([k1, k2, i]) => [`${SLUGS[k1]}/${SLUGS[k2]}`, entry(i)])),
              webhooks: Object.fromEntries(st.webhooks.map(([k, i]) => [SLUGS[k]!, entry(i)])),
              tools: {},
              intents: Object.fromEntries(
                st.intents.map(([k, i]) => [
                  `agent:${SLUGS[k]}`,
                  { op: 'create', kind: 'agent', push: 'p', at: 'now', name: `Desk ${n}`, id: ids[i], target: {} },
                ]),
              ),
            });
          }
          mkdirSync(join(project, '.vap'), { recursive: true });
          writeFileSync(join(project, '.vap', 'state.staging.json'), stateText);
          for (const [spot, toFile] of c.links) {
            const p = join(project, LINK_SPOTS[spot]!);
            rmSync(p, { recursive: true, force: true });
            mkdirSync(dirname(p), { recursive: true });
            try {
              symlinkSync(toFile ? join(outside, 'file.yaml') : join(outside, 'victim'), p);
            } catch {
              // A spot under a link made earlier in this case: the link already covers it.
            }
          }

          const before = snapshot(sandbox, project);
          const env = cliEnv(emu.url, key);
          for (const args of [
            ['pull', '--force', '--yes'],
            ['pull', '--all', '--force', '--yes'],
            ['diff', '--yes'],
            ['push', '--yes', '--force', '--prune', '--replace-suite'],
            ['mv', 'desk', 'moved'],
            ['mv', 'moved', 'desk'],
          ]) {
            const r = await runCli(['--profile', 'staging', ...args, '--dir', project], { env });
            expect([0, 1, 2, 3], `${args.join(' ')}: ${r.stderr}`).toContain(r.code);
            expect(r.stderr, args.join(' ')).not.toMatch(/unexpected error|Maximum call stack|\bat .*\.(js|ts):\d+/);
          }
          expect(snapshot(sandbox, project)).toEqual(before);
          expect(readdirSync(sandbox).sort()).toEqual(['outside', 'project']);
        }),
        { numRuns: 30, seed: 22 },
      );
      expect(readdirSync(parent).every((d) => d.startsWith('case-'))).toBe(true);
    } finally {
      rmSync(parent, { recursive: true, force: true });
    }
  }, 300_000);
});
