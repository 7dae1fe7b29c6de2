import type { Direction, ObjectiveStatus, Outcome, Persona, Sentiment } from './types.js';
import { fastRngFor, intBetween, pick, rngFor, type Rng } from './rng.js';

/**
 * What happens on a call, drawn from the seed and the call id: the transcript is written from
 * these facts and the analysis read from them, so the two always agree. Facts are cheap to
 * draw; the text is built on demand.
 */

/** Persona shares (percent): DNC 6, legal 3, crisis 2, callback 12, the rest ordinary callers. */
const PERSONA_SHARES: Array<[Persona, number]> = [
  ['dnc', 6],
  ['legal', 3],
  ['crisis', 2],
  ['callback', 12],
  ['cooperative', 45],
  ['busy', 12],
  ['confused', 10],
  ['angry', 10],
];

export function drawPersona(rng: Rng): Persona {
  let x = rng() * 100;
  for (const [p, share] of PERSONA_SHARES) {
    if (x < share) return p;
    x -= share;
  }
  return 'cooperative';
}

/** Outbound: 12% no answer, 5% busy; of the answered, 15% reach voicemail. Inbound: 10% missed. */
export function drawOutcome(rng: Rng, direction: Direction): Outcome {
  const x = rng();
  if (direction === 'inbound') return x < 0.1 ? 'missed' : 'answered';
  if (x < 0.12) return 'no_answer';
  if (x < 0.17) return 'busy';
  return rng() < 0.15 ? 'voicemail' : 'answered';
}

/** Seconds of conversation: voicemail 20–45 s, otherwise 30–300 s (shorter for busy callers and refusals). */
export function drawSeconds(rng: Rng, outcome: Outcome, persona: Persona): number {
  if (outcome === 'voicemail') return intBetween(rng, 20, 45);
  if (outcome !== 'answered') return 0;
  if (persona === 'busy' || persona === 'dnc') return intBetween(rng, 30, 90);
  return intBetween(rng, 45, 300);
}

export interface Facts {
  persona: Persona;
  voicemail: boolean;
  objective: ObjectiveStatus;
  sentiment: Sentiment;
  resolved: boolean;
  callback: boolean;
  humanTransfer: boolean;
  dnc: boolean;
  legal: boolean;
  crisis: boolean;
  /** The caller corrects their e-mail address. */
  infoUpdate: boolean;
  /** The agent promises to send the details by e-mail. */
  promise: boolean;
}

/** The conversation's facts for a connected call (answered or voicemail). */
export function factsFor(seed: number, callId: string, persona: Persona, outcome: Outcome): Facts {
  const rng = fastRngFor(seed, callId, 'facts');
  const base: Facts = {
    persona,
    voicemail: false,
    objective: 'Unknown',
    sentiment: 'neutral',
    resolved: false,
    callback: false,
    humanTransfer: false,
    dnc: false,
    legal: false,
    crisis: false,
    infoUpdate: false,
    promise: false,
  };
  if (outcome === 'voicemail') return { ...base, voicemail: true };
  const r = rng();
  switch (persona) {
    case 'cooperative':
      return {
        ...base,
        objective: r < 0.8 ? 'True' : 'Unknown',
        sentiment: r < 0.8 ? 'positive' : 'neutral',
        resolved: r < 0.8,
        promise: rng() < 0.4,
        infoUpdate: rng() < 0.15,
      };
    case 'busy':
      return { ...base, objective: r < 0.5 ? 'True' : 'False', sentiment: 'neutral', resolved: r < 0.5 };
    case 'confused':
      return { ...base, objective: r < 0.5 ? 'True' : 'Unknown', sentiment: 'neutral', resolved: r < 0.5, infoUpdate: rng() < 0.5, promise: rng() < 0.5 };
    case 'angry':
      return { ...base, objective: 'False', sentiment: 'negative', humanTransfer: r < 0.5 };
    case 'dnc':
      return { ...base, objective: 'False', sentiment: r < 0.5 ? 'negative' : 'neutral', dnc: true, resolved: true };
    case 'legal':
      return { ...base, objective: 'False', sentiment: 'negative', legal: true, humanTransfer: true };
    case 'crisis':
      return { ...base, objective: 'Unknown', sentiment: 'negative', crisis: true, humanTransfer: true };
    case 'callback':
      return { ...base, objective: 'Unknown', sentiment: 'neutral', callback: true };
  }
}

export interface Segment {
  role: 'agent' | 'user';
  text: string;
  ordinal: number;
  /** Seconds from the moment the call connected. */
  offsetSeconds: number;
  /** Seconds the segment is spoken (audio turns). */
  seconds: number;
}

export interface ScriptInput {
  seed: number;
  callId: string;
  direction: Direction;
  calleeName: string;
  agentName: string;
  topic: string;
  persona: Persona;
  outcome: Outcome;
  /** Seconds of conversation (the call's duration). */
  seconds: number;
}

