import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GROUPS } from '../../src/commands/registry.js';
import { listTopics } from '../../src/help/topics.js';
import { ROOT } from '../helpers/built.js';

// The README is short and points to the manual: what vap is, how to install it, the quick
// start, an example for each kind of user, the path from a pull request to production, and
// links to docs/, which all lead somewhere.

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const lines = readme.split('\n');

/** The text of a section, from its heading to the next heading of the same or a higher level. */
function section(title: RegExp): string {
  const start = lines.findIndex((l) => /^#{2,3} /.test(l) && title.test(l));
  if (start < 0) return '';
  const level = /^#+/.exec(lines[start]!)![0].length;
  const end = lines.findIndex((l, i) => i > start && new RegExp(`^#{1,${level}} `).test(l));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

describe('the README', () => {
  it('is at most 300 lines', () => {
    expect(lines.length).toBeLessThanOrEqual(300);
  });

  it('says how to install, also from a tarball', () => {
    const install = section(/^## Install/);
    expect(install).toContain('npm link');
    expect(install).toContain('npm pack');
    expect(install).toMatch(/npm install --global \.\/vap-[\d.]+\.tgz/);
  });

  it('has a Quick start with the command that runs vap and the one that tests it', () => {
    const quick = section(/^## Quick start/);
    expect(quick).toContain('npm ci && npm run demo');
    expect(quick).toContain('npm ci && npm test');
  });

  it('has an example for each kind of user', () => {
    for (const who of ['Engineers', 'CI jobs', 'Support staff', 'Admins']) expect(readme).toMatch(new RegExp(`\\*\\*${who}\\*\\*[\\s\\S]*?\`\`\`sh\\n`));
  });

  it('keeps, in one place, "From pull request to production" with its commands and the two workflows', () => {
    const path = section(/From pull request to production/);
    expect(path).toMatch(/```sh\nvap pull --profile staging --all[\s\S]*vap promote --from staging --to prod --yes[^\n]*\n```/);
    expect(path).toContain('docs/workflows/pull-request.yml');
    expect(path).toContain('docs/workflows/main.yml');
    expect(readme.match(/From pull request to production/g)).toHaveLength(1);
  });

  it('lists every help topic and links every command group’s page', () => {
    for (const t of listTopics()) expect(readme, t.name).toContain(`](docs/${t.name}.md)`);
    for (const g of GROUPS) expect(readme, g.name).toContain(`](docs/commands/${g.name}.md)`);
  });

  it('links only to files that exist, and keeps benchmarks and internals out', () => {
    for (const m of readme.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
      if (/^https?:/.test(m[1]!)) continue;
      expect(existsSync(join(ROOT, m[1]!)), m[1]).toBe(true);
    }
    expect(readme).not.toMatch(/\bp95\b|\bmedian\b|--liftoff-only|compile cache/i);
  });
});
