import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { id3Length, parseFrameHeader } from '../../src/emulator/agents/mp3.js';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli, type RunOptions } from '../helpers/run-cli.js';

let emu: TestEmulator;
let dir: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), 'vap-voices-'));
});
afterAll(async () => {
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  await emu.clearRequests();
});

const vap = (argv: string[], opts: RunOptions = {}) => runCli(argv, { env: cliEnv(emu.url, ORG_A.apiKey), ...opts });

async function voices(language?: string): Promise<Array<{ id: string; name: string; language: string }>> {
  return JSON.parse((await vap(['voices', 'list', '--json', ...(language ? ['--language', language] : [])])).stdout);
}

describe('vap voices list', () => {
  it('lists voices: table on a terminal, TSV when piped, JSON; --language es matches every Spanish voice', async () => {
    const all = await voices();
    expect(all.length).toBeGreaterThanOrEqual(10);
    const table = await vap(['voices', 'list'], { tty: true });
    expect(table.stdout).toMatch(/^ID +NAME +LANGUAGE +DESCRIPTION\n/);
    const tsv = await vap(['voices', 'list', '--language', 'es']);
    const rows = tsv.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(rows.map((r) => r[2]).sort()).toEqual(['es-ES', 'es-MX', 'es-US']);
    expect(rows.every((r) => r.length === 4 && r[0]!.startsWith('voice_'))).toBe(true);
    expect((await voices('en-gb')).map((v) => v.language)).toEqual(['en-GB', 'en-GB']);
    const none = await vap(['voices', 'list', '--language', 'sv'], { tty: true });
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('No voices speak "sv".');
    expect((await vap(['voices', 'list', '-q', '--language', 'fr'])).stdout).toMatch(/^voice_\w+\n$/);
  });
});

describe('vap voices preview', () => {
  function assertMp3(bytes: Buffer): number {
    let off = id3Length(bytes);
    expect(off).toBeGreaterThan(0);
    let frames = 0;
    while (off < bytes.length) {
      const h = parseFrameHeader(bytes, off);
      expect(h, `frame header at byte ${off}`).toMatchObject({ layer: 3, version: 1 });
      off += h!.length;
      frames++;
    }
    expect(off).toBe(bytes.length);
    return frames;
  }

  it('writes a valid MP3 to -O and leaves no temporary file', async () => {
    const [v] = await voices('en-US');
    const file = join(dir, 'ava.mp3');
    const r = await vap(['voices', 'preview', v!.id, '-O', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/Saved the preview of voice .* to .*ava\.mp3 \(\d/);
    expect(assertMp3(readFileSync(file))).toBeGreaterThan(20);
    expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('streams to stdout when it is not a terminal', async () => {
    const [v] = await voices('de');
    const r = await vap(['voices', 'preview', v!.id]);
    expect(r.code).toBe(0);
    // run-cli collects stdout as text; the ID3 header survives that.
    expect(r.stdout.startsWith('ID3')).toBe(true);
    expect(r.stdout.length).toBeGreaterThan(1000);
  });

  it('refuses to write audio to a terminal before sending anything (exit 2)', async () => {
    const r = await vap(['voices', 'preview', 'voice_any'], { tty: true });
    expect(r.code).toBe(2);
    // One message, wrapped at word boundaries on a terminal (its second line under its text).
    expect(r.stderr).toBe('error: refusing to write audio to a terminal; pass -O file.mp3 or pipe to a\n       player\n');
    expect(await emu.requests()).toEqual([]);
  });

  it('refuses a -O in a missing directory before sending anything (exit 2)', async () => {
    const r = await vap(['voices', 'preview', 'voice_any', '-O', join(dir, 'no', 'such', 'x.mp3')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/does not exist/);
    expect(await emu.requests()).toEqual([]);
  });

  it('refuses -O with another audio format’s name (previews are MP3) before sending anything, and writes nothing', async () => {
    for (const name of ['preview.wav', 'preview.WAV', 'preview.ogg', 'preview.flac']) {
      const file = join(dir, name);
      const r = await vap(['voices', 'preview', 'voice_any', '-O', file]);
      expect(r.code, name).toBe(2);
      const ext = name.split('.').pop()!;
      expect(r.stderr).toBe(
        `error: voice previews are MP3 (audio/mpeg), and -O ${file} names a ${ext.toUpperCase()} file; name it ${file.slice(0, -ext.length)}mp3, or convert the stream yourself: vap voices preview voice_any | ffmpeg -i - ${file}\n`,
      );
      expect(existsSync(file)).toBe(false);
    }
    expect(await emu.requests()).toEqual([]);
  });

  it('leaves nothing behind when the request fails: unknown voice, dropped connection', async () => {
    const file = join(dir, 'missing.mp3');
    const r = await vap(['voices', 'preview', 'voice_nope', '-O', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/voice voice_nope not found \(HTTP 404/);
    expect(existsSync(file)).toBe(false);

    const [v] = await voices('fr');
    await emu.fault({ method: 'GET', path: `/api/v1/voices/${v!.id}/preview`, drop: true, count: 10 });
    const dropped = await vap(['voices', 'preview', v!.id, '-O', file]);
    expect(dropped.code).toBe(1);
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).toEqual([]);
    await emu.control('DELETE', '/faults');
  });

  it('has --help with examples', async () => {
    for (const verb of ['list', 'preview']) {
      const r = await vap(['voices', verb, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/Examples:\n {2}\$ vap voices /);
    }
  });
});
