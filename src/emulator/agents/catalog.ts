import { createHash } from 'node:crypto';
import { chimeMp3, harmonicLine } from './mp3.js';
import type { Tool, Voice } from '../../spec/agents.js';

/**
 * The seeded catalogs of the agents group: voices (one global catalog) and tools
 * (one set per organization). Both are pure functions of the emulator's seed (and
 * the organization), so they need no storage and are the same after a restart.
 */

const VOICES: Array<{ slug: string; name: string; language: string; description: string }> = [
  { slug: 'ava', name: 'Ava', language: 'en-US', description: 'Warm, upbeat American English; a friendly receptionist' },
  { slug: 'marcus', name: 'Marcus', language: 'en-US', description: 'Calm, low American English; patient for support lines' },
  { slug: 'olivia', name: 'Olivia', language: 'en-GB', description: 'Clear, brisk British English' },
  { slug: 'harry', name: 'Harry', language: 'en-GB', description: 'Relaxed, conversational British English' },
  { slug: 'chloe', name: 'Chloe', language: 'en-AU', description: 'Bright Australian English' },
  { slug: 'lucia', name: 'Lucía', language: 'es-ES', description: 'Castilian Spanish, professional and warm' },
  { slug: 'mateo', name: 'Mateo', language: 'es-MX', description: 'Mexican Spanish, easy-going and clear' },
  { slug: 'sofia', name: 'Sofía', language: 'es-US', description: 'US Spanish, neutral accent for bilingual lines' },
  { slug: 'camille', name: 'Camille', language: 'fr-FR', description: 'Parisian French, polished' },
  { slug: 'lukas', name: 'Lukas', language: 'de-DE', description: 'Standard German, steady and precise' },
  { slug: 'beatriz', name: 'Beatriz', language: 'pt-BR', description: 'Brazilian Portuguese, lively' },
  { slug: 'giulia', name: 'Giulia', language: 'it-IT', description: 'Italian, expressive and friendly' },
  // A bilingual speaker: one name in two languages, as hosted catalogs have (clients tell them apart by language).
  { slug: 'sofia-en', name: 'Sofía', language: 'en-US', description: 'The voice of Sofía (es-US) in American English, for bilingual lines' },
];

const TOOLS: Array<{ slug: string; name: string; description: string }> = [
  { slug: 'calendar', name: 'Calendar booking', description: 'Find free slots and book, move or cancel appointments' },
  { slug: 'crm', name: 'CRM lookup', description: "Look up the caller's record by phone number or e-mail" },
  { slug: 'transfer', name: 'Transfer to human', description: 'Hand the call over to a person in the contact centre' },
  { slug: 'sms', name: 'Send SMS', description: 'Send a text message to the caller' },
  { slug: 'kb', name: 'Knowledge base search', description: 'Search help articles for an answer' },
  { slug: 'end-call', name: 'End call', description: 'Hang up politely once the conversation is over' },
];

function opaque(prefix: string, input: string, length = 16): string {
  const d = createHash('sha256').update(input).digest();
  let s = '';
  for (let i = 0; i < length; i++) s += (d[i]! % 36).toString(36);
  return `${prefix}_${s}`;
}

export class Catalog {
  readonly voices: Voice[];
  private readonly voicesById: Map<string, Voice>;
  private readonly notes = new Map<string, number[]>();
  private readonly previews = new Map<string, Buffer>();
  private readonly toolsByOrg = new Map<string, Tool[]>();

  constructor(private readonly seed: number) {
    this.voices = VOICES.map((v, i) => {
      const id = opaque('voice', `voice:${seed}:${v.slug}`, 12);
      // Three notes per voice, a, b, a, from harmonics of 83.3 Hz (333 to 917 Hz): no two voices share a pair.
      const a = 4 + Math.floor(i / 2);
      const b = a + 1 + (i % 2);
      this.notes.set(id, [harmonicLine(a), harmonicLine(b), harmonicLine(a)]);
      return { id, name: v.name, description: v.description, language: v.language, previewUrl: `/api/v1/voices/${id}/preview` };
    });
    this.voicesById = new Map(this.voices.map((v) => [v.id, v]));
  }

  /** The voice given to realtime and pipeline agents until PUT voice changes it. */
  get defaultVoice(): Voice {
    return this.voices[0]!;
  }

  voice(id: string): Voice | undefined {
    return this.voicesById.get(id);
  }

  /**
   * The `language` filter: a full tag matches case-insensitively; a bare
   * language code (`es`) matches every voice of that language (`es-ES`, `es-MX`...).
   */
  voicesFor(language?: string): Voice[] {
    if (!language) return this.voices;
    const want = language.toLowerCase();
    if (want.includes('-')) return this.voices.filter((v) => v.language.toLowerCase() === want);
    return this.voices.filter((v) => {
      const l = v.language.toLowerCase();
      return l === want || l.startsWith(`${want}-`);
    });
  }

  /** The preview of a voice: a small MP3, generated once. */
  preview(id: string): Buffer | undefined {
    const voice = this.voicesById.get(id);
    if (!voice) return undefined;
    let mp3 = this.previews.get(id);
    if (!mp3) {
      mp3 = chimeMp3({ notes: this.notes.get(id)!, title: `Voice preview: ${voice.name} (${voice.language})` });
      this.previews.set(id, mp3);
    }
    return mp3;
  }

  /** The tools an organization can reach: the same names everywhere, ids distinct per organization. */
  tools(orgId: string): Tool[] {
    let tools = this.toolsByOrg.get(orgId);
    if (!tools) {
      tools = TOOLS.map((t) => ({ id: opaque('tool', `tool:${this.seed}:${orgId}:${t.slug}`), name: t.name, description: t.description }));
      this.toolsByOrg.set(orgId, tools);
    }
    return tools;
  }

  tool(orgId: string, id: string): Tool | undefined {
    return this.tools(orgId).find((t) => t.id === id);
  }
}