const EMAIL_DOMAINS = ['example.com', 'mail.example.org', 'example.net'];
const TIMEFRAMES = ['tomorrow afternoon', 'Thursday morning', 'after 6 pm today', 'next Monday'];

/** The transcript of a connected call, segment by segment, spread over its duration. */
export function scriptFor(input: ScriptInput): { segments: Segment[]; facts: Facts } {
  const facts = factsFor(input.seed, input.callId, input.persona, input.outcome);
  const rng = rngFor(input.seed, input.callId, 'words');
  const first = input.calleeName.split(/\s+/)[0] || 'there';
  const agent = input.agentName;
  const topic = input.topic;
  const lines: Array<[Segment['role'], string]> = [];
  const a = (t: string) => lines.push(['agent', t]);
  const u = (t: string) => lines.push(['user', t]);
  const timeframe = pick(rng, TIMEFRAMES);
  const email = `${first.toLowerCase().replace(/[^a-z]/g, '') || 'me'}@${pick(rng, EMAIL_DOMAINS)}`;

  if (facts.voicemail) {
    u(`Hi, you've reached ${input.calleeName}. I can't take your call right now, please leave a message after the tone.`);
    a(`Hi ${first}, this is ${agent}, calling ${topic}. Please call us back when you have a moment. Thank you, goodbye.`);
    return { segments: spread(lines, input.seconds), facts };
  }

  if (input.direction === 'outbound') {
    a(`Hi, is this ${first}? This is ${agent}, I'm calling ${topic}. Do you have a couple of minutes?`);
  } else {
    a(`Thank you for calling ${agent}. How can I help you today?`);
  }

  switch (facts.persona) {
    case 'dnc':
      u(
        pick(rng, [
          'Please take me off your list. Do not call me again.',
          "I've told you people before: stop calling me. Put me on your do not call list.",
          "I'm not interested. Please don't call this number again.",
        ]),
      );
      a(`I understand, ${first}. I've removed your number from our calling list, and you won't receive further calls from us. Sorry for the interruption.`);
      u('Thank you. Goodbye.');
      a('Goodbye.');
      break;
    case 'legal':
      u(
        pick(rng, [
          "I've already spoken to my lawyer about you people. If this doesn't stop, you'll hear from my attorney.",
          "This is harassment. My lawyer will be in touch, I'm keeping a record of every call.",
        ]),
      );
      a(
        `I'm sorry to hear that, ${first}. I've noted your concern, and I'll pass it to our compliance team; someone from that team will contact you in writing.`,
      );
      u("Fine. I'll wait to hear from them in writing.");
      a('Understood. Thank you for your time.');
      break;
    case 'crisis':
      u(
        pick(rng, [
          "Honestly I can't deal with this right now. I don't see the point of anything anymore.",
          "I'm not okay. I feel like I can't go on, everything is falling apart.",
        ]),
      );
      a(
        `I'm really sorry you're feeling this way, ${first}, and I'm glad you told me. You don't have to go through this alone: you can call or text 988 right now to talk to someone. Would you like me to connect you with a person on our team?`,
      );
      u('Maybe. I just need someone to talk to.');
      a("I'm transferring you to a colleague now. Please stay on the line, and if you are in immediate danger, call 911.");
      break;
    case 'callback':
      u(`This isn't a good time, I'm at work. Can you call me back ${timeframe}?`);
      a(`Of course. I've scheduled a callback for ${timeframe}. Is this the best number to reach you?`);
      u('Yes, this number is fine.');
      a(`Great, we'll call you ${timeframe}. Have a good day, ${first}.`);
      break;
    case 'angry':
      u(
        pick(rng, [
          'Why do you keep calling me? This is the third time this week and nothing ever gets fixed.',
          "I'm really fed up. Last time I was promised a fix and nothing happened.",
        ]),
      );
      a(`I'm sorry about the trouble, ${first}. Let me see what I can do about it right now.`);
      u(facts.humanTransfer ? 'No, I want to talk to a manager. A real person.' : "You always say that. I don't believe it.");
      if (facts.humanTransfer) a("I understand. I'm transferring you to a supervisor now.");
      else {
        a("I hear you. I can't resolve this on this call, but I've logged your complaint so it gets reviewed.");
        u('Whatever. Goodbye.');
      }
      break;
    case 'busy':
      u(`${input.direction === 'outbound' ? "Yeah, it's me, but" : 'Hi, quickly,'} I've only got a minute.`);
      if (facts.objective === 'True') {
        a(`I'll be quick. ${topicQuestion(topic)}`);
        u('Yes, that works. Anything else?');
        a(`That's all, it's confirmed. Thanks, ${first}!`);
      } else {
        a(`No problem, I'll be quick. ${topicQuestion(topic)}`);
        u('No, not right now. I have to go.');
        a('Understood. Thanks for your time.');
      }
      break;
    case 'confused':
      u(
        input.direction === 'outbound'
          ? "Sorry, who is this? I'm not sure I understand what this is about."
          : "Hello? Sorry, I'm not sure I'm calling the right place.",
      );
      a(
        `No problem at all. This is ${agent}, and it's ${topic.replace(/^to /, 'about how to ').replace(/^about /, 'about ')}. Let me go through it step by step.`,
      );
      if (facts.infoUpdate) {
        u(`Oh, and you may have my old e-mail. It's ${email} now.`);
        a(`Thank you, I've updated your e-mail address to ${email}.`);
      }
      u(facts.objective === 'True' ? 'Okay, I think I follow now. Yes, please go ahead.' : "I'm still not sure. I'll need to think about it.");
      a(
        facts.objective === 'True'
          ? `Perfect, that's all set for you.${facts.promise ? ` I'll send the details to your e-mail as well.` : ''}`
          : `That's fine, take your time.${facts.promise ? ` I'll e-mail you a summary so you can read it at your own pace.` : ''}`,
      );
      u('Thank you, bye.');
      break;
    default: {
      u(
        input.direction === 'outbound'
          ? `Yes, this is ${first}. Sure, go ahead.`
          : `Hi, this is ${input.calleeName}. I'm calling ${topic.replace(/^to /, 'about how to ')}.`,
      );
      a(topicQuestion(topic));
      if (facts.infoUpdate) {
        u(`Yes. By the way, my e-mail changed, it's ${email} now.`);
        a(`Thanks, I've updated your e-mail address to ${email}.`);
      }
      u(facts.objective === 'True' ? 'Yes, that works for me.' : "I'm not sure yet, let me check and get back to you.");
      a(
        facts.objective === 'True'
          ? `Wonderful, that's confirmed.${facts.promise ? " I'll send you a confirmation by e-mail." : ''} Is there anything else I can help with?`
          : `No problem.${facts.promise ? " I'll e-mail you the details so you have them." : ''} Is there anything else I can help with?`,
      );
      u("No, that's everything. Thanks!");
      a(`Thank you, ${first}. Have a great day!`);
    }
  }
  return { segments: spread(lines, input.seconds), facts };
}

