import { pick, rngFor, type Rng } from '../ids.js';
import type { NoiseLevel } from '../../spec/evals.js';

/** Small helpers for the tester and the scorer: seeded randomness and phrase shaping. */

export { pick, rngFor, type Rng };

export function between(rng: Rng, lo: number, hi: number): number {
  return lo + rng() * (hi - lo);
}

export function intBetween(rng: Rng, lo: number, hi: number): number {
  return Math.floor(between(rng, lo, hi + 1));
}

export const round3 = (x: number) => Math.round(x * 1000) / 1000;
export const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** Sentences of a text (split on . ! ? ; and new lines), trimmed, without the final stop. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?;])\s+|\n+/)
    .map((s) =>
      s
        .trim()
        .replace(/^(?:[-*•·]|\d+[.)])\s+/, '')
        .replace(/[.!?;:]+$/, '')
        .trim(),
    )
    .filter((s) => s.length > 2);
}

export const lowerFirst = (s: string) => (/^[A-Z][a-z]/.test(s) ? s[0]!.toLowerCase() + s.slice(1) : s);
export const upperFirst = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

/** Shortens to at most `max` characters on a word boundary, with an ellipsis. */
export function clip(s: string, max = 80): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max - 1);
  const sp = cut.lastIndexOf(' ');
  return `${(sp > max / 2 ? cut.slice(0, sp) : cut).replace(/[,;:.\s]+$/, '')}…`;
}

const PEOPLE = '(?:caller|customer|patient|user|client|guest|member|person|buyer|tenant)';

/** An instruction addressed to the agent ("Always ask the caller for their order number") as the agent says it to the caller. */
export function toAgentVoice(instruction: string): string {
  let s = instruction.trim();
  s = s.replace(new RegExp(`\\bthe ${PEOPLE}'s\\b`, 'gi'), 'your');
  s = s.replace(new RegExp(`\\b(?:the|a) ${PEOPLE}s?\\b`, 'gi'), 'you');
  s = s
    .replace(/\btheir\b/gi, 'your')
    .replace(/\bthey\b/gi, 'you')
    .replace(/\bthem\b/gi, 'you');
  s = s.replace(/\byourself\b/gi, 'myself');
  return s;
}

/** A rule of the instructions turned into what the agent says while following it. */
export function ruleAsAction(rule: string): string {
  let s = rule.trim();
  const neg = /^(?:never|do not|don't|you must not|you should not|avoid)\s+/i;
  if (neg.test(s)) {
    s = s
      .replace(neg, '')
      .replace(/\byour\b/gi, 'my')
      .replace(/\byou\b/gi, 'I');
    return `I'm not able to ${lowerFirst(toAgentVoice(s))}`;
  }
  s = s.replace(/^(?:always|please|make sure (?:to|that you)|be sure to|you must|you should|remember to|you need to|you will|you)\s+/i, '');
  s = lowerFirst(s);
  // The instructions address the agent: "your answers" are the agent's own.
  s = s.replace(/\byour\b/gi, 'my').replace(/\byou\b/gi, 'I');
  return `I need to ${toAgentVoice(s)}`;
}

/** "She is calling from work" → "I'm calling from work" (what a persona says of itself). */
export function firstPerson(text: string): string {
  return text
    .replace(/\b(?:she|he|they) (is|are|was|were|has|have|does|do|\w+)\b/gi, (_m, verb: string) => {
      const v = verb.toLowerCase();
      if (v === 'is' || v === 'are') return "I'm";
      if (v === 'was' || v === 'were') return 'I was';
      if (v === 'has' || v === 'have') return 'I have';
      if (v === 'does' || v === 'do') return 'I do';
      if (/(?:ss|sh|ch|x|o)es$/.test(v)) return `I ${v.slice(0, -2)}`;
      if (/[^aeiou]ies$/.test(v)) return `I ${v.slice(0, -3)}y`;
      if (/[^s]s$/.test(v)) return `I ${v.slice(0, -1)}`;
      return `I ${verb}`;
    })
    .replace(/\b(?:she|he|they)\b/gi, 'I')
    .replace(/\b(?:her|his|their)\b/gi, 'my')
    .replace(/\b(?:herself|himself|themselves)\b/gi, 'myself');
}

/** The goal said by the tester: "Reschedule my appointment" → "reschedule my appointment". */
export function goalPhrase(goal: string): string {
  let s = sentences(goal)[0] ?? goal.trim();
  s = s.replace(/^(?:to|the goal is to|goal:|tries to|wants to|try to)\s+/i, '');
  s = s
    .replace(/\b(?:the tester|the caller)'s\b/gi, 'my')
    .replace(/\b(?:the tester|the caller)\b/gi, 'me')
    .replace(/\btheir\b/gi, 'my')
    .replace(/\bthey\b/gi, 'I')
    .replace(/\bthem\b/gi, 'me');
  return lowerFirst(firstPerson(s));
}

const NOISE_RATE: Record<NoiseLevel, number> = { low: 0.05, medium: 0.12, high: 0.24 };

/**
 * A tester line under background noise: some words dropped, some garbled
 * ("to-morr-"), some runs lost as "[inaudible]". Returns the line and how many
 * words were lost.
 */
export function degrade(rng: Rng, line: string, level: NoiseLevel): { text: string; lost: number } {
  const rate = NOISE_RATE[level];
  const words = line.split(/\s+/).filter(Boolean);
  const out: string[] = [];
  let lost = 0;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const r = rng();
    if (r < rate * 0.35) {
      lost++; // dropped
    } else if (r < rate * 0.7 && w.length > 3) {
      lost++;
      out.push(`${w.slice(0, Math.max(2, Math.floor(w.length / 2)))}-`);
    } else if (r < rate) {
      const run = 1 + Math.floor(rng() * (level === 'high' ? 4 : 2));
      lost += Math.min(run, words.length - i);
      i += run - 1;
      if (out[out.length - 1] !== '[inaudible]') out.push('[inaudible]');
    } else {
      out.push(w);
    }
  }
  if (out.length === 0) out.push('[inaudible]');
  return { text: out.join(' '), lost };
}
