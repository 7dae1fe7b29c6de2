/**
 * A hand-written MP3 generator for voice previews (a pure-JS encoder is a large dependency for a
 * few seconds of sound): real Layer III frames, one MDCT line each, so a preview is a soft
 * three-note chime per voice that every decoder plays (the frames: src/emulator/README.md).
 */

const SAMPLE_RATE = 48_000;
const SAMPLE_RATE_INDEX = 0b01; // 48 kHz in MPEG-1
const BITRATE_INDEX = 0b0001; // 32 kbit/s in MPEG-1 Layer III
const FRAME_BYTES = (144 * 32_000) / SAMPLE_RATE; // 96, no padding needed at 48 kHz
const SIDE_INFO_BYTES = 17; // MPEG-1 mono
const GRANULE_SAMPLES = 576;
export const SAMPLES_PER_FRAME = 1152;

/** Frequency (Hz) a decoder plays for spectral line `k` held over consecutive granules. */
export function lineFrequency(k: number): number {
  return (Math.ceil(k / 2) * SAMPLE_RATE) / GRANULE_SAMPLES;
}

/** The spectral line that sounds as the m-th multiple of 83.3 Hz (m = 4 is 333 Hz, m = 12 is 1 kHz). */
export function harmonicLine(m: number): number {
  return 2 * m - 1;
}

class BitWriter {
  private readonly bytes: Uint8Array;
  private pos = 0; // in bits

  constructor(size: number) {
    this.bytes = new Uint8Array(size);
  }

  write(value: number, bits: number): void {
    for (let i = bits - 1; i >= 0; i--) {
      if ((value >>> i) & 1) this.bytes[this.pos >>> 3]! |= 0x80 >>> (this.pos & 7);
      this.pos++;
    }
  }

  get bitPosition(): number {
    return this.pos;
  }

  result(): Uint8Array {
    return this.bytes;
  }
}

/** One granule: which spectral line sounds (or none) and how loud (global gain, 0..255). */
export interface Granule {
  line: number | null;
  gain: number;
}

/**
 * The Huffman-coded big_values of one granule: every pair up to the one holding
 * `line` (table 1: (0,0) = 1, (1,0) = 01, (0,1) = 001, each non-zero value
 * followed by its sign bit).
 */
function bigValues(line: number | null): { pairs: number; write: (w: BitWriter) => void; bits: number } {
  if (line === null) return { pairs: 0, bits: 0, write: () => undefined };
  const pair = Math.floor(line / 2);
  const odd = line % 2 === 1;
  const bits = pair * 1 + (odd ? 3 : 2) + 1;
  return {
    pairs: pair + 1,
    bits,
    write: (w) => {
      for (let i = 0; i < pair; i++) w.write(0b1, 1);
      if (odd) w.write(0b001, 3);
      else w.write(0b01, 2);
      w.write(0, 1); // sign: positive
    },
  };
}

/** One 96-byte Layer III frame holding two granules. */
export function frame(g1: Granule, g2: Granule): Uint8Array {
  const w = new BitWriter(FRAME_BYTES);
  // Header.
  w.write(0x7ff, 11); // frame sync
  w.write(0b11, 2); // MPEG-1
  w.write(0b01, 2); // Layer III
  w.write(1, 1); // no CRC
  w.write(BITRATE_INDEX, 4);
  w.write(SAMPLE_RATE_INDEX, 2);
  w.write(0, 1); // padding
  w.write(0, 1); // private
  w.write(0b11, 2); // single channel
  w.write(0, 2); // mode extension
  w.write(0, 1); // copyright
  w.write(1, 1); // original
  w.write(0, 2); // emphasis: none
  // Side information (mono): main data starts right after it.
  const granules = [g1, g2].map((g) => ({ g, bv: bigValues(g.line) }));
  w.write(0, 9); // main_data_begin
  w.write(0, 5); // private bits
  w.write(0, 4); // scfsi
  for (const { g, bv } of granules) {
    w.write(bv.bits, 12); // part2_3_length (no scale factor bits: scalefac_compress 0)
    w.write(bv.pairs, 9); // big_values
    w.write(Math.max(0, Math.min(255, Math.round(g.gain))), 8); // global_gain
    w.write(0, 4); // scalefac_compress
    w.write(0, 1); // window_switching_flag: long blocks
    w.write(1, 5); // table_select region 0: table 1
    w.write(1, 5); // region 1
    w.write(1, 5); // region 2
    w.write(0, 4); // region0_count
    w.write(0, 3); // region1_count
    w.write(0, 1); // preflag
    w.write(0, 1); // scalefac_scale
    w.write(0, 1); // count1table_select
  }
  if (w.bitPosition !== (4 + SIDE_INFO_BYTES) * 8) throw new Error('side information has the wrong size');
  // Main data; the rest of the frame is zero (ancillary data).
  for (const { bv } of granules) bv.write(w);
  return w.result();
}

