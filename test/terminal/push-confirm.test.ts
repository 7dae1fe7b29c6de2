// `vap push` at a real terminal (tmux): the plan in colour (instructions as a coloured
// unified diff, deletions in red) and the confirmation that names what will be deleted.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';
import { hasTmux, shellQuote, TmuxSession } from '../helpers/tmux.js';

let emu: TestEmulator;

async function seed(name: string): Promise<string> {
  const a = (await emu.api('POST', '/api/v1/agents', { name, instructions: 'You are the front desk.\nGreet callers with "Hello".', engine: 'realtime' })).body
    .data;
  const s = (await emu.api('POST', `/api/v1/agents/${a.id}/evals`, { name: 'Booking', iterationsPerScenario: 1 })).body.data;
  await emu.api('POST', `/api/v1/agents/${a.id}/evals/${s.id}/scenarios`, {
    name: 'Book',
    persona: 'Ann, polite',
    goal: 'Book a visit',
    category: 'happy_path',
  });
  return a.id as string;
}

/** The pane with its colours (capture-pane -e). */
function screenWithEscapes(tty: TmuxSession): string {
  return execFileSync('tmux', ['capture-pane', '-p', '-e', '-J', '-S', '-100', '-t', tty.name], { encoding: 'utf8' });
}

describe.skipIf(!hasTmux())('vap push in a real terminal (tmux)', () => {
  beforeAll(async () => {
    assertBuilt();
    emu = await startTestEmulator();
  });
  afterAll(async () => {
    await emu?.close();
  });

  async function project() {
    const dir = mkdtempSync(join(tmpdir(), 'vap-push-tty-'));
    const keep = await seed('Keep Me');
    const drop = await seed('Drop Me');
    const pulled = await runCli(['--profile', 'staging', 'pull', '--agent', keep, '--agent', drop, '--dir', dir], { env: cliEnv(emu.url, ORG_A.apiKey) });
    expect(pulled.code, pulled.stderr).toBe(0);
    const md = join(dir, 'agents', 'keep-me', 'agent.md');
    writeFileSync(md, readFileSync(md, 'utf8').replace('Greet callers with "Hello".', 'Greet callers with "Good morning".'));
    rmSync(join(dir, 'agents', 'drop-me'), { recursive: true });
    expect(readdirSync(join(dir, 'agents'))).toEqual(['keep-me']);
    return { dir, keep, drop };
  }

  const session = (dir: string) =>
    new TmuxSession(`cd ${shellQuote(dir)} && node ${shellQuote(BIN)} push --prune --profile staging`, {
      env: { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, TERM: 'xterm-256color' },
      width: 140,
    });

  const current = async (id: string) => (await emu.api('GET', `/api/v1/agents/${id}`)).body.data?.currentVersion as number | undefined;

  it('shows the plan in colour and asks before deleting; no keeps everything', async () => {
    const { dir, keep, drop } = await project();
    const before = await current(keep);
    const tty = session(dir);
    try {
      const screen = await tty.waitFor(/Apply this plan/);
      expect(screen).toContain('Apply this plan (1 to update, 2 to delete) to profile "staging"? It deletes agent drop-me, suite drop-me/booking.');
      const coloured = screenWithEscapes(tty);
      expect(coloured).toMatch(/\x1b\[31m-Greet callers with "Hello"\./);
      expect(coloured).toMatch(/\x1b\[32m\+Greet callers with "Good morning"\./);
      expect(coloured).toMatch(/\x1b\[(1;)?31m(\x1b\[1m)?\s*- delete/);
      expect(coloured).toMatch(/\x1b\[33m\s*~ update/);
      tty.sendKeys('n', 'Enter');
      expect(await tty.exitCode()).toBe(1);
      expect(tty.capture()).toContain('push cancelled; nothing was sent');
      expect(await current(keep)).toBe(before);
      expect((await emu.api('GET', `/api/v1/agents/${drop}`)).status).toBe(200);
    } finally {
      tty.kill();
    }
  });

  it('yes applies the update and the deletion', async () => {
    const { dir, keep, drop } = await project();
    const before = await current(keep);
    const tty = session(dir);
    try {
      await tty.waitFor(/Apply this plan/);
      tty.sendKeys('y', 'Enter');
      expect(await tty.exitCode()).toBe(0);
      expect(tty.capture()).toMatch(/agent drop-me: deleted/);
      expect(await current(keep)).toBe(before! + 1);
      expect((await emu.api('GET', `/api/v1/agents/${drop}`)).status).toBe(404);
    } finally {
      tty.kill();
    }
  });

  it('a base URL the state was never synced with is said and asked once; the push records it, so the next diff does not say it', async () => {
    const { dir } = await project();
    // The same server under another name (what a moved or renamed API host looks like).
    const tty = new TmuxSession(
      `cd ${shellQuote(dir)} && node ${shellQuote(BIN)} diff --profile staging; node ${shellQuote(BIN)} push --yes --profile staging; node ${shellQuote(BIN)} diff --profile staging`,
      {
        env: { VAP_BASE_URL: emu.url.replace('127.0.0.1', 'localhost'), VAP_API_KEY: ORG_A.apiKey, TERM: 'xterm-256color' },
        width: 140,
      },
    );
    try {
      const screen = await tty.waitFor(/Use it for profile "staging"\?/);
      // The warning wraps at word boundaries to the pane's width.
      expect(screen.replace(/\s+/g, ' ')).toContain(
        `.vap/state.staging.json was synced with another server: this run uses the base URL ${emu.url.replace('127.0.0.1', 'localhost')} (it was synced with ${emu.url})`,
      );
      tty.sendKeys('y', 'Enter');
      await tty.waitFor(/Plan for profile "staging"/);
      expect(await tty.exitCode()).toBe(0);
      const all = tty.capture();
      // Asked by the first diff only: the push (--yes) recorded the URL, and the last diff is silent.
      expect(all.match(/Use it for profile/g)).toHaveLength(1);
      expect(all.match(/was synced with another server/g)).toHaveLength(2);
    } finally {
      tty.kill();
    }
  });
});
