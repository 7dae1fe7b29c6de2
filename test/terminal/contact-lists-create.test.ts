import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `vap contact-lists create --from-csv` in a real terminal (tmux): the inferred
// schema is shown and the confirmation is answered with keys. Runs the built
// binary (`npm run build` first; VAP_BIN may point at another build).

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = resolve(root, process.env.VAP_BIN ?? 'bin/vap.js');
const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

// A private tmux server, so that nothing else on the machine is touched.
const socket = `vap-test-cl-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
const KEY = 'key_term_test';

let emulator: ChildProcess | undefined;
let url = '';
let dir = '';

beforeAll(async () => {
  if (!hasTmux) return;
  dir = mkdtempSync(join(tmpdir(), 'vap-term-'));
  emulator = spawn(process.execPath, [bin, 'emulator', 'start', '--port', '0', '--org', `acme:${KEY}`, '--time-scale', '100', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  url = await new Promise<string>((res, rej) => {
    let out = '';
    emulator!.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) res((JSON.parse(line) as { url: string }).url);
    });
    emulator!.once('exit', (code) => rej(new Error(`emulator exited with ${code}: ${out}`)));
  });
});

afterAll(() => {
  if (!hasTmux) return;
  try {
    tmux('kill-server');
  } catch {
    // no server left
  }
  emulator?.kill('SIGTERM');
});

async function waitForScreen(session: string, pattern: RegExp, timeoutMs = 20_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  let screen = '';
  while (Date.now() < until) {
    screen = tmux('capture-pane', '-p', '-J', '-t', session, '-S', '-100');
    if (pattern.test(screen)) return screen;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${pattern} on the screen:\n${screen}`);
}

function startSession(session: string, name: string, csv: string): void {
  const command = [process.execPath, bin, 'contact-lists', 'create', '--name', name, '--from-csv', csv].map((a) => `'${a}'`).join(' ');
  tmux(
    'new-session', '-d', '-s', session, '-x', '160', '-y', '50',
    '-e', `VAP_BASE_URL=${url}`, '-e', `VAP_API_KEY=${KEY}`, '-e', 'NO_COLOR=1', '-e', `VAP_CONFIG_DIR=${dir}`,
    // A person at a terminal: vap never prompts under CI, so CI is unset here.
    `unset CI; ${command}; echo "EXIT=$?"; sleep 60`,
  );
}

describe.skipIf(!hasTmux)('contact-lists create --from-csv in a terminal', () => {
  it('shows the inferred schema and creates the list when confirmed', async () => {
    const csv = join(dir, 'leads.csv');
    writeFileSync(csv, 'name,phone,email,age\nAda,+14155550100,ada@example.com,36\nBob,+14155550101,bob@example.org,41\n');
    startSession('confirm', 'Terminal leads', csv);
    const prompt = await waitForScreen('confirm', /Create contact list "Terminal leads" with this schema\?/);
    expect(prompt).toMatch(/FIELD\s+TYPE\s+REQUIRED\s+FILLED\s+EXAMPLE/);
    expect(prompt).toMatch(/phone\s+phone\s+no\s+2\/2\s+\+14155550100/);
    expect(prompt).toMatch(/age\s+number\s+no\s+2\/2\s+36/);
    tmux('send-keys', '-t', 'confirm', 'y');
    tmux('send-keys', '-t', 'confirm', 'Enter');
    const done = await waitForScreen('confirm', /EXIT=\d+/);
    expect(done).toContain('EXIT=0');
    expect(done).toMatch(/Created contact list cl_\S+ \("Terminal leads"\) with 4 fields/);
    expect(done).toMatch(/email\s+email\s+no/);
  });

  it('creates nothing when the answer is no', async () => {
    const csv = join(dir, 'other.csv');
    writeFileSync(csv, 'name,vip\nAda,yes\n');
    startSession('decline', 'Declined', csv);
    await waitForScreen('decline', /Create contact list "Declined" with this schema\?/);
    tmux('send-keys', '-t', 'decline', 'n');
    tmux('send-keys', '-t', 'decline', 'Enter');
    const done = await waitForScreen('decline', /EXIT=\d+/);
    expect(done).toContain('EXIT=1');
    expect(done).toContain('cancelled; no contact list was created');
    const lists = (await (await fetch(`${url}/api/v1/contact-lists`, { headers: { 'x-api-key': KEY } })).json()) as { data: Array<{ name: string }> };
    expect(lists.data.map((l) => l.name)).not.toContain('Declined');
  });
});
