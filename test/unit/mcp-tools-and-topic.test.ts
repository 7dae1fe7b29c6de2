// The tools' table against `vap help mcp`: the topic names every tool (the writes apart,
// the destructive ones marked) and no other, and gives the safety model in five lines;
// every write says what it changes and how to undo it, and a destructive one takes confirm.
import { describe, expect, it } from 'vitest';
import { helpTopicText } from '../../src/commands/help-topics.js';
import { descriptionOf } from '../../src/mcp/tool.js';
import { TOOLS } from '../../src/mcp/tools/index.js';

const topic = helpTopicText('mcp');
const section = (title: string) => {
  const lines = topic.split('\n');
  const start = lines.indexOf(title);
  const end = lines.findIndex((l, i) => i > start && l !== '' && !l.startsWith(' '));
  return lines.slice(start + 1, end < 0 ? undefined : end).filter((l) => l.trim() !== '');
};

describe('the tools and the mcp help topic', () => {
  it('names are vap_<group>_<verb>, each once', () => {
    const names = TOOLS.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(/^vap_[a-z]+(_[a-z]+)+$/);
  });

  it('the topic lists every tool, and no other: reads, then writes with the destructive ones marked', () => {
    const tools = section('Tools (vap_<group>_<verb>)').join(' ');
    const [reads, writes] = tools.split(/\bwrite\b/);
    const named = (s: string) => [...s.matchAll(/vap_[a-z_]+\*?/g)].map((m) => m[0]);
    expect(named(reads!).sort()).toEqual(
      TOOLS.filter((t) => !t.write)
        .map((t) => t.name)
        .sort(),
    );
    expect(named(writes!).sort()).toEqual(
      TOOLS.filter((t) => t.write)
        .map((t) => `${t.name}${t.write!.destructive ? '*' : ''}`)
        .sort(),
    );
  });

  it('gives the safety model in five lines, and how to connect the three clients', () => {
    expect(section('Safety')).toHaveLength(5);
    expect(topic).toContain('claude mcp add vap -- vap mcp');
    expect(topic).toContain('vap mcp config --client cursor');
    expect(topic).toContain('vap mcp config --client vscode');
    expect(topic).toContain('vap://agents/{id}');
    expect(topic).toContain('vap://runs/{suite}/{run}/report');
    expect(topic).toContain('vap://calls/{id}/transcript');
  });

  it('every write says what it changes and how to undo it; a destructive one takes confirm', () => {
    for (const t of TOOLS.filter((x) => x.write)) {
      const d = descriptionOf(t);
      expect(d, t.name).toContain(`Changes: ${t.name} ${t.write!.changes}. Undo: ${t.write!.undo}.`);
      if (t.write!.destructive) {
        expect(Object.keys(t.input), t.name).toContain('confirm');
        expect(t.write!.confirm, t.name).toBeTypeOf('function');
        expect(d, t.name).toContain('unless confirm equals the id');
      } else expect(t.write!.confirm, t.name).toBeUndefined();
    }
  });
});
