import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { listTopics } from '../../src/help/topics.js';
import { GROUPS } from '../../src/commands/registry.js';

// The manual in the terminal: `vap help` lists every topic, `vap help <topic>` (and an alias,
// and `vap <topic>`) prints it; a word that names no command is reported as unknown, with the
// nearest name and exit 2, whether --help follows it or not.

describe('vap help and the topics', () => {
  it('vap help (and vap --help) lists every topic with its summary', async () => {
    const help = await runCli(['help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toBe((await runCli(['--help'])).stdout);
    const list = help.stdout.slice(help.stdout.indexOf('\nHelp topics:\n'));
    for (const t of listTopics()) expect(list, t.name).toMatch(new RegExp(`\\n  vap help ${t.name} +${t.summary.split(' ')[0]}`));
    for (const line of help.stdout.split('\n')) expect(line.length, line).toBeLessThanOrEqual(90);
  });

  const GROUP_NAMES = GROUPS.map((g) => g.name);
  const plainTopics = listTopics().filter((t) => !GROUP_NAMES.includes(t.name));

  it.each(plainTopics.map((t) => t.name))('vap help %s prints the topic, as vap %s does, its aliases too', async (name) => {
    const r = await runCli(['help', name]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')[1]).toBe('');
    expect(r.stdout.length).toBeGreaterThan(500);
    expect((await runCli([name])).stdout).toBe(r.stdout);
    expect((await runCli([name, '--help'])).stdout).toBe(r.stdout);
    for (const alias of listTopics().find((t) => t.name === name)!.aliases) expect((await runCli(['help', alias])).stdout).toBe(r.stdout);
  });

  it('a topic named like a command group: vap help emulator is the topic, vap emulator --help the command, each pointing to the other', async () => {
    for (const [name, title] of [
      ['emulator', 'The emulator'],
      ['mcp', 'Serving AI assistants: vap mcp'],
    ]) {
      const topic = await runCli(['help', name]);
      expect(topic.code).toBe(0);
      expect(topic.stdout.split('\n')[0]).toBe(title);
      expect(topic.stdout).not.toMatch(/^Usage:/m);
      expect(topic.stdout.trimEnd().split('\n').at(-1)).toBe(`See also: vap ${name} --help (the command's usage and options)`);
      const command = await runCli([name, '--help']);
      expect(command.code).toBe(0);
      expect(command.stdout).toMatch(new RegExp(`^Usage: vap ${name} `));
      expect(command.stdout).not.toContain(`\n${title}\n`);
      expect(command.stdout.trimEnd().split('\n').at(-1)).toBe(`See also: vap help ${name} (the manual's page)`);
    }
    expect((await runCli(['help', 'emulator'])).stdout).toContain('--time-scale');
    expect((await runCli(['emulator', '--help'])).stdout).toMatch(/\n {2}start \[options\] +Run the local emulator/);
    // A verb's help is its own.
    expect((await runCli(['emulator', 'start', '--help'])).stdout).not.toContain('vap help emulator');
    expect((await runCli(['help', 'emulator', 'start'])).stdout).toMatch(/^Usage: vap emulator start/);
  });

  it('the topics cover the server clock, --query, per-profile keys, CI, as-code, exit codes, the state folder and the emulator', async () => {
    const text = async (name: string) => (await runCli(['help', name])).stdout;
    expect(await text('formatting')).toMatch(/server's clock[\s\S]*Date header/);
    expect(await text('formatting')).toContain('--query');
    const profiles = await text('profiles');
    expect(profiles).toContain('VAP_API_KEY_<PROFILE>');
    expect(profiles).toContain('VAP_BASE_URL_<PROFILE>');
    expect(profiles).toMatch(/first vap auth login on a\s+machine makes its profile the default/);
    const ci = await text('ci');
    for (const word of ['--baseline', 'live', '--report', 'junit', 'GitHub Action', 'vap preview', 'vap push --eval', 'vap promote'])
      expect(ci, word).toContain(word);
    const asCode = await text('as-code');
    for (const word of ['What vap promises about your files', 'vap pull', 'vap diff', 'vap push', 'vap mv', 'Exit codes']) expect(asCode, word).toContain(word);
    expect(await text('exit-codes')).toMatch(/124 +a --wait/);
    expect(await text('environment')).toContain('VAP_STATE_DIR');
    expect(await text('emulator')).toContain('--time-scale');
  });
});

describe('an unknown command, with or without --help', () => {
  it.each([
    [['agnts', '--help'], ['agnts']],
    [['agnts', '-h'], ['agnts']],
    [['--help', 'agnts'], ['agnts']],
    [['nosuch', '--help'], ['nosuch']],
    [['--profile', 'x', 'nosuch', '--help'], ['nosuch']],
    [
      ['agents', 'lst', '--help'],
      ['agents', 'lst'],
    ],
    [
      ['evals', 'runs', 'lsit', '-h'],
      ['evals', 'runs', 'lsit'],
    ],
  ])('vap %j says what vap %j says, exit 2', async (withHelp, plain) => {
    const r = await runCli(withHelp);
    const want = await runCli(plain);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(want.stderr);
    expect(r.stderr).toMatch(/^error: unknown command '\w+'\n/);
  });

  it('names the nearest command when there is one', async () => {
    expect((await runCli(['agnts', '--help'])).stderr).toContain('(Did you mean agents?)');
    expect((await runCli(['agents', 'lst', '--help'])).stderr).toContain('(Did you mean list?)');
  });

  it('a known command’s help is unchanged, and an argument is not a command', async () => {
    expect((await runCli(['agents', '--help'])).code).toBe(0);
    expect((await runCli(['agents', 'get', 'ag_nosuch', '--help'])).stdout).toMatch(/^Usage: vap agents get/);
    expect((await runCli(['api', 'GET', '--help'])).code).toBe(0);
    expect((await runCli(['agents', 'list', '--', '--help'])).code).not.toBe(0);
  });
});
