import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { completionTree, type CompletionTree } from '../../src/completion/tree.js';
import { completionScript, SHELLS } from '../../src/completion/scripts.js';
import { listTopics } from '../../src/help/topics.js';

// The committed scripts (completions/) are the command tree's, and each runs in its real
// shell, through that shell's own completion machinery: bash's completion function with
// COMP_WORDS and compgen, zsh's compinit and completion widget in an interactive shell under
// zpty (test/helpers/zsh-complete.zsh), fish's `complete -C`. In a folder with two files and
// a directory, each offers subcommands before flags and flags only after `-`, an option's
// values where it has them, and files only where a file is asked for.

const FILES = { bash: 'vap.bash', zsh: '_vap', fish: 'vap.fish' } as const;
const dir = new URL('../../completions/', import.meta.url);
const script = (shell: keyof typeof FILES) => fileURLToPath(new URL(FILES[shell], dir));
const has = (cmd: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`]);
    return true;
  } catch {
    return false;
  }
};
const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A folder for the shells to complete file names in. */
const cwd = mkdtempSync(join(tmpdir(), 'vap-completion-'));
writeFileSync(join(cwd, 'patients.csv'), 'name,phone\n');
writeFileSync(join(cwd, 'secret.txt'), '');
mkdirSync(join(cwd, 'emulator-data'));

/** What a shell offers for a command line typed up to its end (its last word being completed), one run per line. */
const SHELL: Record<keyof typeof FILES, { available: boolean; complete: (line: string) => string[] }> = {
  bash: {
    available: has('bash'),
    complete: (line) => {
      const words = line.split(' ');
      const out = execFileSync(
        'bash',
        [
          '--norc',
          '-c',
          `source ${sh(script('bash'))}; COMP_WORDS=(${words.map(sh).join(' ')}); COMP_CWORD=${words.length - 1}; _vap; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { cwd, encoding: 'utf8' },
      );
      return out.split('\n').filter(Boolean);
    },
  },
  zsh: {
    available: has('zsh'),
    complete: (line) => {
      const helper = fileURLToPath(new URL('../helpers/zsh-complete.zsh', import.meta.url));
      const out = execFileSync('zsh', ['-f', helper, fileURLToPath(dir), line], { cwd, encoding: 'utf8', timeout: 30_000 });
      // zsh's file completion adds a directory in more than one call: each name once.
      return [
        ...new Set(
          out
            .split('\n')
            .filter(Boolean)
            .map((w) => w.replace(/\/$/, '')),
        ),
      ];
    },
  },
  fish: {
    available: has('fish'),
    complete: (line) => {
      const out = execFileSync('fish', ['--no-config', '-c', `source ${sh(script('fish'))}; complete -C ${sh(line)}`], { cwd, encoding: 'utf8' });
      return out
        .split('\n')
        .filter(Boolean)
        .map((l) => l.replace(/\t.*/, '').replace(/\/$/, ''));
    },
  },
};

let tree: CompletionTree;
beforeAll(async () => {
  const io = { stdout: new PassThrough(), stderr: new PassThrough() };
  tree = completionTree(await buildProgram([], io, () => Promise.reject(new Error('not run')), true), listTopics());
});

const sorted = (words: string[]) => [...new Set(words)].sort();
const node = (path: string) => tree.nodes.find((n) => n.path === path)!;
const globalFlags = () => tree.globals.flatMap((o) => o.flags);

describe('shell completions', () => {
  it.each(SHELLS)('completions/%s matches the command tree (run `npm run completions` after changing commands)', (shell) => {
    expect(readFileSync(script(shell), 'utf8')).toBe(completionScript(shell, tree));
  });

  it('every option with a fixed set of values declares them, and no option that takes free text offers files', () => {
    const option = (path: string, flag: string) => node(path).options.find((o) => o.flags.includes(flag))!;
    expect(option('vap calls list', '--status').takes).toEqual({ values: ['queued', 'in-progress', 'completed', 'failed', 'cancelled'] });
    expect(option('vap agents create', '--engine').takes).toEqual({ values: ['realtime', 'pipeline', 'speech-to-speech'] });
    expect(option('vap evals scenarios add', '--category').takes).toMatchObject({ values: expect.arrayContaining(['happy_path', 'edge_case']) });
    expect(option('vap webhooks deliveries', '--status').takes).toMatchObject({ values: expect.arrayContaining(['dead_lettered']) });
    expect(tree.globals.find((o) => o.flags.includes('-o'))!.takes).toEqual({ values: ['table', 'json', 'ndjson', 'tsv'] });
    expect(option('vap webhooks create', '--secret-file').takes).toBe('file');
    expect(option('vap emulator start', '--data-dir').takes).toBe('dir');
    expect(option('vap agents list', '--search').takes).toBeUndefined();
    expect(node('vap contacts import').args).toEqual([undefined, 'file']);
  });
});

