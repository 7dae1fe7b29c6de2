import { constants } from 'node:http2';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a plain .mjs build script without type declarations
import { HTTP2_CONSTANTS } from '../../src/build/lazy-builtins.mjs';

describe('the lazy-builtins build patch', () => {
  it('gives undici the same HTTP/2 constants node:http2 has', () => {
    for (const [name, value] of Object.entries(HTTP2_CONSTANTS as Record<string, unknown>)) {
      expect(constants[name as keyof typeof constants], name).toBe(value);
    }
  });
});
