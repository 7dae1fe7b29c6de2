// Issue 10, point 2: `npm run demo` shows what a person at a terminal sees. The demo runs
// each command under a pseudo-terminal (`script`), so listings are tables with a header
// row and aligned columns, while its piped examples (--json, -q) print machine output.
import { execa } from 'execa';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt } from '../helpers/built.js';

const DEMO = fileURLToPath(new URL('../demo/quickstart.mjs', import.meta.url));
// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

let out: string;
beforeAll(async () => {
  assertBuilt();
  const r = await execa('node', [DEMO], {
    reject: false,
    timeout: 120_000,
    extendEnv: false,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' },
  });
  expect(r.exitCode, String(r.stderr)).toBe(0);
  out = String(r.stdout).replace(ANSI, '');
}, 130_000);

/** The lines a command printed (up to the next command). */
function outputOf(command: string): string[] {
  const start = out.indexOf(`$ vap ${command}\n`);
  expect(start, `the demo runs \`vap ${command}\``).toBeGreaterThanOrEqual(0);
  const rest = out.slice(start).split('\n').slice(1);
  const end = rest.findIndex((l) => l.startsWith('$ vap '));
  return rest.slice(0, end < 0 ? undefined : end).filter((l) => l.trim() !== '');
}

describe('npm run demo', () => {
  it('says its commands run in a terminal', () => {
    expect(out).toContain('Each command runs in a terminal of its own (a pseudo-terminal)');
  });

  it('`vap agents list` prints a table: a header row, and the row aligned under it', () => {
    const [header, row, ...more] = outputOf('agents list');
    expect(more).toEqual([]);
    expect(header).toMatch(/^ID\s+NAME\s+ENGINE\s+VERSION\s+VOICE$/);
    expect(row).toMatch(/^ag_\w+\s+Front desk\s+realtime\s+1\s+/);
    // Columns: each value starts where its header does (not TSV).
    expect(row).not.toContain('\t');
    expect(row!.indexOf('Front desk')).toBe(header!.indexOf('NAME'));
    expect(row!.indexOf('realtime')).toBe(header!.indexOf('ENGINE'));
  });

  it('`vap voices list --language es` prints a table of three voices', () => {
    const lines = outputOf('voices list --language es');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+LANGUAGE\s+DESCRIPTION$/);
    expect(lines.slice(1)).toHaveLength(3);
    for (const l of lines.slice(1)) expect(l.indexOf('es-')).toBe(lines[0]!.indexOf('LANGUAGE'));
  });

  it('the large import draws its progress bar while it runs (frames redrawn with \\r), ends at 100% with all 20,000 rows, then the summary', () => {
    const start = out.indexOf('leads-20000.csv --default-country US');
    expect(start).toBeGreaterThan(0);
    const section = out.slice(start, out.indexOf('\n$ vap ', start));
    const frames = section.split(/[\r\n]/).filter((f) => /^\[█*░*\] +\d+%  [\d,]+( of ~?[\d,]+)? rows/.test(f));
    expect(frames.length).toBeGreaterThan(1);
    // Rows done (processed by the emulator) out of the file's rows: only the last frame says 100%, and it says every row.
    const percents = frames.map((f) => Number(/(\d+)%/.exec(f)![1]));
    expect(percents.slice(0, -1).every((p) => p < 100)).toBe(true);
    expect(frames.at(-1)).toMatch(/^\[█+\] 100%  20,000 of 20,000 rows  20,000 sent  /);
    expect(section).toMatch(/Imported .*leads-20000\.csv into list cl_\w+: 20,000 rows in /);
  });

  it('the piped examples print machine output: JSON, and ids alone', () => {
    const json = outputOf(out.match(/\$ vap (contacts list cl_\w+ --json \| …)/)![1]!).join('\n');
    expect(JSON.parse(json)).toEqual([
      expect.objectContaining({ name: 'Ada Lovelace', phone: '+14155550100' }),
      expect.objectContaining({ name: 'Alan Turing', phone: '+14155550101' }),
    ]);
    expect(outputOf('agents list -q | …   # ids only')).toEqual([expect.stringMatching(/^ag_\w+$/), expect.stringMatching(/^Done\. /)]);
  });
});
