// The file formats of agents as code: agent.md keeps the instructions byte for byte, files
// are rewritten in place with their comments, the state has one text per content, and
// the comparisons ignore what the platform may normalise.
import { describe, expect, it } from 'vitest';
import { reportPathFor } from '../../src/ascode/eval-gate.js';
import { changedFields, fieldHashes, type AgentModel, type SuiteModel } from '../../src/ascode/model.js';
import { parseRef } from '../../src/ascode/mv.js';
import { joinAgentMarkdown, splitAgentMarkdown } from '../../src/ascode/project.js';
import { emptyState, serializeState } from '../../src/ascode/state.js';
import { agentMarkdown, suiteYaml, uniqueSlug, webhookYaml } from '../../src/ascode/write.js';

const agent: AgentModel = {
  name: 'Front Desk',
  engine: 'realtime',
  voice: { name: 'Ava', language: 'en-US' },
  tools: ['CRM lookup', 'Calendar booking'],
  variables: [{ name: 'patient', description: 'who calls' }],
  description: '',
  tags: [],
  instructions: 'Line one.\n\n  Indented line two, with trailing spaces   \nNo newline at the end',
};

const suite: SuiteModel = {
  name: 'Booking',
  iterations: 2,
  status: 'ready',
  noise: null,
  criteria: [
    { key: 'goal_completion', name: 'Goal', weight: 0.5 },
    { key: 'tone', name: 'Tone', weight: 0.5 },
  ],
  scenarios: [
    { name: 'A', persona: 'Ann', goal: 'Book', category: 'happy_path' },
    { name: 'B', persona: 'Bob', goal: 'Cancel', category: 'edge_case' },
  ],
};

describe('agent.md', () => {
  it.each([
    ['plain', 'Greet callers.'],
    ['ending with a newline', 'Greet callers.\n'],
    ['ending with two', 'Greet callers.\n\n'],
    ['with CRLF and tabs', 'One\r\n\tTwo\r\n'],
    ['holding a --- line', 'Intro\n---\nAfter the rule'],
  ])('keeps instructions %s byte for byte through write and read', (_name, instructions) => {
    const text = joinAgentMarkdown('name: x\n', instructions);
    expect(text.endsWith('\n')).toBe(true);
    expect(splitAgentMarkdown(text)).toEqual({ frontMatter: 'name: x\n', body: instructions });
  });

  it('a file saved without its final newline reads the same', () => {
    expect(splitAgentMarkdown('---\nname: x\n---\nHello')!.body).toBe('Hello');
  });

  it('is written in a fixed form, and rewritten in place keeping comments and key order', () => {
    const fresh = agentMarkdown(agent, undefined, {});
    expect(fresh).toBe(
      '---\nname: Front Desk\nengine: realtime\nvoice:\n  name: Ava\n  language: en-US\ntools:\n  - CRM lookup\n  - Calendar booking\nvariables:\n  - name: patient\n    description: who calls\n---\n' +
        `${agent.instructions}\n`,
    );
    const edited = fresh
      .replace('engine: realtime', 'engine: realtime # the managed tier')
      .replace('name: Front Desk\n', '# owned by the support team\nname: Front Desk\n');
    const renamed = agentMarkdown({ ...agent, name: 'Reception' }, edited, {});
    expect(renamed).toContain('# owned by the support team\nname: Reception\nengine: realtime # the managed tier\n');
    expect(agentMarkdown(agent, edited, {})).toBe(edited);
  });
});

describe('suite and webhook files', () => {
  it('a suite file that agrees with the platform is left as it is, comments included', () => {
    const text = suiteYaml(suite, true, undefined, {});
    const commented = text.replace('gate: true', 'gate: true # blocks the push');
    expect(suiteYaml(suite, true, commented, {})).toBe(commented);
  });

  it('a webhook URL that is a profile variable is written as ${vars.NAME}, and kept as such', () => {
    const text = webhookYaml({ name: 'CRM', url: 'https://staging.example.com/hook', events: ['call.ended'] }, undefined, {
      HOOK: 'https://staging.example.com/hook',
    });
    expect(text).toBe('name: CRM\nurl: ${vars.HOOK}\nevents:\n  - call.ended\n');
    expect(
      webhookYaml({ name: 'CRM', url: 'https://staging.example.com/hook', events: ['call.ended'] }, text, { HOOK: 'https://staging.example.com/hook' }),
    ).toBe(text);
  });
});

