import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { completionTree } from '../../src/completion/tree.js';
import { completionScript, SHELLS } from '../../src/completion/scripts.js';
import { listTopics } from '../../src/help/topics.js';

const FILES = { bash: 'vap.bash', zsh: '_vap', fish: 'vap.fish' } as const;
const dir = new URL('../../completions/', import.meta.url);

async function tree() {
  const io = { stdout: new PassThrough(), stderr: new PassThrough() };
  const program = await buildProgram([], io, () => {
    throw new Error('not run');
  }, true);
  return completionTree(program, listTopics());
}

describe('shell completions', () => {
  it.each(SHELLS)('completions/%s matches the command tree (run `npm run completions` after changing commands)', async (shell) => {
    const committed = readFileSync(new URL(FILES[shell], dir), 'utf8');
    expect(committed).toBe(completionScript(shell, await tree()));
  });

  it('the bash script completes groups, verbs, flags and flag values', () => {
    const script = fileURLToPath(new URL(FILES.bash, dir));
    const complete = (...words: string[]) =>
      execFileSync('bash', ['--norc', '-c', `source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _vap; printf '%s\\n' "\${COMPREPLY[@]}"`, script, 'vap', ...words], { encoding: 'utf8' })
        .trim()
        .split('\n');
    expect(complete('ag')).toEqual(['agents']);
    expect(complete('agents', '')).toEqual(expect.arrayContaining(['list', 'create', 'rollback', 'voice']));
    expect(complete('agents', 'create', '--engine', '')).toEqual(['realtime', 'pipeline', 'speech-to-speech']);
    expect(complete('--profile', 'x', 'agents', 'list', '--se')).toEqual(['--search']);
    expect(complete('agents', 'list', '-o', 'j')).toEqual(['json']);
    expect(complete('completion', '')).toEqual(expect.arrayContaining(['bash', 'zsh', 'fish']));
  });
});