describe.each(SHELLS)('%s completion, in the shell itself', (name) => {
  const shell = SHELL[name];

  it.skipIf(!shell.available)('vap agents <Tab>: its subcommands and nothing else; flags only after -', () => {
    const agents = node('vap agents').subcommands.flatMap((s) => [s.name, ...s.aliases]);
    expect(sorted(shell.complete('vap agents '))).toEqual(sorted(agents));
    const flags = shell.complete('vap agents -');
    expect(flags.length).toBeGreaterThan(0);
    expect(flags.every((w) => w.startsWith('-'))).toBe(true);
    expect(sorted(flags)).toEqual(sorted(globalFlags()));
    // A verb's own flags come with the global ones, after -.
    expect(shell.complete('vap agents list --se')).toEqual(['--search']);
    expect(shell.complete('vap ')).not.toContain('--json');
  });

  it.skipIf(!shell.available)('an option with values completes them: --status, --engine, --category, -o', () => {
    expect(sorted(shell.complete('vap calls list --status '))).toEqual(sorted(['queued', 'in-progress', 'completed', 'failed', 'cancelled']));
    expect(shell.complete('vap calls list --status in')).toEqual(['in-progress']);
    expect(sorted(shell.complete('vap campaigns calls list 0b6d2f7c --status '))).toContain('in-progress');
    expect(sorted(shell.complete('vap agents create --engine '))).toEqual(sorted(['realtime', 'pipeline', 'speech-to-speech']));
    expect(shell.complete('vap evals scenarios add ev_1 --category ')).toEqual(expect.arrayContaining(['happy_path', 'edge_case', 'escalation']));
    expect(sorted(shell.complete('vap agents list -o '))).toEqual(sorted(['table', 'json', 'ndjson', 'tsv']));
    expect(shell.complete('vap events tail --exit-on call.an')).toEqual(['call.analysis.completed']);
    expect(sorted(shell.complete('vap completion '))).toEqual(['bash', 'fish', 'zsh']);
  });

  it.skipIf(!shell.available)('every option with values, in every command, completes exactly them', () => {
    // fish and zsh start a shell a line: one option of each set of values there, all in bash.
    const seen = new Set<string>();
    const lines = tree.nodes.flatMap((n) =>
      n.options
        .filter((o) => o.takes && typeof o.takes === 'object')
        .filter((o) => name === 'bash' || (!seen.has(JSON.stringify(o.takes)) && seen.add(JSON.stringify(o.takes))))
        .map((o) => ({ line: `${n.path} ${o.flags.at(-1)} `, values: (o.takes as { values: string[] }).values })),
    );
    expect(lines.length).toBeGreaterThan(10);
    for (const { line, values } of lines) expect(sorted(shell.complete(line)), line).toEqual(sorted([...values]));
  });

  it.skipIf(!shell.available)('files only where a file is asked for', () => {
    const files = ['emulator-data', 'patients.csv', 'secret.txt'];
    expect(sorted(shell.complete('vap contacts import cl_1 '))).toEqual(files);
    expect(sorted(shell.complete('vap webhooks create --secret-file '))).toEqual(files);
    expect(shell.complete('vap emulator start --data-dir ')).toEqual(['emulator-data']);
    // An id, a name, free text, a verb that takes nothing more: no file names.
    for (const line of ['vap contacts import ', 'vap agents get ', 'vap agents list --search ', 'vap agents list ', 'vap calls get ', 'vap --profile ']) {
      expect(shell.complete(line), line).toEqual([]);
    }
  });
});
