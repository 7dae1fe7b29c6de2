import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { checkRev } from '../../src/bisect/git.js';

describe('a revision given to vap bisect', () => {
  it('passes as written when git could only take it for a revision', () => {
    for (const rev of ['HEAD', 'HEAD~10', 'v1.4', 'main', 'origin/main', '3f2a1c0', 'HEAD^2', 'feature/a-b_c']) expect(checkRev('--good', rev)).toBe(rev);
    expect(checkRev('--bad', '  HEAD ')).toBe('HEAD');
  });

  it('is refused, naming the flag, when git could take it for an option, or it is empty or holds a control character', () => {
    for (const rev of ['-n', '--upload-pack=touch /tmp/x', '--output=/tmp/x', '', '   ', 'HEAD\nmain', 'a\u001b[2J', 'x'.repeat(300)]) {
      expect(() => checkRev('--good', rev)).toThrow(UsageError);
      expect(() => checkRev('--good', rev)).toThrow(/--good/);
    }
  });
});