/** An ID3v2.3 tag with a title (TIT2) frame; text is kept to printable ASCII. */
export function id3Tag(title: string): Uint8Array {
  const text = Buffer.from(title.replace(/[^\x20-\x7e]/g, '?'), 'latin1');
  const frameBody = Buffer.concat([Buffer.from([0]), text]); // encoding 0: ISO-8859-1
  const frameHeader = Buffer.alloc(10);
  frameHeader.write('TIT2', 0, 'latin1');
  frameHeader.writeUInt32BE(frameBody.length, 4);
  const tagBody = Buffer.concat([frameHeader, frameBody]);
  const header = Buffer.from([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 0]);
  const size = tagBody.length; // synchsafe: 7 bits per byte
  header[6] = (size >>> 21) & 0x7f;
  header[7] = (size >>> 14) & 0x7f;
  header[8] = (size >>> 7) & 0x7f;
  header[9] = size & 0x7f;
  return new Uint8Array(Buffer.concat([header, tagBody]));
}

export interface ChimeOptions {
  /** Spectral lines of the notes, played in turn (see lineFrequency). */
  notes: number[];
  /** Granules (12 ms each) per note. */
  granulesPerNote?: number;
  /** Peak global gain; 210 is a full-scale coefficient, each step is 1.5 dB. */
  peakGain?: number;
  title?: string;
}

/** Granules of a chime: each note fades in over 3 granules and out over 4, with a short rest after. */
export function chimeGranules(opts: ChimeOptions): Granule[] {
  const per = opts.granulesPerNote ?? 22;
  const peak = opts.peakGain ?? 202;
  const out: Granule[] = [];
  for (const line of opts.notes) {
    for (let i = 0; i < per; i++) {
      const fadeIn = Math.min(1, (i + 1) / 3);
      const fadeOut = Math.min(1, (per - i) / 4);
      const level = Math.min(fadeIn, fadeOut);
      // Gain steps are logarithmic (1.5 dB); approach silence over ~24 dB.
      out.push({ line, gain: peak - Math.round((1 - level) * 16) });
    }
    out.push({ line: null, gain: 0 }, { line: null, gain: 0 });
  }
  if (out.length % 2 === 1) out.push({ line: null, gain: 0 });
  return out;
}

/** A complete MP3 file: ID3 tag, then the chime's frames, then two silent frames. */
export function chimeMp3(opts: ChimeOptions): Buffer {
  const granules = chimeGranules(opts);
  for (let i = 0; i < 4; i++) granules.push({ line: null, gain: 0 });
  const parts: Uint8Array[] = [];
  if (opts.title !== undefined) parts.push(id3Tag(opts.title));
  for (let i = 0; i < granules.length; i += 2) parts.push(frame(granules[i]!, granules[i + 1]!));
  return Buffer.concat(parts);
}

/** Parses an MPEG audio frame header at `offset` (MPEG-1/2/2.5, layers I-III); undefined when there is none. */
export function parseFrameHeader(
  buf: Uint8Array,
  offset: number,
): { version: 1 | 2 | 2.5; layer: 1 | 2 | 3; bitrate: number; sampleRate: number; channels: 1 | 2; length: number } | undefined {
  if (offset + 4 > buf.length) return undefined;
  const b0 = buf[offset]!,
    b1 = buf[offset + 1]!,
    b2 = buf[offset + 2]!,
    b3 = buf[offset + 3]!;
  if (b0 !== 0xff || (b1 & 0xe0) !== 0xe0) return undefined;
  const versionBits = (b1 >> 3) & 3;
  const layerBits = (b1 >> 1) & 3;
  if (versionBits === 1 || layerBits === 0) return undefined;
  const version = versionBits === 3 ? 1 : versionBits === 2 ? 2 : 2.5;
  const layer = (4 - layerBits) as 1 | 2 | 3;
  const bitrateIndex = b2 >> 4;
  const srIndex = (b2 >> 2) & 3;
  const padding = (b2 >> 1) & 1;
  if (bitrateIndex === 0 || bitrateIndex === 15 || srIndex === 3) return undefined;
  const BITRATES: Record<string, number[]> = {
    '1-1': [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
    '1-2': [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
    '1-3': [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
    '2-1': [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
    '2-2': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  };
  const key = `${version === 1 ? 1 : 2}-${version === 1 ? layer : layer === 1 ? 1 : 2}`;
  const bitrate = BITRATES[key]![bitrateIndex]! * 1000;
  const sampleRate = [44_100, 48_000, 32_000][srIndex]! / (version === 1 ? 1 : version === 2 ? 2 : 4);
  const channels = b3 >> 6 === 3 ? 1 : 2;
  let length: number;
  if (layer === 1) length = (Math.floor((12 * bitrate) / sampleRate) + padding) * 4;
  else if (layer === 3 && version !== 1) length = Math.floor((72 * bitrate) / sampleRate) + padding;
  else length = Math.floor((144 * bitrate) / sampleRate) + padding;
  return { version, layer, bitrate, sampleRate, channels, length };
}

/** Length of a leading ID3v2 tag (0 when there is none). */
export function id3Length(buf: Uint8Array): number {
  if (buf.length < 10 || buf[0] !== 0x49 || buf[1] !== 0x44 || buf[2] !== 0x33) return 0;
  const size = ((buf[6]! & 0x7f) << 21) | ((buf[7]! & 0x7f) << 14) | ((buf[8]! & 0x7f) << 7) | (buf[9]! & 0x7f);
  return 10 + size + (buf[5]! & 0x10 ? 10 : 0);
}
