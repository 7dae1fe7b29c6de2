import type { ChalkInstance } from 'chalk';
import { wrapText } from './wrap.js';
import { safeText } from './safe-text.js';

/**
 * A conversation as a chat: one labelled, coloured turn per line, wrapped with the text aligned
 * after the labels. Generic: eval results, `calls transcript` and `calls tail` all have
 * `{ role, text }` lines.
 */
export interface ChatLine {
  role: string;
  text: string;
}

export interface RoleStyle {
  label: string;
  /** A chalk colour name for the label (and a dim marker when colour is off). */
  color?: 'cyan' | 'yellow' | 'magenta' | 'green' | 'blue' | 'red' | 'gray';
}

/** Document 2's transcript roles: `agent`, and `user`, who is the caller (or the eval's tester). */
export const DEFAULT_ROLES: Readonly<Record<string, RoleStyle>> = {
  agent: { label: 'agent', color: 'cyan' },
  user: { label: 'caller', color: 'yellow' },
  caller: { label: 'caller', color: 'yellow' },
  system: { label: 'system', color: 'gray' },
};

export interface ChatOptions {
  /** Total width of each printed line, indent included. */
  width: number;
  /** Spaces before every line (for nesting under a heading). */
  indent?: number;
  /** Labels and colours by role; unknown roles are labelled with the role itself. */
  roles?: Record<string, RoleStyle>;
  /** chalk for the labels (a level-0 instance prints no colour). Without it: plain text. */
  chalk?: ChalkInstance;
  /** The smallest text column before it stops shrinking (default 20). */
  minTextWidth?: number;
}

/** The chat as printable lines (no trailing newline on each). */
export function renderChat(lines: readonly ChatLine[], opts: ChatOptions): string[] {
  const roles = { ...DEFAULT_ROLES, ...opts.roles };
  // An unknown role is labelled with its own text (data: shown safe); the text is made safe by wrapText.
  const styleOf = (role: string): RoleStyle => (Object.hasOwn(roles, role) ? roles[role]! : { label: safeText(String(role ?? '')) || '?', color: 'magenta' });
  const indent = ' '.repeat(Math.max(0, opts.indent ?? 0));
  const labelWidth = Math.max(0, ...lines.map((l) => styleOf(l.role).label.length));
  const gap = 2;
  const textWidth = Math.max(opts.minTextWidth ?? 20, opts.width - indent.length - labelWidth - gap);
  const pad = ' '.repeat(labelWidth + gap);
  const out: string[] = [];
  for (const line of lines) {
    const style = styleOf(line.role);
    const label = style.label.padEnd(labelWidth);
    const painted = opts.chalk && style.color ? opts.chalk.bold[style.color](label) : label;
    wrapText(line.text, textWidth).forEach((part, i) => {
      out.push(`${indent}${i === 0 ? painted + ' '.repeat(gap) : pad}${part}`.trimEnd());
    });
  }
  return out;
}
