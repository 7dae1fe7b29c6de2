import { z } from 'zod';
import {
  AGENTS_MAX_PAGE_SIZE,
  createAgent,
  getAgent,
  getAgentTools,
  getAgentVoice,
  listAgentsPage,
  listVersionsPage,
  rollbackAgent,
  setAgentTools,
  setAgentVoice,
  updateAgent,
  VERSIONS_MAX_PAGE_SIZE,
  type AgentChange,
} from '../../api/agents.js';
import { Refusal } from '../safety.js';
import { limitOf, listInput, listOutput, openCursor, readRange } from '../paging.js';
import * as S from '../schemas.js';
import { defineTool } from '../tool.js';
import { ENGINES } from '../../spec/agents.js';

const agentId = z.string().min(1).describe('The agent id (from vap_agents_list).');
const confirm = z.string().optional().describe('The agent id again, to confirm the change once the user agreed to it.');
const variables = z.array(z.object({ name: z.string().min(1), description: z.string() })).describe('Variables the instructions use, each with a description.');

const pageSize = (limit: number, max: number) => Math.min(limit, max);

/** A version number the platform gave, as vap's words may quote it (a number, or nothing). */
const num = (v: unknown): string => (typeof v === 'number' && Number.isFinite(v) ? String(v) : '(unknown)');

