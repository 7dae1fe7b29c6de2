import { describe, expect, it } from 'vitest';
import { formatTime, presentation, ServerClock } from '../../src/ui/values.js';

// "Now" for relative times is the server's clock, learned from the whole-second Date header
// of each response and applied to the local clock, which keeps ticking in between.

const T = Date.parse('2026-11-20T10:00:00.000Z');

function clockAt(local: { ms: number }) {
  return new ServerClock(() => local.ms);
}

describe('ServerClock', () => {
  it('is the local clock until a response says otherwise', () => {
    const local = { ms: T + 123 };
    const c = clockAt(local);
    expect(c.now()).toBe(T + 123);
    expect(c.offsetMs).toBe(0);
  });

  it('takes the offset of a reading (the header at the middle of its second) and keeps ticking with the local clock', () => {
    const local = { ms: T };
    const c = clockAt(local);
    // The client runs 10 minutes fast: the server said 09:50:00 when the local clock read 10:00:00.
    c.learn({ serverMs: T - 600_000, receivedAtMs: T });
    expect(c.offsetMs).toBe(-600_000 + 500);
    local.ms += 5_000;
    expect(c.now()).toBe(T - 600_000 + 500 + 5_000);
  });

  it("takes an offset within the header's one-second resolution as none", () => {
    const local = { ms: T + 700 };
    const c = clockAt(local);
    c.learn({ serverMs: T, receivedAtMs: T + 700 }); // the same clock, 0.7 s into the second
    expect(c.offsetMs).toBe(0);
    c.learn({ serverMs: T - 1000, receivedAtMs: T + 200 }); // a second behind at worst: still none
    expect(c.offsetMs).toBe(0);
    expect(c.now()).toBe(T + 700);
  });

  it('follows the latest reading (an emulator whose simulated clock runs faster)', () => {
    const local = { ms: T };
    const c = clockAt(local);
    c.learn({ serverMs: T + 60_000, receivedAtMs: T });
    c.learn({ serverMs: T + 180_000, receivedAtMs: T + 10_000 });
    expect(c.offsetMs).toBe(170_500);
  });

  it('ignores a reading that is not a time', () => {
    const c = clockAt({ ms: T });
    c.learn({ serverMs: Number.NaN, receivedAtMs: T });
    expect(c.offsetMs).toBe(0);
  });
});

describe('relative times against the server clock', () => {
  const at = (ms: number) => new Date(ms).toISOString();

  it('a client 10 minutes fast shows a past event as past, and a scheduled one as ahead', () => {
    const local = { ms: T + 600_000 };
    const c = clockAt(local);
    c.learn({ serverMs: T, receivedAtMs: local.ms });
    const p = presentation({ now: () => c.now() });
    expect(formatTime(at(T - 120_000), p)).toBe('2 minutes ago');
    expect(formatTime(at(T), p)).toBe('just now');
    expect(formatTime(at(T + 5 * 60_000 + 30_000), p)).toBe('in 5 minutes');
    // The local clock alone would have said otherwise.
    expect(formatTime(at(T + 5 * 60_000 + 30_000), presentation({ now: () => local.ms }))).toBe('4 minutes ago');
  });

  it('a client 10 minutes slow never shows a past event as "in N minutes"', () => {
    const local = { ms: T - 600_000 };
    const c = clockAt(local);
    c.learn({ serverMs: T, receivedAtMs: local.ms });
    const p = presentation({ now: () => c.now() });
    expect(formatTime(at(T - 30_000), p)).toBe('30 seconds ago');
    expect(formatTime(at(T - 30_000), presentation({ now: () => local.ms }))).toBe('in 9 minutes');
  });
});