describe('comparisons', () => {
  it('ignore the order of tools, events and scenarios, the scale of weights and the case of a language tag', () => {
    const same: AgentModel = { ...agent, tools: [...agent.tools].reverse(), voice: { name: 'Ava', language: 'en-us' } };
    expect(changedFields('agent', fieldHashes('agent', agent), fieldHashes('agent', same))).toEqual([]);
    const scaled: SuiteModel = {
      ...suite,
      criteria: suite.criteria.map((c) => ({ ...c, weight: c.weight * 4 })).reverse(),
      scenarios: [...suite.scenarios].reverse(),
    };
    expect(changedFields('suite', fieldHashes('suite', suite), fieldHashes('suite', scaled))).toEqual([]);
  });

  it('see every change of the instructions, a single space included', () => {
    expect(changedFields('agent', fieldHashes('agent', agent), fieldHashes('agent', { ...agent, instructions: `${agent.instructions} ` }))).toEqual([
      'instructions',
    ]);
  });
});

describe('the state file', () => {
  it('has sorted keys and one resource per line, whatever the order things were added in', () => {
    const a = emptyState('staging');
    a.agents.zeta = { id: 'ag_2', hash: 'h2', fields: { name: 'n' }, version: 3 };
    a.agents.alpha = { id: 'ag_1', hash: 'h1', fields: { name: 'n' }, version: 1 };
    a.tools['CRM lookup'] = 'tool_1';
    const b = emptyState('staging');
    b.tools['CRM lookup'] = 'tool_1';
    b.agents.alpha = { version: 1, fields: { name: 'n' }, hash: 'h1', id: 'ag_1' };
    b.agents.zeta = { hash: 'h2', id: 'ag_2', version: 3, fields: { name: 'n' } };
    expect(serializeState(a)).toBe(serializeState(b));
    expect(serializeState(a)).toBe(
      '{\n  "format": 1,\n  "profile": "staging",\n  "agents": {\n' +
        '    "alpha": {"fields":{"name":"n"},"hash":"h1","id":"ag_1","version":1},\n' +
        '    "zeta": {"fields":{"name":"n"},"hash":"h2","id":"ag_2","version":3}\n  },\n' +
        '  "intents": {},\n  "suites": {},\n  "tools": {\n    "CRM lookup": "tool_1"\n  },\n  "webhooks": {}\n}\n',
    );
  });
});

describe('names', () => {
  it('slugs are unique and readable', () => {
    const taken = new Set(['front-desk']);
    expect(uniqueSlug('Front Desk', (s) => taken.has(s), 'agent')).toBe('front-desk-2');
    expect(uniqueSlug('Réception 24/7', () => false, 'agent')).toBe('reception-24-7');
    expect(uniqueSlug('☎', () => false, 'agent')).toBe('agent');
  });

  it('mv understands agents, suites and webhooks in their usual spellings', () => {
    const none = () => false;
    expect(parseRef('front-desk', none)).toEqual({ kind: 'agent', key: 'front-desk' });
    expect(parseRef('agents/front-desk/', none)).toEqual({ kind: 'agent', key: 'front-desk' });
    expect(parseRef('agents/front-desk/evals/booking.yaml', none)).toEqual({ kind: 'suite', key: 'front-desk/booking' });
    expect(parseRef('front-desk/evals/booking', none)).toEqual({ kind: 'suite', key: 'front-desk/booking' });
    expect(parseRef('webhooks/crm.yaml', none)).toEqual({ kind: 'webhook', key: 'crm' });
    expect(parseRef('crm', (r) => r.kind === 'webhook')).toEqual({ kind: 'webhook', key: 'crm' });
  });

  it('--report paths get the agent and suite when several runs write them', () => {
    const t = { agentKey: 'desk', agentId: 'ag_1', suiteKey: 'desk/booking', suiteId: 'ev_1', suiteName: 'Booking' };
    expect(reportPathFor('reports/evals.xml', t, false)).toBe('reports/evals.xml');
    expect(reportPathFor('reports/evals.xml', t, true)).toBe('reports/evals.desk.booking.xml');
    expect(reportPathFor('out', t, true)).toBe('out.desk.booking');
  });
});
