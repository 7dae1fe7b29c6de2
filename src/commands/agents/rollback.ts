import type { ChalkInstance } from 'chalk';
import { Command } from 'commander';
import { getAgent, getAgentTools, listVersionsPage, rollbackAgent, VERSIONS_MAX_PAGE_SIZE, type Agent, type AgentVersion } from '../../api/agents.js';
import { instructionsDiff } from '../../ui/instructions-diff.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { safeText, trusted } from '../../ui/safe-text.js';
import { colorEnabled, loadChalk } from '../../ui/style.js';
import { action } from '../action.js';
import { confirmOrKeep } from '../confirm.js';
import { positiveInt } from '../listing.js';
import type { ContextFactory } from '../types.js';
import { nonBlank } from './input.js';
import type { Tool } from '../../spec/agents.js';

export interface RollbackOptions {
  version: number;
  reason: string;
}

export function rollbackCommand(makeContext: ContextFactory): Command {
  return new Command('rollback')
    .description('Go back to an earlier version as a new one (history is kept); shows what changes, then asks (--yes in scripts)')
    .argument('<agentId>', 'the agent id')
    .requiredOption('--version <n>', 'the earlier version to restore', positiveInt('--version'))
    .requiredOption('--reason <text>', 'why (kept in the version history)')
    .addHelpText(
      'after',
      `
A rollback restores the whole earlier version: its instructions, its voice and its
tools, not the instructions alone. What will change is printed first (instructions as a
diff, voice, tools; on stderr), then it asks; --yes answers for scripts and CI (without a
terminal it is required). What the server does not say about the earlier version is
said too. Prints the number of the new version.

Examples:
  $ vap agents versions ag_3k9x0c1m2p8q7r4t          (to find the version to go back to)
  $ vap agents rollback ag_3k9x0c1m2p8q7r4t --version 2 --reason "v3 mispronounced names"
  $ vap agents rollback ag_3k9x0c1m2p8q7r4t --version 2 --reason "bad deploy" --yes   (in scripts and CI)`,
    )
    .action(action<RollbackOptions>(makeContext, (args, opts, ctx) => run(args[0]!, opts, ctx)));
}

export async function run(agentId: string, opts: RollbackOptions, ctx: Context): Promise<void> {
  const reason = nonBlank('--reason', opts.reason)!;
  const yes = Boolean(ctx.globals.yes);
  const kept = (label: string) => `nothing changed: ${label} was kept as it is`;
  // Without a terminal the question cannot be asked: a usage error naming --yes, before anything is read or sent.
  if (!yes && !ctx.prompter.canPrompt) await confirmOrKeep(ctx, `Roll agent ${agentId} back to version ${opts.version}?`, kept(`agent ${agentId}`));
  const api = await ctx.api();
  if (!yes || !ctx.globals.quiet) {
    const preview = await readPreview(ctx, agentId, opts.version);
    const chalk = await loadChalk(colorEnabled({ flag: ctx.globals.color !== false, isTTY: ctx.io.stderrIsTTY, env: ctx.env }));
    ctx.info(trusted(renderPreview(preview, opts.version, chalk)));
    const label = `agent ${preview.agent.name} (${agentId})`;
    if (!yes && !(await confirmOrKeep(ctx, `Roll ${label} back to version ${opts.version}?`, kept(label)))) return;
  }
  const res = await rollbackAgent(api, agentId, { version: opts.version, reason });
  const result = { agentId, version: res.version, rolledBackTo: opts.version };
  await ctx.out.item(result, {
    id: (r) => r.version,
    fields: [
      { header: 'version', value: (r) => r.version },
      { header: 'agent', value: (r) => r.agentId },
      { header: 'restored', value: (r) => r.rolledBackTo },
    ],
  });
  await ctx.success(`Rolled agent ${agentId} back to version ${opts.version}; the new current version is ${res.version}`);
}

interface Preview {
  agent: Agent;
  tools: Tool[];
  /** The earlier version's entry, as the listing gives it. */
  target: AgentVersion;
}

/** The agent now, its tools, and the entry of the version to go back to (read side by side). */
async function readPreview(ctx: Context, agentId: string, version: number): Promise<Preview> {
  const api = await ctx.api();
  const [agent, tools] = await Promise.all([getAgent(api, agentId, ctx.signal), getAgentTools(api, agentId, ctx.signal)]);
  const current = agent.currentVersion;
  if (current !== undefined && version === current)
    throw new UsageError(
      `version ${version} is already the current version of agent ${agentId}`,
      'roll back to an earlier one (`vap agents versions` lists them)',
    );
  if (current !== undefined && version > current)
    throw new UsageError(`agent ${agentId} has no version ${version}; its versions are 1 to ${current}`, '`vap agents versions` lists them');
  const target = await findVersion(ctx, agentId, version, current);
  if (!target) throw new UsageError(`agent ${agentId} has no version ${version} in its history`, '`vap agents versions` lists them');
  return { agent, tools, target };
}

