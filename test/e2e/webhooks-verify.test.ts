import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/built.js';

// `vap webhooks verify` on the built binary. The vectors are computed here with
// node:crypto directly (HMAC-SHA256 keyed with the whole secret over "<t>.<body>"),
// not with src/spec/signature.ts, so the test checks the command against the scheme.

const SECRET = 'whsec_Q2hlY2tUaGVTaWduYXR1cmVPZkl0QWxs';
// Exact bytes: CRLF, a tab, non-ASCII UTF-8, a byte that is not UTF-8 at all, a trailing newline.
const BODY = Buffer.concat([Buffer.from('{"id":"42","type":"call.ended",\r\n\t"data":{"name":"Zoë"}}'), Buffer.from([0xff, 0xfe]), Buffer.from('\n')]);

const sign = (secret: string, t: number, body: Buffer) => createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
const now = () => Math.floor(Date.now() / 1000);

let dir: string;
let bodyFile: string;
let secretFile: string;

beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), 'vap-verify-'));
  bodyFile = join(dir, 'body.bin');
  secretFile = join(dir, 'secret');
  writeFileSync(bodyFile, BODY);
  writeFileSync(secretFile, `${SECRET}\n`, { mode: 0o600 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The built binary with no API key or base URL at all: verify works offline. */
async function verify(args: string[], input?: Buffer) {
  const r = await execa('node', [BIN, 'webhooks', 'verify', ...args], {
    reject: false,
    extendEnv: false,
    env: { PATH: process.env.PATH ?? '', HOME: dir, NO_COLOR: '1', VAP_CONFIG_DIR: dir },
    ...(input === undefined ? { stdin: 'ignore' as const } : { input }),
  });
  return { code: r.exitCode ?? 1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

describe('vap webhooks verify (built binary)', () => {
  it('accepts a valid signature over the exact bytes of --body-file (exit 0)', async () => {
    const t = now();
    const r = await verify(['--secret-file', secretFile, '--header', `t=${t},v1=${sign(SECRET, t, BODY)}`, '--body-file', bodyFile]);
    expect(r.stderr).toMatch(/Valid signature: signed \d+ s ago, within the tolerance of 300 s/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^valid\ttrue$/m);
  });

  it('reads the body from stdin byte for byte, and takes --secret', async () => {
    const t = now();
    const r = await verify(['--secret', SECRET, '--header', `t=${t},v1=${sign(SECRET, t, BODY)}`, '--json'], BODY);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ valid: true, signedAt: new Date(t * 1000).toISOString() });
  });

  it('accepts the whole header line, and any matching v1 among several', async () => {
    const t = now();
    const wrong = sign('whsec_someOtherSecretEntirelyXXXXXXXXXX', t, BODY);
    const r = await verify([
      '--secret-file',
      secretFile,
      '--header',
      `X-Service-Signature: t=${t},v1=${wrong},v1=${sign(SECRET, t, BODY)}`,
      '--body-file',
      bodyFile,
    ]);
    expect(r.code).toBe(0);
  });

  it('rejects a body that differs by one byte: signature mismatch (exit 1)', async () => {
    const t = now();
    const header = `t=${t},v1=${sign(SECRET, t, BODY)}`;
    const trimmed = BODY.subarray(0, BODY.length - 1);
    const r = await verify(['--secret-file', secretFile, '--header', header], trimmed);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: invalid signature \(signature mismatch\): the signature does not match/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
    // Re-encoding the body as UTF-8 text (the 0xff 0xfe bytes become U+FFFD) breaks it too.
    const reencoded = Buffer.from(BODY.toString('utf8'), 'utf8');
    expect((await verify(['--secret-file', secretFile, '--header', header], reencoded)).code).toBe(1);
  });

  it('rejects the wrong secret: signature mismatch, with --json naming the reason', async () => {
    const t = now();
    const r = await verify(['--secret', 'whsec_notTheRightOne', '--header', `t=${t},v1=${sign(SECRET, t, BODY)}`, '--body-file', bodyFile, '--json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ valid: false, reason: 'mismatch' });
    expect(r.stderr).toContain('signature mismatch');
  });

  it('rejects a stale timestamp beyond --tolerance, and accepts it within a larger one', async () => {
    const t = now() - 1000;
    const header = `t=${t},v1=${sign(SECRET, t, BODY)}`;
    const stale = await verify(['--secret-file', secretFile, '--header', header, '--body-file', bodyFile]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/invalid signature \(stale timestamp\): the timestamp is 10\d\d s old, more than the tolerance of 300 s/);
    const ok = await verify(['--secret-file', secretFile, '--header', header, '--body-file', bodyFile, '--tolerance', '3600']);
    expect(ok.code).toBe(0);
    const future = now() + 1000;
    const ahead = await verify(['--secret-file', secretFile, '--header', `t=${future},v1=${sign(SECRET, future, BODY)}`, '--body-file', bodyFile]);
    expect(ahead.code).toBe(1);
    expect(ahead.stderr).toContain('timestamp in the future');
  });

  it('rejects a malformed header: bad header format', async () => {
    for (const header of ['v1=abc', `t=${now()}`, `t=soon,v1=${'a'.repeat(64)}`, `t=${now()},v1=${'z'.repeat(64)}`, 'garbage']) {
      const r = await verify(['--secret-file', secretFile, '--header', header, '--body-file', bodyFile]);
      expect(r.code, header).toBe(1);
      expect(r.stderr, header).toContain('invalid signature (bad header format)');
    }
  });

  it('is a usage error (exit 2) without a secret, a header or a body, or with a bad tolerance', async () => {
    const t = now();
    const header = `t=${t},v1=${sign(SECRET, t, BODY)}`;
    const cases: Array<[string[], RegExp]> = [
      [['--header', header, '--body-file', bodyFile], /the secret is missing; pass --secret-file/],
      [['--secret', SECRET, '--secret-file', secretFile, '--header', header, '--body-file', bodyFile], /cannot be used together/],
      [['--secret-file', secretFile, '--body-file', bodyFile], /the signature header is missing/],
      [['--secret-file', secretFile, '--header', header, '--body-file', bodyFile, '--tolerance', 'ten'], /--tolerance "ten"/],
      [['--secret-file', join(dir, 'missing'), '--header', header, '--body-file', bodyFile], /cannot read --secret-file .*missing: no such file/],
    ];
    for (const [args, err] of cases) {
      const r = await verify(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(err);
    }
  });
});
