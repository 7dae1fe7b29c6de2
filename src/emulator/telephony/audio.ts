import { Readable } from 'node:stream';
import { frame, harmonicLine, id3Tag, SAMPLES_PER_FRAME, type Granule } from '../agents/mp3.js';
import type { Segment } from './script.js';

/**
 * Recordings as real audio (WAV or MP3), generated while streamed so a long call is never held
 * whole in memory: each turn a soft tone, silence between turns, the call's duration in all
 * (the formats: src/emulator/README.md).
 */

export const WAV_RATE = 8000;
const WAV_HEADER = 44;
const MP3_RATE = 48_000;
const MP3_FRAME_BYTES = 96;
const GRANULE_SECONDS = 576 / MP3_RATE;

export interface Audio {
  contentType: string;
  length: number;
  stream(): Readable;
}

/** Which role speaks at second `t` (segments sorted by offset), and how far into the turn. */
function speakerAt(segments: Segment[], t: number): { role: 'agent' | 'user'; into: number; left: number } | null {
  let lo = 0;
  let hi = segments.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (segments[mid]!.offsetSeconds <= t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (found < 0) return null;
  const s = segments[found]!;
  const into = t - s.offsetSeconds;
  if (into >= s.seconds) return null;
  return { role: s.role, into, left: s.seconds - into };
}

export function wavHeader(samples: number): Buffer {
  const h = Buffer.alloc(WAV_HEADER);
  const dataBytes = samples * 2;
  h.write('RIFF', 0, 'latin1');
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write('WAVE', 8, 'latin1');
  h.write('fmt ', 12, 'latin1');
  h.writeUInt32LE(16, 16); // fmt chunk size
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(1, 22); // mono
  h.writeUInt32LE(WAV_RATE, 24);
  h.writeUInt32LE(WAV_RATE * 2, 28); // byte rate
  h.writeUInt16LE(2, 32); // block align
  h.writeUInt16LE(16, 34); // bits per sample
  h.write('data', 36, 'latin1');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

export function wavAudio(seconds: number, segments: Segment[]): Audio {
  const samples = Math.max(0, Math.round(seconds * WAV_RATE));
  const sorted = [...segments].sort((a, b) => a.offsetSeconds - b.offsetSeconds);
  return {
    contentType: 'audio/wav',
    length: WAV_HEADER + samples * 2,
    stream() {
      let next = 0;
      let headerSent = false;
      return new Readable({
        read() {
          if (!headerSent) {
            headerSent = true;
            this.push(wavHeader(samples));
            if (samples === 0) this.push(null);
            return;
          }
          const n = Math.min(WAV_RATE, samples - next); // one second per chunk
          const buf = Buffer.alloc(n * 2);
          for (let i = 0; i < n; i++) {
            const t = (next + i) / WAV_RATE;
            const sp = speakerAt(sorted, t);
            if (!sp) continue;
            const freq = sp.role === 'agent' ? 440 : 300;
            const edge = Math.min(1, sp.into / 0.02, sp.left / 0.02);
            const pulse = 0.55 + 0.45 * Math.sin(2 * Math.PI * 4 * sp.into);
            const v = Math.sin(2 * Math.PI * freq * t) * 0.3 * edge * pulse;
            buf.writeInt16LE(Math.round(v * 32767), i * 2);
          }
          next += n;
          this.push(buf);
          if (next >= samples) this.push(null);
        },
      });
    },
  };
}

export function mp3Audio(seconds: number, segments: Segment[], title: string): Audio {
  const frames = Math.max(1, Math.ceil((seconds * MP3_RATE) / SAMPLES_PER_FRAME));
  const tag = id3Tag(title);
  const sorted = [...segments].sort((a, b) => a.offsetSeconds - b.offsetSeconds);
  const granule = (g: number): Granule => {
    const t = g * GRANULE_SECONDS;
    const sp = speakerAt(sorted, t);
    if (!sp) return { line: null, gain: 0 };
    const edge = Math.min(1, sp.into / 0.036, sp.left / 0.036);
    const pulse = 0.55 + 0.45 * Math.sin(2 * Math.PI * 4 * sp.into);
    return { line: harmonicLine(sp.role === 'agent' ? 5 : 4), gain: 196 - Math.round((1 - edge * pulse) * 16) };
  };
  return {
    contentType: 'audio/mpeg',
    length: tag.length + frames * MP3_FRAME_BYTES,
    stream() {
      let f = 0;
      let tagSent = false;
      return new Readable({
        read() {
          if (!tagSent) {
            tagSent = true;
            this.push(Buffer.from(tag));
            return;
          }
          const n = Math.min(256, frames - f);
          const buf = Buffer.alloc(n * MP3_FRAME_BYTES);
          for (let i = 0; i < n; i++) buf.set(frame(granule((f + i) * 2), granule((f + i) * 2 + 1)), i * MP3_FRAME_BYTES);
          f += n;
          this.push(buf);
          if (f >= frames) this.push(null);
        },
      });
    },
  };
}
