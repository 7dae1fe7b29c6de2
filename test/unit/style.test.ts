import { describe, expect, it } from 'vitest';
import { colorEnabled } from '../../src/ui/style.js';

describe('colorEnabled', () => {
  it('is on for a terminal and off when piped', () => {
    expect(colorEnabled({ flag: true, isTTY: true, env: {} })).toBe(true);
    expect(colorEnabled({ flag: true, isTTY: false, env: {} })).toBe(false);
  });
  it('NO_COLOR and --no-color turn it off; FORCE_COLOR turns it on', () => {
    expect(colorEnabled({ flag: true, isTTY: true, env: { NO_COLOR: '1' } })).toBe(false);
    expect(colorEnabled({ flag: false, isTTY: true, env: {} })).toBe(false);
    expect(colorEnabled({ flag: true, isTTY: false, env: { FORCE_COLOR: '1' } })).toBe(true);
    expect(colorEnabled({ flag: true, isTTY: true, env: { FORCE_COLOR: '0' } })).toBe(false);
    expect(colorEnabled({ flag: true, isTTY: true, env: { TERM: 'dumb' } })).toBe(false);
  });
});
