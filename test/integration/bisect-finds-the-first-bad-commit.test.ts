import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { MARKER, previewCopies } from '../helpers/bisect.js';
import { twelveCommits as history } from '../helpers/git-history.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';

// `vap bisect` over a real git repository against real emulators, with a known truth: 12
// commits of agents/front-desk/, commit 7 adds a line kept afterwards, and the emulator's
// score-shift control lowers the scores of every agent whose instructions hold that line.

const BUDGET = 900;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function twelveCommits(opts: { badVoiceAt?: number; subject7?: string } = {}): { dir: string; shas: string[] } {
  const p = history(opts);
  dirs.push(p.dir);
  return p;
}

const vapOn = (emu: TestEmulator, dir: string) => (argv: string[]) =>
  runCli([...argv, '--dir', dir], { env: { ...cliEnv(emu.url, ORG_A.apiKey), VAP_WAIT_POLL: '1' } });

function previewsRecorded(dir: string): number {
  const f = join(dir, '.vap', 'state.default.json');
  return existsSync(f) ? Object.keys(JSON.parse(readFileSync(f, 'utf8')).previews ?? {}).length : 0;
}

/** A live agent of the same name, to show the search never touches one. */
async function liveAgent(emu: TestEmulator) {
  const id = (await emu.api('POST', '/api/v1/agents', { name: 'Front desk', engine: 'realtime', instructions: `Greet callers. ${MARKER}` })).body.data
    .id as string;
  return async () => {
    const a = (await emu.api('GET', `/api/v1/agents/${id}`)).body.data;
    return { version: a.currentVersion, instructions: a.instructions, suites: (await emu.api('GET', `/api/v1/agents/${id}/evals`)).body.data.evals };
  };
}