function topicQuestion(topic: string): string {
  if (/^to /.test(topic)) return `As I said, I'm calling ${topic}. It only takes a minute; shall we go ahead?`;
  return `It's ${topic}. Can we go over it together now?`;
}

/** Offsets: each line takes time in proportion to its words, over the call's seconds (pauses between turns). */
function spread(lines: Array<[Segment['role'], string]>, seconds: number): Segment[] {
  const weights = lines.map(([, t]) => t.split(/\s+/).length + 4);
  const total = weights.reduce((x, y) => x + y, 0);
  const out: Segment[] = [];
  let at = 0;
  lines.forEach(([role, text], i) => {
    const share = (weights[i]! / total) * seconds;
    out.push({ role, text, ordinal: i, offsetSeconds: Math.round(at * 10) / 10, seconds: Math.round(share * 0.85 * 10) / 10 });
    at += share;
  });
  return out;
}

/**
 * What the agent calls about, from its instructions: the purpose sentence ("You call
 * patients to remind them about their appointments" → "to remind you about your
 * appointments"), or "about your account" when there is none.
 */
export function topicFrom(instructions: string): string {
  const sentences = instructions
    .split(/(?<=[.!?;])\s+|\n+/)
    .map((s) => s.trim().replace(/[.!?;:]+$/, ''))
    .filter((s) => s.length > 3 && !/^(?:never|do not|don't|avoid)\b/i.test(s));
  const verbs =
    /\b(remind|confirm|schedule|book|collect|follow up|help|offer|survey|renew|verify|check|qualify|inform|update|invite|discuss|resolve|answer)\b/i;
  for (const s of sentences) {
    const to = s.match(
      /\bto ((?:remind|confirm|schedule|book|collect|follow up|help|offer|survey|renew|verify|check|qualify|inform|update|invite|discuss|resolve|answer)\b.+)$/i,
    );
    if (to) return clip(`to ${voice(to[1]!)}`);
    const about = s.match(/\b(?:about|regarding|with) (.+)$/i);
    if (verbs.test(s) && about) return clip(`about ${voice(about[1]!)}`);
  }
  return 'about your account';
}

function voice(s: string): string {
  return s
    .replace(/\b(?:the|a|our) (?:caller|customer|patient|user|client|guest|member|person|buyer|tenant|contact|lead)s?'s?\b/gi, 'your')
    .replace(/\b(?:the|a|our) (?:caller|customer|patient|user|client|guest|member|person|buyer|tenant|contact|lead)s?\b/gi, 'you')
    .replace(/\b(?:callers|customers|patients|users|clients|guests|members|people|buyers|tenants|contacts|leads)\b/gi, 'you')
    .replace(/\btheir\b/gi, 'your')
    .replace(/\bthem\b/gi, 'you')
    .replace(/\bthey\b/gi, 'you');
}

function clip(s: string, max = 100): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  const sp = cut.lastIndexOf(' ');
  return cut.slice(0, sp > 40 ? sp : max).replace(/[,;:\s]+$/, '');
}
