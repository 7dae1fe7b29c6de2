import { execFileSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { completionTree, type CompletionTree } from '../../src/completion/tree.js';
import { listTopics } from '../../src/help/topics.js';

// The committed completion scripts (completions/, checked against the command tree by
// completions.test.ts) run in the real shells: `vap help` offers the help topics and the
// groups, aliases included; an alias (`vap plan`, `vap agents ls`) goes on as the command it
// stands for; and after a verb only flags are offered, never another verb.

const file = (name: string) => fileURLToPath(new URL(`../../completions/${name}`, import.meta.url));
const has = (cmd: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`]);
    return true;
  } catch {
    return false;
  }
};

/** What each shell offers after each line (words typed so far, the last one being completed), in one run of the shell. */
const SHELLS: Record<string, { available: boolean; complete: (lines: string[][]) => string[][] }> = {
  bash: {
    available: has('bash'),
    complete: (lines) =>
      run('bash', [
        '--norc',
        '-c',
        `source ${JSON.stringify(file('vap.bash'))}\n${lines.map((l) => `COMP_WORDS=(vap ${l.map(sh).join(' ')}); COMP_CWORD=${l.length}; COMPREPLY=(); _vap; printf '%s\\n' "\${COMPREPLY[@]}"; echo ---`).join('\n')}`,
      ]),
  },
  zsh: {
    available: has('zsh'),
    complete: (lines) =>
      run('zsh', [
        '-fc',
        `source ${JSON.stringify(file('_vap'))}\ncompadd() { shift; print -l -- "$@"; }\n_files() { }\n${lines.map((l) => `words=(vap ${l.map(sh).join(' ')}); CURRENT=${l.length + 1}; _vap; echo ---`).join('\n')}`,
      ]),
  },
  fish: {
    available: has('fish'),
    complete: (lines) =>
      run('fish', [
        '-c',
        `source ${JSON.stringify(file('vap.fish'))}\n${lines.map((l) => `complete -C ${sh(['vap', ...l].join(' '))} | string replace -r '\\t.*' ''; echo ---`).join('\n')}`,
      ]),
  },
};

const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function run(shell: string, args: string[]): string[][] {
  const out = execFileSync(shell, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  const parts = out.split('---\n');
  parts.pop();
  return parts.map((p) => p.split('\n').filter(Boolean));
}

let tree: CompletionTree;
beforeAll(async () => {
  const io = { stdout: new PassThrough(), stderr: new PassThrough() };
  tree = completionTree(await buildProgram([], io, () => Promise.reject(new Error('not run')), true), listTopics());
});

const verbsAndGroups = () => new Set(tree.nodes.flatMap((n) => n.subcommands.flatMap((s) => [s.name, ...s.aliases])));

describe.each(Object.keys(SHELLS))('%s completion', (name) => {
  const shell = SHELLS[name]!;
  it.skipIf(!shell.available)('vap help offers every topic and group, aliases included; vap <prefix> offers aliases', () => {
    const [help, pl, helpA, helpAgents] = shell.complete([[''], ['pl'], ['help', 'a'], ['help', 'agents', '']]);
    const topics = listTopics();
    expect(topics.length).toBeGreaterThan(0);
    const afterHelp = shell.complete([['help', '']])[0]!;
    for (const w of ['agents', 'diff', 'plan', ...topics.flatMap((t) => [t.name, ...t.aliases])]) expect(afterHelp, w).toContain(w);
    expect(help).toContain('help');
    expect(help).toContain('plan');
    expect(pl).toContain('plan');
    expect(helpA).toEqual(expect.arrayContaining(['agents', 'analytics', 'api', 'auth', 'accessibility', 'a11y']));
    expect(helpAgents).toEqual(expect.arrayContaining(['list', 'create', 'rollback']));
  });

  it.skipIf(!shell.available)('an alias goes on as its command: vap plan offers diff’s flags, vap agents ls those of list', () => {
    const [plan, ls, runsLs] = shell.complete([
      ['plan', '--'],
      ['agents', 'ls', '--'],
      ['evals', 'runs', 'ls', '--'],
    ]);
    expect(plan).toContain('--exit-code');
    expect(ls).toContain('--search');
    expect(runsLs).toContain('--agent');
  });

  it.skipIf(!shell.available)('after any verb (and after its aliases), or a flag’s value, no verb or group is offered', () => {
    const all = verbsAndGroups();
    const leaves = tree.nodes.filter((n) => n.subcommands.length === 0 && !n.path.startsWith('vap help'));
    const aliasLeaves = tree.same.filter((s) => leaves.some((l) => l.path === s.is) && !s.path.startsWith('vap help'));
    // fish answers one line in about 80 ms: every alias, and a verb of each group, there.
    const sample = name === 'fish' ? leaves.filter((l, i) => i === 0 || l.path.split(' ')[1] !== leaves[i - 1]!.path.split(' ')[1]) : leaves;
    const lines = [...sample.map((l) => l.path), ...aliasLeaves.map((s) => s.path)].map((p) => [...p.split(' ').slice(1), '']);
    lines.push(['agents', 'list', '--search', 'list', ''], ['agents', 'get', 'list', '']);
    const offered = shell.complete(lines);
    expect(offered.length).toBe(lines.length);
    // An argument's choices are not verbs, whatever their names (`vap api get …`).
    const choices = new Set(tree.nodes.flatMap((n) => n.argumentChoices ?? []));
    offered.forEach((words, i) =>
      expect(
        words.filter((w) => all.has(w) && !choices.has(w)),
        lines[i]!.join(' '),
      ).toEqual([]),
    );
    // A flag's value is not a command: `--profile agents` leaves the path at the root.
    const [root] = shell.complete([['--profile', 'agents', '']]);
    if (name === 'fish') expect(root).toContain('auth');
    else expect(root).toEqual(expect.arrayContaining(['auth', 'agents', 'help']));
    expect(root).not.toContain('rollback');
  });
});