/** A version's entry: the listing is newest first, so version n of c is at offset c − n (else every page is read). */
async function findVersion(ctx: Context, agentId: string, version: number, current: number | undefined): Promise<AgentVersion | undefined> {
  const api = await ctx.api();
  if (current !== undefined) {
    const one = await listVersionsPage(api, agentId, { page: current - version + 1, pageSize: 1 }, ctx.signal);
    const hit = one.items.find((v) => v.versionNumber === version);
    if (hit) return hit;
  }
  for (let page = 1; ; page++) {
    const p = await listVersionsPage(api, agentId, { page, pageSize: VERSIONS_MAX_PAGE_SIZE }, ctx.signal);
    const hit = p.items.find((v) => v.versionNumber === version);
    if (hit || !p.hasMore || p.items.length === 0) return hit;
  }
}

const voiceText = (v: { name: string; language: string } | null | undefined) => (v ? `${v.name} (${v.language})` : 'none');
const toolsText = (ts: readonly Tool[]) => (ts.length ? ts.map((t) => t.name).join(', ') : 'none');

/**
 * What the rollback changes, from now (−) to the earlier version (+): the instructions as a
 * unified diff (the as-code plan's renderer), the voice and the tools. What the server does
 * not give for the earlier version is named as unknown. Data goes through safe-text.
 */
export function renderPreview(p: Preview, version: number, chalk: ChalkInstance): string {
  const { agent, tools, target } = p;
  const lines = [`Rolling agent ${safeText(agent.name)} (${safeText(agent.id)}) back to version ${version} changes:`];
  const unknown: string[] = [];
  let changes = 0;

  if (typeof target.instructions === 'string' && typeof agent.instructions === 'string') {
    if (target.instructions !== agent.instructions) {
      changes++;
      lines.push('  instructions:', ...instructionsDiff(agent.instructions, target.instructions, chalk, '    '));
    }
  } else unknown.push('instructions');

  if (target.voice !== undefined) {
    const from = agent.voice ?? null;
    const to = target.voice;
    if (from?.name !== to?.name || from?.language?.toLowerCase() !== to?.language?.toLowerCase()) {
      changes++;
      lines.push(`  voice: ${chalk.red(safeText(voiceText(from)))} → ${chalk.green(safeText(voiceText(to)))}`);
    }
  } else unknown.push('voice');

  if (Array.isArray(target.tools)) {
    const before = new Set(tools.map((t) => t.id));
    const after = new Set(target.tools.map((t) => t.id));
    const removed = tools.filter((t) => !after.has(t.id));
    const added = target.tools.filter((t) => !before.has(t.id));
    if (removed.length || added.length) {
      changes++;
      const marks = [...added.map((t) => chalk.green(`+ ${safeText(t.name)}`)), ...removed.map((t) => chalk.red(`- ${safeText(t.name)}`))].join(', ');
      const kept = tools.filter((t) => after.has(t.id));
      lines.push(`  tools: ${marks}${kept.length ? chalk.dim(`  (kept: ${safeText(toolsText(kept))})`) : ''}`);
    }
  } else unknown.push('tools');

  if (changes === 0 && unknown.length === 0) lines.push(`  nothing in its instructions, voice or tools: they are the same at version ${version}`);
  const named = unknown.length > 1 ? `${unknown.slice(0, -1).join(', ')} and ${unknown.at(-1)}` : unknown[0];
  if (unknown.length)
    lines.push(
      `  ${chalk.yellow('!')} the server does not say what version ${version}'s ${named} ${unknown.length === 1 ? 'was' : 'were'}; the rollback restores ${unknown.length === 1 ? 'it' : 'them'} too (now: ${unknownNow(unknown, agent, tools)})`,
    );
  lines.push(chalk.dim(`  name, engine, description, tags and variables: version ${version}'s too`));
  return lines.join('\n');
}

function unknownNow(unknown: string[], agent: Agent, tools: Tool[]): string {
  return unknown
    .map((u) =>
      u === 'voice'
        ? `voice ${safeText(voiceText(agent.voice))}`
        : u === 'tools'
          ? `tools ${safeText(toolsText(tools))}`
          : `${(agent.instructions ?? '').split('\n').length} lines of instructions`,
    )
    .join('; ');
}