describe('vap bisect over the git history of an agent', () => {
  it('names commit 7 in at least 9 of 10 seeds, within the budget, live agents untouched and nothing left behind', async () => {
    let named = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const emu = await startTestEmulator({ seed, timeScale: 20000 });
      try {
        const { dir, shas } = twelveCommits();
        const live = await liveAgent(emu);
        const before = await live();
        await emu.control('POST', '/evals/score-shift', { shift: -0.15, instructionsContain: MARKER });
        const r = await vapOn(
          emu,
          dir,
        )(['bisect', 'front-desk', '--good', shas[0]!, '--bad', 'HEAD', '--max-calls', String(BUDGET), '--min-effect', '0.1', '--json']);
        expect(r.stderr).toContain(`11 commits after ${shas[0]} touched agents/front-desk/; judged by suite booking`);
        expect(r.stderr.indexOf(`Plan: 11 commits after ${shas[0]} up to ${shas[11]}: at most`)).toBeGreaterThanOrEqual(0);
        const out = JSON.parse(r.stdout);
        expect(out.calls).toBeLessThanOrEqual(BUDGET);
        if (out.result === 'found' && out.firstBad.label === shas[6]) {
          named++;
          expect(out.firstBad).toMatchObject({ changedBy: 'Dana', subject: 'Upsell on every call' });
          expect(out.undo).toBe(`git revert ${shas[6]} && vap push --profile default`);
        }
        expect(await live()).toEqual(before);
        expect(await previewCopies(emu)).toEqual([]);
        expect(previewsRecorded(dir)).toBe(0);
      } finally {
        await emu.close();
      }
    }
    expect(named).toBeGreaterThanOrEqual(9);
  }, 600_000);

  it('prints the first bad commit with who, when, the subject, the diff and the git way to undo it', async () => {
    const emu = await startTestEmulator({ seed: 3, timeScale: 20000 });
    try {
      const { dir, shas } = twelveCommits();
      await emu.control('POST', '/evals/score-shift', { shift: -0.15, instructionsContain: MARKER });
      const md = join(dir, 'bisect.md');
      const r = await vapOn(
        emu,
        dir,
      )(['bisect', 'front-desk', '--good', shas[0]!, '--bad', 'main', '--max-calls', String(BUDGET), '--min-effect', '0.1', '--report', `markdown=${md}`]);
      expect(r.code, r.stderr + r.stdout).toBe(0);
      expect(r.stdout).toMatch(
        new RegExp(`^First bad commit: ${shas[6]} \\(Dana, \\d{4}-.*: Upsell on every call; instructions −1 line \\+1 line\\), \\d+ of 900 calls$`, 'm'),
      );
      expect(r.stdout).toMatch(
        new RegExp(`verdict: regressed against commit ${shas[0]} \\(overall -0\\.\\d+, CI .*\\); the last good commit is ${shas[5]}$`, 'm'),
      );
      expect(r.stdout).toContain(`+Greet callers. Book appointments. ${MARKER}`);
      expect(r.stdout).toContain(`git revert ${shas[6]} && vap push --profile default   # to undo it`);
      expect(readFileSync(md, 'utf8')).toContain(`First bad commit: ${shas[6]}`);
    } finally {
      await emu.close();
    }
  }, 120_000);

  it('a commit subject with terminal controls reaches the terminal and the report made safe', async () => {
    const emu = await startTestEmulator({ seed: 3, timeScale: 20000 });
    try {
      const { dir, shas } = twelveCommits({ subject7: 'Upsell \u001b]8;;https://evil.example\u0007click\u001b]8;;\u0007 \u001b[2Jnow' });
      await emu.control('POST', '/evals/score-shift', { shift: -0.15, instructionsContain: MARKER });
      const md = join(dir, 'bisect.md');
      const r = await vapOn(
        emu,
        dir,
      )(['bisect', 'front-desk', '--good', shas[0]!, '--bad', 'HEAD', '--max-calls', String(BUDGET), '--min-effect', '0.1', '--report', `markdown=${md}`]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`First bad commit: ${shas[6]} (Dana, `);
      expect(r.stdout + r.stderr).not.toMatch(/[\u001b\u0007]/);
      const report = readFileSync(md, 'utf8');
      expect(report).toContain(`First bad commit: ${shas[6]}`);
      expect(report).not.toMatch(/[\u001b\u0007]/);
    } finally {
      await emu.close();
    }
  }, 120_000);

  it('with no shift at all: no regression, and no commit named', async () => {
    const emu = await startTestEmulator({ seed: 5, timeScale: 20000 });
    try {
      const { dir, shas } = twelveCommits();
      const r = await vapOn(
        emu,
        dir,
      )(['bisect', 'front-desk', '--good', shas[0]!, '--bad', 'HEAD', '--max-calls', String(BUDGET), '--min-effect', '0.1', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out.result).toBe('no regression');
      expect(out.firstBad).toBeUndefined();
      expect(out.calls).toBeLessThanOrEqual(BUDGET);
      expect(await previewCopies(emu)).toEqual([]);
    } finally {
      await emu.close();
    }
  }, 120_000);

  it('a commit that names a voice the profile does not know is skipped, and said, as git bisect skip does', async () => {
    const emu = await startTestEmulator({ seed: 4, timeScale: 20000 });
    try {
      const { dir, shas } = twelveCommits({ badVoiceAt: 6 });
      await emu.control('POST', '/evals/score-shift', { shift: -0.15, instructionsContain: MARKER });
      const r = await vapOn(
        emu,
        dir,
      )(['bisect', 'front-desk', '--good', shas[0]!, '--bad', 'HEAD', '--max-calls', String(BUDGET), '--min-effect', '0.1', '--json']);
      expect(r.stderr).toContain(`commit ${shas[5]}: skipped, its copy could not be built: no voice named "Nobody" speaking en-US in this profile`);
      expect(['found', 'skipped']).toContain(JSON.parse(r.stdout).result);
      expect(await previewCopies(emu)).toEqual([]);
    } finally {
      await emu.close();
    }
  }, 120_000);

  it('refuses, in one line with the fix and before any call, a range it cannot search (exit 2)', async () => {
    const emu = await startTestEmulator({ seed: 2, timeScale: 20000 });
    try {
      const { dir, shas } = twelveCommits();
      const vap = vapOn(emu, dir);
      await emu.clearRequests();
      const cases: Array<[string[], RegExp]> = [
        [['--good', '--upload-pack=x', '--bad', 'HEAD'], /--good "--upload-pack=x" starts with "-": not a revision/],
        [['--good', 'nope', '--bad', 'HEAD'], /--good nope: no such commit in this repository/],
        [['--good', 'HEAD', '--bad', shas[0]!], /is not an ancestor of --bad/],
        [['--good', 'HEAD~1', '--bad', 'HEAD'], /no commit after HEAD~1 up to HEAD touched agents\/front-desk/],
      ];
      for (const [args, why] of cases) {
        const r = await vap(['bisect', 'front-desk', ...args, '--max-calls', '900']);
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toMatch(why);
      }
      const outside = mkdtempSync(join(tmpdir(), 'vap-no-git-'));
      dirs.push(outside);
      writeFileSync(join(outside, 'vap.yaml'), 'version: 1\n');
      const r = await runCli(['bisect', 'front-desk', '--good', 'a', '--bad', 'b', '--max-calls', '900', '--dir', outside], {
        env: cliEnv(emu.url, ORG_A.apiKey),
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/is not in a git repository/);
      expect((await emu.requests()).filter((q) => q.method !== 'GET')).toEqual([]);
    } finally {
      await emu.close();
    }
  }, 60_000);
});
