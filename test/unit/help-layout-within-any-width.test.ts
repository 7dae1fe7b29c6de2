import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';

// Every command's help as vap lays it out (src/help/layout.ts), at widths from 40 to 120:
// the usage, the description and every term and description of its lists fit the width and
// are broken only between words; a group lists its commands before the global options.

let program: Command;
beforeAll(async () => {
  const io = { stdout: new PassThrough(), stderr: new PassThrough() };
  program = await buildProgram([], io, () => Promise.reject(new Error('not run')), true);
});

function commands(cmd: Command): Command[] {
  return [cmd, ...cmd.commands.filter((c) => !(c as Command & { _hidden?: boolean })._hidden).flatMap(commands)];
}

/** A command's help at `width` columns, without what is added after it (examples are written as they are meant to look). */
function helpAt(cmd: Command, width: number): string {
  const saved = cmd.configureHelp();
  cmd.configureHelp({ ...saved, helpWidth: width });
  try {
    return cmd.helpInformation();
  } finally {
    cmd.configureHelp(saved);
  }
}

const words = (s: string) => s.split(/\s+/).filter(Boolean);

describe('the help layout', () => {
  it('fits every command’s help within 40, 60, 80 and 120 columns', () => {
    for (const width of [40, 60, 80, 120]) {
      for (const cmd of commands(program)) {
        const text = helpAt(cmd, width);
        const wide = text.split('\n').filter((l) => l.length > width);
        expect(wide, `${cmd.name()} at ${width}:\n${text}`).toEqual([]);
      }
    }
  });

  it('breaks descriptions only between words, at any width', () => {
    const runs = program.commands.find((c) => c.name() === 'evals')!.commands.find((c) => c.name() === 'runs')!;
    const list = runs.commands.find((c) => c.name() === 'list')!;
    for (const width of [40, 53, 80]) {
      const text = helpAt(runs, width);
      // Every word of a description is whole in the help: the text of the list, joined, holds the description.
      expect(words(text).join(' '), `${width}`).toContain(words(list.description()).join(' '));
    }
  });

  it('starts the description column at most halfway across; a longer term goes on a line of its own', () => {
    const runs = program.commands.find((c) => c.name() === 'evals')!.commands.find((c) => c.name() === 'runs')!;
    const text = helpAt(runs, 80);
    const list = text.split('\n').find((l) => l.startsWith('  list|ls '))!;
    expect(list.indexOf('List a suite')).toBeLessThanOrEqual(40);
    const diff = text.split('\n').findIndex((l) => l.startsWith('  diff [options]'));
    expect(text.split('\n')[diff]).not.toContain('Compare');
    expect(text.split('\n')[diff + 1]!.trimStart()).toMatch(/^Compare two runs/);
  });

  it('lists a group’s commands before the global options', () => {
    for (const group of program.commands.filter((c) => c.commands.length > 0)) {
      const text = helpAt(group, 80);
      expect(text.indexOf('\nCommands:\n'), group.name()).toBeGreaterThan(0);
      expect(text.indexOf('\nCommands:\n'), group.name()).toBeLessThan(text.indexOf('\nGlobal Options:\n'));
    }
  });
});
