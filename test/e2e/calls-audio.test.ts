import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN, vap } from '../helpers/built.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { testStateDir } from '../helpers/state-dir.js';

// `vap calls audio` with the built binary: the files it writes open in a real decoder
// (sox's soxi, or ffprobe) with the recording's duration; the bytes piped to stdout are
// the API's, byte for byte. CI installs sox with libsox-fmt-mp3.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A decoder on PATH that reports a file's duration in seconds, and whether it reads MP3. */
function findDecoder(): { name: string; duration: (file: string) => number; mp3: boolean } | null {
  if (!spawnSync('soxi', ['-V0', '-h'], { stdio: 'ignore' }).error) {
    const formats = spawnSync('sox', ['-h'], { encoding: 'utf8' }).stdout ?? '';
    const mp3 = /AUDIO FILE FORMATS:.*\bmp3\b/.test(formats);
    return { name: 'soxi', duration: (f) => Number(execFileSync('soxi', ['-D', f]).toString().trim()), mp3 };
  }
  if (!spawnSync('ffprobe', ['-version'], { stdio: 'ignore' }).error) {
    return {
      name: 'ffprobe',
      duration: (f) => Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'default=nw=1:nk=1', f]).toString().trim()),
      mp3: true,
    };
  }
  return null;
}

const decoder = findDecoder();
const NO_DECODER = 'no audio decoder on PATH (install sox with libsox-fmt-mp3, or ffmpeg): the decoded-duration check is skipped';

let emu: TestEmulator;
let env: Record<string, string>;
let dir: string;
let call: { id: string; duration: number };
let recordingDuration: number;

beforeAll(async () => {
  assertBuilt();
  emu = await startTestEmulator();
  env = { VAP_BASE_URL: emu.url, VAP_API_KEY: ORG_A.apiKey, VAP_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'vap-e2e-')) };
  dir = mkdtempSync(join(tmpdir(), 'vap-e2e-audio-'));
  // A few connected calls of history; the longest one is downloaded.
  await emu.control('POST', '/calls/seed', { org: 'acme', count: 40 });
  const listed = await vap(['calls', 'list', '--status', 'completed', '--min-duration', '30', '--all', '-o', 'ndjson'], { env });
  expect(listed.exitCode, listed.stderr).toBe(0);
  const calls = listed.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: string; duration: number });
  for (const c of calls.sort((a, b) => b.duration - a.duration)) {
    const meta = (await emu.api('GET', `/api/v1/calls/${c.id}/recording`)).body.data;
    if (meta.recordings.length) {
      call = c;
      recordingDuration = meta.recordings[0].duration;
      break;
    }
    await sleep(0);
  }
  expect(call, 'a seeded call with a recording').toBeDefined();
});
afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('vap calls audio (built binary)', () => {
  for (const format of ['wav', 'mp3'] as const) {
    it(`writes a ${format.toUpperCase()} file whole${decoder ? ` that ${decoder.name} opens with the recording's duration` : ''}`, async (ctx) => {
      const file = join(dir, `call.${format}`);
      const r = await vap(['calls', 'audio', call.id, '--format', format, '-O', file], { env });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`Saved the recording of call ${call.id} to ${file} (${format.toUpperCase()},`);
      expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).toEqual([]);
      if (!decoder) return ctx.skip(NO_DECODER);
      if (format === 'mp3' && !decoder.mp3) return ctx.skip(`${decoder.name} cannot read MP3 here (install libsox-fmt-mp3): the MP3 duration check is skipped`);
      const seconds = decoder.duration(file);
      expect(Math.abs(seconds - recordingDuration), `${decoder.name} says ${seconds}s for ${recordingDuration}s`).toBeLessThan(0.2);
    });
  }

  it('pipes the exact bytes of the API to stdout', async () => {
    const res = await fetch(`${emu.url}/api/v1/calls/${call.id}/recording/audio?format=wav`, { headers: { 'x-api-key': ORG_A.apiKey } });
    const want = Buffer.from(await res.arrayBuffer());
    const r = await execa('node', [BIN, 'calls', 'audio', call.id, '--format', 'wav'], {
      reject: false,
      extendEnv: false,
      stdin: 'ignore',
      encoding: 'buffer',
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1', VAP_STATE_DIR: testStateDir(), ...env },
    });
    expect(r.exitCode, Buffer.from(r.stderr as Uint8Array).toString()).toBe(0);
    const got = Buffer.from(r.stdout as Uint8Array);
    expect(got.length).toBe(want.length);
    expect(got.equals(want)).toBe(true);
  });
});
