import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, ROOT } from '../helpers/built.js';

// The README's "To try vap by hand" blocks, line for line, as a newcomer runs them: one bash
// session with the built vap on PATH and nothing of the test's environment, the emulator and
// the receiver started in the background by the README's own lines. Only the ports change
// (4010 and 3000 become free ones), so that it never meets another emulator. Then: the eval
// run of one scenario and one iteration finished in seconds, the receiver printed the signed
// delivery, and the emulator still refuses private and link-local webhook URLs.

let work: string;
beforeAll(() => {
  assertBuilt();
  work = mkdtempSync(join(tmpdir(), 'vap-readme-start-'));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The lines of the first two ```sh blocks after "To try vap by hand", as the README has them (comments and blank lines apart). */
function quickStart(): string[][] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf('To try vap by hand');
  expect(at, 'README: "To try vap by hand"').toBeGreaterThan(0);
  const blocks = [...readme.slice(at).matchAll(/```sh\n([\s\S]*?)\n```/g)]
    .slice(0, 2)
    .map((m) => m[1]!.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#')));
  expect(blocks).toHaveLength(2);
  return blocks;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the README quick start', () => {
  it('runs as written: a 1×1 eval run finishes in seconds, and a webhook to a loopback URL is delivered', { timeout: 120_000 }, async () => {
    const [start, tryIt] = quickStart();
    const [apiPort, hookPort] = [await freePort(), await freePort()];
    const port = (line: string) =>
      line
        .replace(/^vap emulator start /, `vap emulator start --port ${apiPort} `)
        .replaceAll('127.0.0.1:4010', `127.0.0.1:${apiPort}`)
        .replace(/\blisten\(3000\)/, `listen(${hookPort})`)
        .replaceAll('127.0.0.1:3000', `127.0.0.1:${hookPort}`);
    const lines = [...start!, ...tryIt!];
    expect(lines.find((l) => l.startsWith('vap emulator start'))).toMatch(/--time-scale \d+/);

    // One bash session: each line, then its exit code and how long it took; after a line that
    // starts a server in the background, a wait for its port, as a person waits for its first line.
    const script: string[] = [];
    lines.forEach((line, i) => {
      script.push(`t0=$EPOCHREALTIME`, port(line), `echo "::line ${i} exit $? took $(echo "$EPOCHREALTIME - $t0" | bc)"`);
      const waitFor = line.startsWith('vap emulator start') ? apiPort : /\blisten\(3000\)/.test(line) ? hookPort : undefined;
      if (waitFor) script.push(`for i in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/${waitFor}) 2>/dev/null && break; sleep 0.1; done`);
    });
    // Not the README's: the refusal of every other private address is kept (document 1, webhook rule 1).
    script.push('vap webhooks create --name Private --url http://10.0.0.7/hook --events call.ended --secret-file private-secret -q; echo "::private exit $?"');
    script.push(
      'vap webhooks create --name Metadata --url http://169.254.169.254/hook --events call.ended --secret-file link-local-secret -q; echo "::link-local exit $?"',
    );
    script.push('kill $(jobs -p)', 'wait');

    const bin = join(work, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'vap'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, 'vap'), 0o755);
    const env = {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      HOME: work,
      VAP_CONFIG_DIR: join(work, 'config'),
      VAP_STATE_DIR: join(work, 'state'),
      NO_COLOR: '1',
    };
    const session = execa('bash', ['-c', script.join('\n')], {
      cwd: work,
      env,
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
      all: true,
      detached: true,
      timeout: 100_000,
    });
    let r;
    try {
      r = await session;
    } finally {
      // The background servers, should the session have stopped before its own `kill`.
      try {
        process.kill(-session.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    const all = String(r.all);
    const ran = [...all.matchAll(/^::line (\d+) exit (\d+) took ([\d.]+)$/gm)].map((m) => ({
      line: lines[Number(m[1])]!,
      exit: Number(m[2]),
      seconds: Number(m[3]),
    }));
    expect(
      ran.map((x) => x.line),
      all,
    ).toEqual(lines);
    for (const x of ran) expect(x.exit, `${x.line}\n${all}`).toBe(0);

    // At the README's time scale the run of one scenario and one iteration takes seconds (over a minute at 1).
    const run = ran.find((x) => x.line.startsWith('vap evals run'))!;
    expect(run.seconds, all).toBeLessThan(20);
    expect(all).toMatch(/run #1 \(run_\w+\) passed its gate/);
    // The receiver printed the delivery: the run's event, and the listing says it succeeded with the receiver's 200.
    const delivered = /^\{"id":.*"type":"eval\.run\.completed".*\}$/m.exec(all);
    expect(delivered, all).not.toBeNull();
    expect(JSON.parse(delivered![0])).toMatchObject({ type: 'eval.run.completed', data: expect.objectContaining({ status: 'completed' }) });
    expect(all).toMatch(/\bsucceeded\b.*\b200\b/);
    // Loopback is what --allow-loopback-urls opens, and only that.
    expect(all).toMatch(/^::private exit [1-9]/m);
    expect(all).toMatch(/url refused: host 10\.0\.0\.7 is a private address/);
    expect(all).toMatch(/^::link-local exit [1-9]/m);
    expect(all).toMatch(/url refused: host 169\.254\.169\.254 is a link-local address/);
  });
});
