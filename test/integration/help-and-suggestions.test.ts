import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_A, startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, runCli } from '../helpers/run-cli.js';
import { nearest } from '../../src/ui/suggest.js';

// Help that says what a verb takes (its own flags, then the global ones under their own
// heading), `vap help <typo>` answered as `vap <typo>` is, help topics, and "did you mean"
// for event types.

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ allowLoopbackUrls: true });
});
afterAll(async () => {
  await emu?.close();
});

const GLOBAL_FLAGS = [
  '--profile <name>',
  '--base-url <url>',
  '-o, --output <format>',
  '--json',
  '--query <expr>',
  '-q, --quiet',
  '--no-color',
  '--no-input',
  '-y, --yes',
  '--verbose',
];

/** The lines of one help section, from its heading to the next blank line followed by a heading. */
function section(help: string, heading: string): string {
  const start = help.indexOf(`\n${heading}\n`);
  if (start < 0) return '';
  const rest = help.slice(start + heading.length + 2);
  const end = rest.search(/\n\n\S/);
  return end < 0 ? rest : rest.slice(0, end);
}

describe('a verb’s --help lists the global flags it inherits under their own heading', () => {
  it.each([['agents', 'list'], ['evals', 'runs', 'results'], ['contacts', 'import'], ['api'], ['events', 'tail']])('vap %s … --help', async (...path) => {
    const r = await runCli([...path, '--help']);
    expect(r.code).toBe(0);
    const own = section(r.stdout, 'Options:');
    const globals = section(r.stdout, 'Global Options:');
    for (const flag of GLOBAL_FLAGS) {
      expect(globals, flag).toContain(flag);
      expect(own, flag).not.toContain(`  ${flag} `);
    }
    expect(own).toContain('-h, --help');
  });

  it('a group’s help too; the root help lists them as its own options, once', async () => {
    const group = await runCli(['webhooks', '--help']);
    expect(section(group.stdout, 'Global Options:')).toContain('--base-url <url>');
    const root = await runCli(['--help']);
    expect(root.stdout).not.toContain('Global Options:');
    expect(section(root.stdout, 'Options:')).toContain('--base-url <url>');
  });
});

describe('vap help <command>', () => {
  it('a typo is reported as `vap <typo>` reports it: the suggestion, exit 2, nothing on stdout', async () => {
    const typo = await runCli(['agnts']);
    const help = await runCli(['help', 'agnts']);
    expect(help.code).toBe(2);
    expect(help.stdout).toBe('');
    expect(help.stderr).toBe(typo.stderr);
    expect(help.stderr).toBe("error: unknown command 'agnts'\n(Did you mean agents?)\n(run `vap --help` for usage)\n");
  });

  it('a typo in a verb, after the group or after the group’s own help', async () => {
    // A command and its alias are one command: named once.
    const expected = "error: unknown command 'lst'\n(Did you mean list?)\n(run `vap agents --help` for usage)\n";
    for (const argv of [
      ['help', 'agents', 'lst'],
      ['agents', 'help', 'lst'],
      ['--profile', 'x', 'help', 'agents', 'lst'],
    ]) {
      const r = await runCli(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr, argv.join(' ')).toBe(expected);
    }
  });

  it('a known path shows that command’s help, however deep', async () => {
    const viaHelp = await runCli(['help', 'evals', 'runs', 'list']);
    const viaFlag = await runCli(['evals', 'runs', 'list', '--help']);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
    expect(viaHelp.stdout).toMatch(/^Usage: vap evals runs list/);
    const group = await runCli(['help', 'agents']);
    expect(group.stdout).toBe((await runCli(['agents', '--help'])).stdout);
  });

  it('vap help accessibility is a topic (also vap a11y), listed by the root help and left out of the command list', async () => {
    const topic = await runCli(['help', 'accessibility']);
    expect(topic.code).toBe(0);
    expect(topic.stdout).toMatch(/^Accessibility\n/);
    expect(topic.stdout).toContain('VAP_ACCESSIBLE=1');
    expect(topic.stdout).toContain('ACCESSIBLE=1');
    expect((await runCli(['a11y'])).stdout).toBe(topic.stdout);
    const root = await runCli(['--help']);
    expect(root.stdout).toMatch(/\nHelp topics:\n {2}vap help accessibility {2}/);
    expect(section(root.stdout, 'Commands:')).not.toContain('accessibility');
    expect(root.stdout).toMatch(/\n {2}VAP_ACCESSIBLE +plain lines/);
  });
});

describe('an unknown event type suggests the nearest one (exit 2, nothing streamed)', () => {
  const env = () => cliEnv(emu.url, ORG_A.apiKey);

  it.each([
    ['call.endd', 'call.ended'],
    ['ended', 'call.ended'],
    ['call.anlysis.completed', 'call.analysis.completed'],
    ['compaign.status.updated', 'campaign.status.updated'],
  ])('events tail --types %s → %s', async (typo, near) => {
    const r = await runCli(['events', 'tail', '--types', typo], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: unknown event type "${typo}" in --types; did you mean ${near}? (\`vap events types\` lists them all)\n`);
    expect(r.stdout).toBe('');
  });

  it('a name near nothing lists the catalog instead', async () => {
    const r = await runCli(['events', 'tail', '--types', 'zzz'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: unknown event type "zzz" in --types; known types: call\.started, /);
  });

  it('calls tail and webhooks create suggest too', async () => {
    const tail = await runCli(['calls', 'tail', '6f1c2d3e-0000-4000-8000-000000000000', '--types', 'call.transcript.update'], { env: env() });
    expect(tail.code).toBe(2);
    expect(tail.stderr).toContain('did you mean call.transcript.updated?');
    const hook = await runCli(['webhooks', 'create', '--name', 'x', '--url', 'http://127.0.0.1:9/hook', '--events', 'call.startd'], { env: env() });
    expect(hook.code).toBe(2);
    expect(hook.stderr).toMatch(/^error: unknown event type "call\.startd"; did you mean call\.started\? webhooks can subscribe to: /);
  });
});

describe('nearest', () => {
  it('keeps only the best, close enough for the word’s length', () => {
    expect(nearest('call.ended', ['call.ended', 'call.started'])).toEqual(['call.ended']);
    expect(nearest('xyz', ['call.ended'])).toEqual([]);
    expect(nearest('', ['call.ended'])).toEqual([]);
    expect(nearest('CALL.ENDED', ['call.ended'])).toEqual(['call.ended']);
  });
});
