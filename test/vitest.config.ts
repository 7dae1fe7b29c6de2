import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// One project per kind of test, so that each runs alone (`--project unit`); all run together by default.
const kinds = ['unit', 'integration', 'e2e', 'terminal'] as const;

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: kinds.map((name) => ({ extends: true as const, test: { name, include: [`test/${name}/**/*.test.ts`] } })),
  },
});
