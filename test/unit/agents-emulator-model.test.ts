import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from 'commander';
import { Catalog } from '../../src/emulator/agents/catalog.js';
import { speaks } from '../../src/emulator/agents/model.js';
import { chimeMp3, frame, harmonicLine, id3Length, id3Tag, lineFrequency, parseFrameHeader, SAMPLES_PER_FRAME } from '../../src/emulator/agents/mp3.js';
import { BCP47 } from '../../src/emulator/agents/validate.js';
import { collectVariable } from '../../src/commands/agents/input.js';
import { parseToolIds } from '../../src/commands/agents/tools.js';

describe('MP3 frames', () => {
  it('builds 96-byte MPEG-1 Layer III frames (48 kHz, 32 kbit/s, mono) whose header parses', () => {
    const f = frame({ line: 10, gain: 200 }, { line: null, gain: 0 });
    expect(f.length).toBe(96);
    expect([f[0], f[1], f[2], f[3]]).toEqual([0xff, 0xfb, 0x14, 0xc4]);
    expect(parseFrameHeader(f, 0)).toEqual({ version: 1, layer: 3, bitrate: 32_000, sampleRate: 48_000, channels: 1, length: 96 });
  });

  it('puts the side information and Huffman data where a decoder reads them', () => {
    const f = frame({ line: 3, gain: 200 }, { line: null, gain: 0 });
    // Side info starts at byte 4: main_data_begin (9 bits) = 0, private (5) = 0, scfsi (4) = 0,
    // then granule 1: part2_3_length (12 bits) = 1 zero pair + "001" + sign = 5 bits, big_values (9) = 2.
    const bits = [...f.subarray(4, 21)].map((b) => b.toString(2).padStart(8, '0')).join('');
    expect(bits.slice(0, 18)).toBe('0'.repeat(18));
    expect(parseInt(bits.slice(18, 30), 2)).toBe(5);
    expect(parseInt(bits.slice(30, 39), 2)).toBe(2);
    expect(parseInt(bits.slice(39, 47), 2)).toBe(200);
    // Main data: "1" (pair 0,0) then "001" (pair 0,1) then sign 0.
    expect(f[21]!.toString(2).padStart(8, '0').slice(0, 5)).toBe('10010');
  });

  it('writes an ID3v2.3 tag, then only whole frames; the length matches the notes', () => {
    const mp3 = chimeMp3({ notes: [9, 12], granulesPerNote: 10, title: 'Voice preview: Ava' });
    expect(mp3.subarray(0, 3).toString('latin1')).toBe('ID3');
    expect(mp3.toString('latin1')).toContain('Voice preview: Ava');
    const start = id3Length(mp3);
    expect(start).toBe(id3Tag('Voice preview: Ava').length);
    expect((mp3.length - start) % 96).toBe(0);
    const frames = (mp3.length - start) / 96;
    // 2 notes x (10 + 2 rest) granules + 4 silent granules = 28 granules = 14 frames.
    expect(frames).toBe(14);
    for (let i = 0; i < frames; i++) expect(parseFrameHeader(mp3, start + i * 96)?.layer).toBe(3);
    expect((frames * SAMPLES_PER_FRAME) / 48_000).toBeCloseTo(0.336, 3);
    expect(lineFrequency(9)).toBeCloseTo(416.7, 1);
    expect(lineFrequency(harmonicLine(12))).toBe(1000);
  });

  it('rejects what is not a frame header', () => {
    expect(parseFrameHeader(Buffer.from('ID3\x03\x00'), 0)).toBeUndefined();
    expect(parseFrameHeader(Buffer.from([0xff, 0xfb, 0xf0, 0xc4]), 0)).toBeUndefined(); // bitrate index 15
    expect(parseFrameHeader(Buffer.from([0xff, 0xfb]), 0)).toBeUndefined();
  });
});

describe('catalog', () => {
  it('is deterministic per seed, with distinct tool ids per organization', () => {
    const a = new Catalog(7);
    const b = new Catalog(7);
    expect(a.voices).toEqual(b.voices);
    expect(new Catalog(8).voices[0]!.id).not.toBe(a.voices[0]!.id);
    expect(a.tools('org_1')).toEqual(b.tools('org_1'));
    const ids1 = a.tools('org_1').map((t) => t.id);
    const ids2 = a.tools('org_2').map((t) => t.id);
    expect(ids1.some((id) => ids2.includes(id))).toBe(false);
    expect(a.tools('org_1').map((t) => t.name)).toEqual(a.tools('org_2').map((t) => t.name));
    expect(a.tool('org_2', ids1[0]!)).toBeUndefined();
  });

  it('filters voices by full tag or bare language code', () => {
    const c = new Catalog(1);
    expect(
      c
        .voicesFor('es')
        .map((v) => v.language)
        .sort(),
    ).toEqual(['es-ES', 'es-MX', 'es-US']);
    expect(c.voicesFor('EN-gb').map((v) => v.language)).toEqual(['en-GB', 'en-GB']);
    expect(c.voicesFor('e')).toEqual([]);
    expect(c.voicesFor(undefined)).toHaveLength(c.voices.length);
  });

  it('gives every voice a different preview', () => {
    const c = new Catalog(1);
    const previews = c.voices.map((v) =>
      c
        .preview(v.id)!
        .subarray(id3Length(c.preview(v.id)!))
        .toString('hex'),
    );
    expect(new Set(previews).size).toBe(c.voices.length);
    expect(c.preview('voice_nope')).toBeUndefined();
  });

  it('knows which languages a voice speaks', () => {
    const voice = { id: 'v', name: 'Mateo', description: '', language: 'es-MX', previewUrl: '' };
    expect(speaks(voice, 'es-mx')).toBe('es-MX');
    expect(speaks(voice, 'es')).toBe('es-MX');
    expect(speaks(voice, 'es-ES')).toBeUndefined();
    expect(BCP47.test('zh-Hant-TW')).toBe(true);
    expect(BCP47.test('es-419')).toBe(true);
    expect(BCP47.test('english')).toBe(false);
  });
});

describe('CLI input parsing', () => {
  it('parses --variable name=description, refusing a missing = or name', () => {
    expect(collectVariable('a=b=c', undefined)).toEqual([{ name: 'a', description: 'b=c' }]);
    expect(collectVariable('x=', [{ name: 'a', description: '' }])).toEqual([
      { name: 'a', description: '' },
      { name: 'x', description: '' },
    ]);
    expect(() => collectVariable('foo', undefined)).toThrow(InvalidArgumentError);
    expect(() => collectVariable('=x', undefined)).toThrow(/name=description/);
    expect(() => collectVariable('a=2', [{ name: 'a', description: '1' }])).toThrow(/twice/);
  });

  it('splits --set tool ids, dropping blanks and duplicates', () => {
    expect(parseToolIds('')).toEqual([]);
    expect(parseToolIds(' a, b,,a ,c')).toEqual(['a', 'b', 'c']);
  });
});
