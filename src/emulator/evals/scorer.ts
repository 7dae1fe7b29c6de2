import type { CallFacts, SimulatedCall } from './tester.js';
import { between, clamp01, clip, round3, type Rng } from './text.js';
import type { ScoreRecord } from './types.js';
import type { Criterion, NoiseLevel, TranscriptLine } from '../../spec/evals.js';

/**
 * Scores a completed call on each criterion with a reason that points at the transcript: the
 * default keys (and their synonyms) have a judge each, any other key a blend of the four
 * (src/emulator/README.md). Noise lowers every score.
 */

type Judge = 'goal' | 'adherence' | 'tone' | 'efficiency' | 'generic';

const NOISE_FACTOR: Record<NoiseLevel, number> = { low: 0.97, medium: 0.91, high: 0.83 };

export function judgeOf(key: string): Judge {
  if (/goal|resol|outcome|success|complet|task/.test(key)) return 'goal';
  if (/adher|instruct|complian|policy|script|rule|guideline/.test(key)) return 'adherence';
  if (/tone|empath|polite|courte|friendl|warmth|manner/.test(key)) return 'tone';
  if (/effic|speed|concis|brevity|time|latency|length/.test(key)) return 'efficiency';
  return 'generic';
}

function quote(t: TranscriptLine[], line: number, max = 70): string {
  const l = t[line];
  return l ? `line ${line}, “${clip(l.text, max)}”` : 'no line';
}

interface Judged {
  score: number;
  reason: string;
}

function goal(rng: Rng, c: SimulatedCall): Judged {
  const f = c.facts;
  const g = `“${clip(f.goal, 60)}”`;
  if (f.outcome === 'reached')
    return { score: between(rng, 0.85, 1), reason: `The goal ${g} was reached: the agent settled it at ${quote(c.transcript, f.outcomeLine)}.` };
  if (f.outcome === 'partial')
    return {
      score: between(rng, 0.4, 0.6),
      reason: `The goal ${g} was only partly reached: the agent logged a follow-up instead of finishing it (${quote(c.transcript, f.outcomeLine)}).`,
    };
  return {
    score: between(rng, 0.05, 0.25),
    reason: `The goal ${g} was not reached: the agent answered ${quote(c.transcript, f.outcomeLine)}, and the tester hung up unsatisfied.`,
  };
}

function adherence(rng: Rng, c: SimulatedCall): Judged {
  const f = c.facts;
  const t = c.transcript;
  const followed = f.followed.map((x) => `“${clip(x.rule, 60)}” (line ${x.line})`);
  if (f.slipped) {
    const also = followed.length ? `; it did follow ${followed.join(' and ')}` : '';
    return { score: between(rng, 0.25, 0.5), reason: `The agent broke the instruction “${clip(f.slipped.rule, 70)}” at ${quote(t, f.slipped.line)}${also}.` };
  }
  if (f.rules.length === 0) {
    const agentTurns = t.filter((l) => l.role === 'agent').length;
    return { score: between(rng, 0.75, 0.9), reason: `The instructions state no explicit rule; the agent kept to its role in all ${agentTurns} of its turns.` };
  }
  if (followed.length === 0)
    return { score: between(rng, 0.65, 0.8), reason: `The agent did not contradict its instructions, but never applied “${clip(f.rules[0]!, 70)}”.` };
  const missed = f.rules.length - f.followed.length;
  return {
    score: between(rng, missed > 2 ? 0.8 : 0.86, 1),
    reason: `The agent followed ${followed.join(' and ')}${missed > 0 ? `; ${missed} other rule${missed === 1 ? '' : 's'} did not come up` : ''}.`,
  };
}

function tone(rng: Rng, c: SimulatedCall): Judged {
  const f = c.facts;
  const at = quote(c.transcript, f.toneLine);
  if (f.tone === 'warm') return { score: between(rng, 0.85, 1), reason: `Warm and courteous throughout, e.g. ${at}.` };
  if (f.tone === 'neutral') return { score: between(rng, 0.65, 0.8), reason: `Polite but matter-of-fact; little acknowledgement of the tester, e.g. ${at}.` };
  return { score: between(rng, 0.3, 0.5), reason: `Curt: the agent closed with ${at}, without acknowledging the tester.` };
}

function efficiency(rng: Rng, c: SimulatedCall): Judged {
  const f = c.facts;
  const score = 1 - Math.max(0, f.exchanges - 3) * 0.07 - f.repeats * 0.08 - (f.outcome === 'reached' ? 0 : 0.15) + between(rng, -0.05, 0.03);
  const repeats = f.repeats ? `; the agent had to ask ${f.repeats} time${f.repeats === 1 ? '' : 's'} for a repeat` : '';
  const end = f.outcome === 'reached' ? `reached the goal by line ${f.outcomeLine}` : 'never got to the goal';
  return { score, reason: `${f.exchanges} tester turns in ${c.durationSeconds} s; the call ${end}${repeats}.` };
}

function generic(rng: Rng, c: SimulatedCall, criterion: Criterion, parts: Record<Exclude<Judge, 'generic'>, Judged>): Judged {
  const f: CallFacts = c.facts;
  const score = 0.45 * parts.goal.score + 0.3 * parts.adherence.score + 0.15 * parts.tone.score + 0.1 * parts.efficiency.score + between(rng, -0.06, 0.06);
  const goalPart =
    f.outcome === 'reached'
      ? `the goal was reached at line ${f.outcomeLine}`
      : f.outcome === 'partial'
        ? `the goal was only partly reached (line ${f.outcomeLine})`
        : `the goal was not reached (line ${f.outcomeLine})`;
  const rulePart = f.slipped
    ? `the agent broke “${clip(f.slipped.rule, 50)}” at line ${f.slipped.line}`
    : f.followed.length
      ? `the agent followed ${f.followed.length} of its rules`
      : 'no rule of the instructions was at stake';
  return { score, reason: `“${criterion.name}” judged over the whole call (${c.transcript.length} lines): ${goalPart}; ${rulePart}; the tone was ${f.tone}.` };
}

export function scoreCall(rng: Rng, call: SimulatedCall, criteria: Criterion[]): { criterionScores: ScoreRecord[]; overallScore: number } {
  const f = call.facts;
  const parts = { goal: goal(rng, call), adherence: adherence(rng, call), tone: tone(rng, call), efficiency: efficiency(rng, call) };
  let factor = 1;
  let noiseNote = '';
  if (f.noise) {
    const lostShare = f.testerWords ? f.lostWords / f.testerWords : 0;
    factor = NOISE_FACTOR[f.noise.level] - lostShare * 0.2;
    noiseNote = ` Background noise (${f.noise.type.replace('_', ' ')}, ${f.noise.level}) cost the tester ${f.lostWords} of ${f.testerWords} words${f.repeats ? ` and ${f.repeats} repeat${f.repeats === 1 ? '' : 's'}` : ''}; scored down.`;
  }
  const criterionScores = criteria.map((c) => {
    const j = judgeOf(c.key);
    const judged = j === 'generic' ? generic(rng, call, c, parts) : parts[j];
    return { criterionKey: c.key, score: round3(clamp01(judged.score * factor)), reason: judged.reason + noiseNote };
  });
  const totalWeight = criteria.reduce((s, c) => s + c.weight, 0) || 1;
  const overallScore = round3(criteria.reduce((s, c, i) => s + c.weight * criterionScores[i]!.score, 0) / totalWeight);
  return { criterionScores, overallScore };
}