export const agentTools = [
  defineTool({
    name: 'vap_agents_list',
    title: 'List agents',
    description:
      "The organization's voice agents, with the fields of `vap agents list`: id, name, engine, current version, voice, last change (vap_agents_get gives the whole agent). search matches the name, description or a tag.",
    input: { search: z.string().optional().describe('Text to match in the name, description or tags.'), ...listInput },
    output: z.object({
      agents: z.array(S.agent.pick({ id: true, name: true, engine: true, currentVersion: true, voice: true, updatedAt: true })),
      total: S.num,
    }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      const { pos, filters } = openCursor(env.tool, a.cursor, { search: a.search });
      const offset = pos.o ?? 0;
      const limit = limitOf(a.limit);
      const r = await readRange(
        (page, size) => listAgentsPage(env.api, { page, pageSize: size, search: filters.search as string | undefined }, env.signal),
        offset,
        limit,
        pageSize(limit, AGENTS_MAX_PAGE_SIZE),
      );
      return listOutput(
        { tool: env.tool, key: 'agents', filters, fields: ['id', 'name', 'engine', 'currentVersion', 'voice', 'updatedAt'] },
        r.items,
        r.more,
        (n) => ({ o: offset + n }),
        r.total,
      );
    },
  }),

  defineTool({
    name: 'vap_agents_get',
    title: 'Get an agent',
    description: 'One agent as it stands now (instructions, engine, voice, current version, variables) and its tools.',
    input: { agentId },
    output: z.object({ agent: S.agent, tools: z.array(S.tool) }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      const [agent, tools] = await Promise.all([getAgent(env.api, a.agentId, env.signal), getAgentTools(env.api, a.agentId, env.signal)]);
      return { data: { agent, tools }, rest: `read the whole agent as the resource vap://agents/${a.agentId}` };
    },
  }),

  defineTool({
    name: 'vap_agents_versions',
    title: "List an agent's versions",
    description:
      "An agent's version history, newest first: number, what changed, who, when, which is current, and for a rollback the version restored and the reason given.",
    input: { agentId, ...listInput },
    output: z.object({ agentId: z.string(), currentVersion: S.num, versions: z.array(S.version), total: S.num }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      const { pos, filters } = openCursor(env.tool, a.cursor, { agentId: a.agentId });
      const offset = pos.o ?? 0;
      const limit = limitOf(a.limit);
      let current: number | undefined;
      const r = await readRange(
        async (page, size) => {
          const p = await listVersionsPage(env.api, filters.agentId as string, { page, pageSize: size }, env.signal);
          current ??= p.currentVersion;
          return p;
        },
        offset,
        limit,
        pageSize(limit, VERSIONS_MAX_PAGE_SIZE),
      );
      return listOutput(
        { tool: env.tool, key: 'versions', filters, extra: { agentId: filters.agentId, currentVersion: current ?? null } },
        r.items,
        r.more,
        (n) => ({ o: offset + n }),
        r.total,
      );
    },
  }),

  defineTool({
    name: 'vap_agents_create',
    title: 'Create an agent',
    description: 'Creates a voice agent from plain-language instructions; it starts at version 1. Returns its id.',
    input: {
      name: z.string().min(1).describe('The agent name.'),
      instructions: z.string().min(1).describe('What the agent does, in plain language.'),
      engine: z.enum(ENGINES as [string, ...string[]]).describe('realtime (managed), pipeline (own models) or speech-to-speech.'),
      variables: variables.optional(),
      description: z.string().optional(),
      tags: z.array(z.string()).optional(),
    },
    output: z.object({ agent: z.looseObject({ id: z.string(), name: S.str, engine: S.str, currentVersion: S.num }) }),
    idempotent: false,
    openWorld: false,
    write: {
      changes: 'creates a new agent (version 1)',
      undo: 'delete the agent with `vap agents delete <id>` in a terminal (no tool deletes)',
      destructive: false,
    },
    async run(a, env) {
      const agent = await createAgent(env.api, {
        name: a.name,
        instructions: a.instructions,
        engine: a.engine as (typeof ENGINES)[number],
        variables: a.variables ?? [],
        description: a.description,
        tags: a.tags,
      });
      return { data: { agent }, undo: 'created the agent whose id is data.agent.id; to undo, delete it with `vap agents delete <that id>` in a terminal' };
    },
  }),

  defineTool({
    name: 'vap_agents_update',
    title: 'Change an agent',
    description:
      "Changes an agent's name, instructions, engine, variables, description or tags (only the fields given). A change to the instructions records a new version.",
    input: {
      agentId,
      name: z.string().min(1).optional(),
      instructions: z.string().min(1).optional(),
      engine: z.enum(ENGINES as [string, ...string[]]).optional(),
      variables: variables.optional(),
      description: z.string().optional(),
      tags: z.array(z.string()).optional(),
      reason: z.string().optional().describe('Why (kept with the version the change makes).'),
      confirm,
    },
    output: z.object({
      agentId: z.string(),
      previousVersion: S.num,
      currentVersion: S.num,
      previous: z.looseObject({}).describe('The changed fields as they were before the call.'),
    }),
    idempotent: true,
    openWorld: false,
    write: {
      changes: "changes the agent's fields; a change to its instructions records a new version",
      undo: 'the result gives the version current before the call (roll back to it with vap_agents_rollback) and the previous values of the changed fields (data.previous)',
      destructive: true,
      confirm: (a) => ({ id: a.agentId, what: 'agent' }),
    },
    async run(a, env) {
      const change: AgentChange = {};
      for (const k of ['name', 'instructions', 'engine', 'variables', 'description', 'tags', 'reason'] as const)
        if (a[k] !== undefined) (change as Record<string, unknown>)[k] = a[k];
      const fields = Object.keys(change).filter((k) => k !== 'reason');
      if (fields.length === 0)
        throw new Refusal('vap_agents_update: no field to change was given (name, instructions, engine, variables, description or tags). Nothing was changed.');
      const before = await getAgent(env.api, a.agentId, env.signal);
      const res = await updateAgent(env.api, a.agentId, change);
      const previous = Object.fromEntries(fields.map((k) => [k, before[k] ?? null]));
      const versioned = res.currentVersion !== before.currentVersion;
      return {
        data: { agentId: a.agentId, previousVersion: before.currentVersion ?? null, currentVersion: res.currentVersion ?? null, previous },
        undo: versioned
          ? `agent ${a.agentId} is now at version ${num(res.currentVersion)}; to undo, call vap_agents_rollback with agentId ${a.agentId}, version ${num(before.currentVersion)}, a reason and confirm ${a.agentId}`
          : `agent ${a.agentId} keeps version ${num(res.currentVersion)}; to undo, call vap_agents_update again with the values in data.previous and confirm ${a.agentId}`,
      };
    },
  }),

  defineTool({
    name: 'vap_agents_rollback',
    title: 'Roll an agent back',
    description: 'Restores an earlier version of an agent. It is recorded as a new current version with the reason; the history is kept.',
    input: {
      agentId,
      version: z.number().int().min(1).describe('The earlier version to restore (from vap_agents_versions).'),
      reason: z.string().min(1).describe('Why (kept in the version history).'),
      confirm,
    },
    output: z.object({ agentId: z.string(), previousVersion: S.num, restored: z.number(), currentVersion: z.number() }),
    idempotent: false,
    openWorld: false,
    write: {
      changes: "rolls the agent back: the restored version's content becomes a new current version",
      undo: 'roll back again to the version that was current before the call (the result gives it as previousVersion)',
      destructive: true,
      confirm: (a) => ({ id: a.agentId, what: 'agent' }),
    },
    async run(a, env) {
      const before = await getAgent(env.api, a.agentId, env.signal);
      const res = await rollbackAgent(env.api, a.agentId, { version: a.version, reason: a.reason });
      return {
        data: { agentId: a.agentId, previousVersion: before.currentVersion ?? null, restored: a.version, currentVersion: res.version },
        undo: `agent ${a.agentId} is now at version ${num(res.version)} (the content of version ${a.version}); to undo, call vap_agents_rollback with agentId ${a.agentId}, version ${num(before.currentVersion)}, a reason and confirm ${a.agentId}`,
      };
    },
  }),

  defineTool({
    name: 'vap_agents_bisect',
    title: 'Find the version that made an agent worse',
    description:
      "Searches an agent's versions between a good and a bad one for the first that regressed on an eval suite, as `vap agents bisect` does: each version tested on a preview copy (tagged vap-preview, removed afterwards), judged by the adaptive verdict against the good version. It places eval calls, at most maxCalls; the live agent is never changed. Returns the first bad version with its verdict and diff, no regression, or the range left undecided.",
    input: {
      agentId,
      suite: z.string().min(1).describe('The eval suite id to judge each version by.'),
      good: z.number().int().min(1).describe('The last version known good.'),
      bad: z.number().int().min(2).describe('A later version known bad.'),
      maxCalls: z.number().int().min(1).describe('The most calls the whole search may place.'),
      minEffect: z.number().min(0).max(1).optional().describe('The smallest change that matters (default 0.05).'),
      alpha: z.number().gt(0).lt(0.5).optional().describe('The rate of a false "regressed" at each step (default 0.01).'),
      confirm,
    },
    output: z.looseObject({ result: z.string(), calls: z.number(), maxCalls: z.number() }),
    idempotent: false,
    openWorld: false,
    write: {
      changes: 'places eval calls (at most maxCalls) on preview copies of the agent it makes and removes',
      undo: 'nothing to undo: the live agent is not changed and the copies are removed (`vap agents bisect <id> --clean` in a terminal removes any a cancelled search left)',
      destructive: true,
      confirm: (a) => ({ id: a.agentId, what: 'agent' }),
    },
    async run(a, env) {
      const [{ ProfileCopyStore }, { platformVersions }, { bisect }, { resultJson }, { DEFAULT_ALPHA, DEFAULT_MIN_EFFECT }] = await Promise.all([
        import('../../bisect/copies.js'),
        import('../../bisect/content.js'),
        import('../../bisect/search.js'),
        import('../../bisect/report.js'),
        import('../../evals/verdict.js'),
      ]);
      const creds = await env.credentials();
      const store = new ProfileCopyStore(env.env, creds.profile ?? 'default', { baseUrl: creds.baseUrl, apiKey: creds.apiKey });
      const { agent, versions } = await platformVersions(env.api, a.agentId, a.good, a.bad, env.signal);
      const quiet = { planned: () => undefined, baseline: () => undefined, step: () => undefined };
      const r = await bisect(
        { api: env.api, signal: env.signal, store, reporter: quiet },
        {
          agentId: a.agentId,
          evalId: a.suite,
          agentName: agent.name,
          versions,
          maxCalls: a.maxCalls,
          verdict: { alpha: a.alpha ?? DEFAULT_ALPHA, minEffect: a.minEffect ?? DEFAULT_MIN_EFFECT },
          keyPrefix: 'bisect-',
          liveGoodVersion: a.good,
        },
      );
      const undo =
        r.kind === 'found'
          ? `vap agents rollback ${a.agentId} --version ${r.lastGood.version} --reason "bisect: version ${r.first.version} regressed"`
          : undefined;
      return {
        data: resultJson(r, { agentId: a.agentId, evalId: a.suite, ...(undo ? { undo } : {}) }),
        undo: 'the live agent was not changed; the preview copies were removed',
      };
    },
  }),

  defineTool({
    name: 'vap_agents_voice',
    title: "Set an agent's voice",
    description: 'Sets the voice (from vap_voices_list) and language an agent speaks with. Refused by the platform for speech-to-speech agents.',
    input: {
      agentId,
      voiceId: z.string().min(1).describe('The voice id (from vap_voices_list).'),
      language: z.string().optional().describe('A BCP 47 language tag, e.g. es-MX.'),
      confirm,
    },
    output: z.object({ agentId: z.string(), previous: S.agentVoice.nullish(), voice: S.agentVoice }),
    idempotent: true,
    openWorld: false,
    write: {
      changes: "replaces the agent's voice",
      undo: 'set the previous voice again (the result gives it as data.previous)',
      destructive: true,
      confirm: (a) => ({ id: a.agentId, what: 'agent' }),
    },
    async run(a, env) {
      const previous = await getAgentVoice(env.api, a.agentId, env.signal).catch(() => null);
      const voice = await setAgentVoice(env.api, a.agentId, { voiceId: a.voiceId, language: a.language });
      return {
        data: { agentId: a.agentId, previous, voice },
        undo: `to undo, call vap_agents_voice with agentId ${a.agentId}, confirm ${a.agentId} and the voiceId and language of data.previous`,
      };
    },
  }),

  defineTool({
    name: 'vap_agents_tools',
    title: "Set an agent's tools",
    description: "Replaces an agent's whole tool list in one step with the tool ids given (tools of another organization are refused).",
    input: { agentId, toolIds: z.array(z.string().min(1)).describe('Every tool the agent should have (an empty list removes them all).'), confirm },
    output: z.object({ agentId: z.string(), previous: z.array(S.tool), tools: z.array(S.tool) }),
    idempotent: true,
    openWorld: false,
    write: {
      changes: "replaces the agent's tool list",
      undo: 'set the previous list again (the result gives it as data.previous)',
      destructive: true,
      confirm: (a) => ({ id: a.agentId, what: 'agent' }),
    },
    async run(a, env) {
      const previous = await getAgentTools(env.api, a.agentId, env.signal);
      const tools = await setAgentTools(env.api, a.agentId, a.toolIds);
      return {
        data: { agentId: a.agentId, previous, tools },
        undo: `to undo, call vap_agents_tools with agentId ${a.agentId}, confirm ${a.agentId} and toolIds the ids of data.previous`,
      };
    },
  }),
];
