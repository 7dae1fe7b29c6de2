import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import type { Agent, AgentVersion } from '../../src/api/agents.js';
import { renderPreview } from '../../src/commands/agents/rollback.js';

// What `vap agents rollback` says before it asks: the instructions as a diff, the voice and the
// tools, from now to the earlier version; what the server does not say is named; data is shown
// safe (no escape sequence from a name, an instruction or a tool reaches the terminal).

const chalk = new Chalk({ level: 0 });
const agent: Agent = { id: 'ag_1', name: 'Desk', instructions: 'Greet.\nBook.', currentVersion: 3, voice: { name: 'Lucía', language: 'es-ES' } };
const entry = (extra: Partial<AgentVersion>): AgentVersion => ({
  versionNumber: 1,
  changeType: 'created',
  changedByName: 'x',
  changedAt: '2026-01-01T00:00:00Z',
  isCurrent: false,
  ...extra,
});

describe('the rollback preview', () => {
  it('shows the instructions as a diff, the voice and the tools', () => {
    const text = renderPreview(
      {
        agent,
        tools: [{ id: 't1', name: 'Calendar' }],
        target: entry({ instructions: 'Greet.', voice: { voiceId: 'v', name: 'Ava', language: 'en-US' }, tools: [{ id: 't2', name: 'CRM' }] }),
      },
      1,
      chalk,
    );
    expect(text).toBe(
      [
        'Rolling agent Desk (ag_1) back to version 1 changes:',
        '  instructions:',
        '    @@ -1,2 +1,1 @@',
        '     Greet.',
        '    -Book.',
        '  voice: Lucía (es-ES) → Ava (en-US)',
        '  tools: + CRM, - Calendar',
        "  name, engine, description, tags and variables: version 1's too",
      ].join('\n'),
    );
  });

  it('names the tools that stay', () => {
    const text = renderPreview(
      {
        agent,
        tools: [
          { id: 't1', name: 'Calendar' },
          { id: 't2', name: 'CRM' },
        ],
        target: entry({ instructions: agent.instructions, voice: null, tools: [{ id: 't1', name: 'Calendar' }] }),
      },
      1,
      chalk,
    );
    expect(text).toContain('  voice: Lucía (es-ES) → none\n  tools: - CRM  (kept: Calendar)\n');
  });

  it('says so when nothing of the three changes', () => {
    const text = renderPreview(
      { agent, tools: [], target: entry({ instructions: agent.instructions, voice: { voiceId: 'v', name: 'Lucía', language: 'es-es' }, tools: [] }) },
      1,
      chalk,
    );
    expect(text).toContain('  nothing in its instructions, voice or tools: they are the same at version 1');
  });

  it('names what the server does not say about the earlier version (a server without the extras)', () => {
    const text = renderPreview({ agent, tools: [{ id: 't1', name: 'Calendar' }], target: entry({}) }, 1, chalk);
    expect(text).toContain(
      "! the server does not say what version 1's instructions, voice and tools were; the rollback restores them too (now: 2 lines of instructions; voice Lucía (es-ES); tools Calendar)",
    );
  });

  it('shows hostile names, instructions and tools safe', () => {
    const evil = 'EVIL\x1b]0;pwned\x07\x1b[2J\u202e';
    const text = renderPreview(
      {
        agent: { ...agent, name: evil, instructions: `x${evil}` },
        tools: [{ id: 't', name: evil }],
        target: entry({ instructions: 'y', voice: { voiceId: 'v', name: evil, language: 'en' }, tools: [] }),
      },
      1,
      chalk,
    );
    expect(text).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f\u202e]/);
    expect(text).toContain('EVIL\\e]0;pwned\\x07\\e[2J\\u202e');
  });
});
