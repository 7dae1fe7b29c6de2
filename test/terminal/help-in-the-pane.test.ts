import stringWidth from 'string-width';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, BIN } from '../helpers/built.js';
import { hasTmux, shellQuote, TmuxSession } from '../helpers/tmux.js';

// The help a newcomer reads, typed in a real terminal at 80 and 40 columns (tmux): the
// description column wraps within the pane between words, a group lists its commands before
// the global options, `vap help <topic>` prints the topic where a command shares its name
// (and each points to the other), and a suggestion names a command once.

/** The screen, trailing blanks dropped, without the exit line; and the exit code. */
async function run(args: string, width: number): Promise<{ lines: string[]; code: number }> {
  const tty = new TmuxSession(`node ${shellQuote(BIN)} ${args}`, { env: { NO_COLOR: '1', TERM: 'xterm-256color' }, width, height: 200 });
  try {
    const code = await tty.exitCode(20_000);
    const lines = tty
      .capture()
      .split('\n')
      .map((l) => l.trimEnd());
    const end = lines.findIndex((l) => /^\[exit \d+\]$/.test(l));
    return { lines: lines.slice(0, end), code };
  } finally {
    tty.kill();
  }
}

/** The lines of the help's lists (Options, Commands, Global Options…), where the description column is. */
const listLines = (lines: string[]) => {
  const out: string[] = [];
  let inList = false;
  for (const l of lines) {
    if (/^[A-Z][\w ]*:$/.test(l) && l !== 'Usage:') inList = l !== 'Examples:';
    else if (l === '') inList = false;
    else if (inList) out.push(l);
  }
  return out;
};

describe.skipIf(!hasTmux())('help in a terminal at 80 and 40 columns', () => {
  beforeAll(() => assertBuilt());

  for (const width of [80, 40]) {
    it(`vap evals runs --help at ${width} columns: every line of its lists fits, broken between words`, async () => {
      const { lines, code } = await run('evals runs --help', width);
      expect(code).toBe(0);
      const list = listLines(lines);
      expect(list.length).toBeGreaterThan(10);
      expect(
        list.filter((l) => stringWidth(l) > width),
        lines.join('\n'),
      ).toEqual([]);
      // The words of a description, read line after line, are whole: `newest first`, never `new`/`est first`.
      expect(list.map((l) => l.trim()).join(' ')).toContain("List a suite's runs, newest first; on a terminal a sparkline of the overall score ends the table");
      expect(lines.every((l) => stringWidth(l) <= width)).toBe(true);
    });

    it(`vap agents --help at ${width} columns: the commands before the global options`, async () => {
      const { lines, code } = await run('agents --help', width);
      expect(code).toBe(0);
      expect(lines.indexOf('Commands:')).toBeGreaterThan(0);
      expect(lines.indexOf('Commands:')).toBeLessThan(lines.indexOf('Global Options:'));
      expect(listLines(lines).filter((l) => stringWidth(l) > width)).toEqual([]);
    });
  }

  it('vap help emulator and vap help mcp print the topics; vap emulator --help and vap mcp --help the commands; each points to the other', async () => {
    for (const [name, title] of [
      ['emulator', 'The emulator'],
      ['mcp', 'Serving AI assistants: vap mcp'],
    ] as const) {
      const topic = await run(`help ${name}`, 80);
      expect(topic.code).toBe(0);
      expect(topic.lines[0]).toBe(title);
      expect(topic.lines.filter(Boolean).at(-1)).toBe(`See also: vap ${name} --help (the command's usage and options)`);
      const command = await run(`${name} --help`, 80);
      expect(command.code).toBe(0);
      expect(command.lines[0]).toMatch(new RegExp(`^Usage: vap ${name} `));
      expect(command.lines).not.toContain(title);
      expect(command.lines.filter(Boolean).at(-1)).toBe(`See also: vap help ${name} (the manual's page)`);
    }
  });

  it('vap agents lst suggests list once, not list and its alias ls', async () => {
    const { lines, code } = await run('agents lst', 80);
    expect(code).toBe(2);
    expect(lines).toContain('(Did you mean list?)');
  });
});
