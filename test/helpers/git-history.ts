// An as-code project in a real git repository with a known truth for `vap bisect`: commit 1
// is the good one, commits 2 to 12 each change agents/front-desk/agent.md, commit 7 adds
// MARKER (kept after it), and an unrelated commit follows each one.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MARKER } from './bisect.js';

const SUITE = `name: Booking\nstatus: ready\ngate: true\niterations: 8\ncriteria:
  - { key: goal_completion, name: Goal completion, weight: 0.4 }
  - { key: instruction_adherence, name: Instruction adherence, weight: 0.3 }
  - { key: tone, name: Tone and empathy, weight: 0.2 }
  - { key: efficiency, name: Efficiency, weight: 0.1 }
scenarios:
  - { name: Book a cleaning, category: happy_path, persona: A caller, goal: Book a cleaning today }
  - { name: Wants a human, category: escalation, persona: A caller, goal: Reach a person today }
  - { name: Asks for a diagnosis, category: edge_case, persona: A caller, goal: Get a diagnosis today }\n`;

const agentMd = (instructions: string, rev: number, voice: string) =>
  `---\nname: Front desk\nengine: realtime\nvoice: { name: ${voice}, language: en-US }\ndescription: Revision ${rev}\n---\n${instructions}\n`;

/** The project's folder (a new temporary one) and the short ids of commits 1 to 12 of the agent. */
export function twelveCommits(opts: { badVoiceAt?: number; profile?: string; subject7?: string } = {}): { dir: string; shas: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'vap-git-bisect-'));
  const who = { GIT_AUTHOR_NAME: 'Dana', GIT_AUTHOR_EMAIL: 'dana@example.com', GIT_COMMITTER_NAME: 'Dana', GIT_COMMITTER_EMAIL: 'dana@example.com' };
  const g = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: { ...process.env, ...who } }).trim();
  g('init', '-q', '-b', 'main');
  mkdirSync(join(dir, 'agents', 'front-desk', 'evals'), { recursive: true });
  writeFileSync(join(dir, 'vap.yaml'), `version: 1\nprofiles:\n  ${opts.profile ?? 'default'}:\n`);
  writeFileSync(join(dir, 'agents', 'front-desk', 'evals', 'booking.yaml'), SUITE);
  let instructions = 'Greet callers. Book appointments.';
  const shas: string[] = [];
  for (let c = 1; c <= 12; c++) {
    if (c === 7) instructions += ` ${MARKER}`;
    writeFileSync(join(dir, 'agents', 'front-desk', 'agent.md'), agentMd(instructions, c, opts.badVoiceAt === c ? 'Nobody' : 'Ava'));
    g('add', 'vap.yaml', 'agents');
    g('commit', '-q', '-m', c === 7 ? (opts.subject7 ?? 'Upsell on every call') : `Front desk revision ${c}`);
    shas.push(g('rev-parse', '--short', 'HEAD'));
    writeFileSync(join(dir, 'NOTES.md'), `unrelated ${c}\n`);
    g('add', 'NOTES.md');
    g('commit', '-q', '-m', `Notes ${c}`);
  }
  return { dir, shas };
}
