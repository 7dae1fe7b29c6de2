import type { ChalkInstance } from 'chalk';
import { instructionsDiff } from '../ui/instructions-diff.js';
import { safeText } from '../ui/safe-text.js';
import { type AgentModel, fieldOf } from './model.js';
import type { Action, Plan, PlanItem } from './plan.js';
import type { Criterion } from '../spec/evals.js';

/**
 * The plan for people (a coloured summary, instructions as a unified diff) and for machines (`--json`). Every diff reads
 * from the platform (−) to the files (+): what a push does. Names, values and instructions are data: they reach the
 * terminal only through safe-text.
 */

const SYMBOL: Record<Action, string> = {
  create: '+',
  update: '~',
  replace: '-/+',
  delete: '-',
  drift: '!',
  conflict: '!',
  blocked: '✗',
  unchanged: '=',
  forget: '·',
};

const LABEL: Record<Action, string> = {
  create: 'create',
  update: 'update',
  replace: 'replace',
  delete: 'delete',
  drift: 'drift',
  conflict: 'conflict',
  blocked: 'blocked',
  unchanged: 'unchanged',
  forget: 'forget',
};

function colourFor(chalk: ChalkInstance, a: Action): (s: string) => string {
  switch (a) {
    case 'create':
      return chalk.green;
    case 'update':
      return chalk.yellow;
    case 'replace':
      return chalk.magenta;
    case 'delete':
      return chalk.red;
    case 'drift':
    case 'conflict':
    case 'blocked':
      return chalk.red.bold;
    default:
      return chalk.dim;
  }
}

export interface PlanCounts {
  create: number;
  update: number;
  replace: number;
  delete: number;
  drift: number;
  conflict: number;
  blocked: number;
  unchanged: number;
}

export function countPlan(plan: Plan): PlanCounts {
  const c: PlanCounts = { create: 0, update: 0, replace: 0, delete: 0, drift: 0, conflict: 0, blocked: 0, unchanged: 0 };
  for (const i of plan.items) if (i.action !== 'forget') c[i.action]++;
  return c;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function summaryLine(c: PlanCounts): string {
  const parts = [`${c.create} to create`, `${c.update} to update`];
  if (c.replace) parts.push(`${c.replace} to replace`);
  parts.push(`${c.delete} to delete`);
  const issues: string[] = [];
  if (c.drift) issues.push(plural(c.drift, 'drifted'));
  if (c.conflict) issues.push(plural(c.conflict, 'conflict'));
  if (c.blocked) issues.push(`${c.blocked} not applicable`);
  return `Plan: ${parts.join(', ')}${issues.length ? `; ${issues.join(', ')}` : ''}.`;
}

function title(i: PlanItem): string {
  const bits: string[] = [];
  if (i.id) bits.push(i.id);
  if (i.kind === 'agent' && i.fromVersion !== undefined) bits.push(`version ${i.fromVersion}`);
  const name = i.name !== i.key ? ` "${i.name}"` : '';
  return `${i.kind} ${i.key}${name}${bits.length ? ` (${bits.join(', ')})` : ''}`;
}

function setDiff(from: string[], to: string[], chalk: ChalkInstance): string {
  const added = to.filter((x) => !from.includes(x));
  const removed = from.filter((x) => !to.includes(x));
  return [...added.map((x) => chalk.green(`+ ${safeText(x)}`)), ...removed.map((x) => chalk.red(`- ${safeText(x)}`))].join(', ') || 'order only';
}

const voiceText = (v: AgentModel['voice']) => (v ? `${v.name} (${v.language})` : "the model's own voice");
const criteriaText = (cs: Criterion[]) => cs.map((c) => `${c.key} ${c.weight}`).join(', ');
const quoted = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v));

function fieldLines(i: PlanItem, field: string, chalk: ChalkInstance, indent: string): string[] {
  const from = fieldOf(i.remoteModel, field);
  const to = fieldOf(i.localModel, field);
  const arrow = (a: string, b: string) => [`${indent}${field}: ${chalk.red(safeText(a))} → ${chalk.green(safeText(b))}`];
  if (i.kind === 'agent') {
    const [was, is] = [i.remoteModel, i.localModel];
    if (field === 'instructions') return [`${indent}instructions:`, ...instructionsDiff(was?.instructions ?? '', is?.instructions ?? '', chalk, `${indent}  `)];
    if (field === 'voice') return arrow(voiceText(was?.voice ?? null), voiceText(is?.voice ?? null));
    if (field === 'tools' || field === 'tags') return [`${indent}${field}: ${setDiff(was?.[field] ?? [], is?.[field] ?? [], chalk)}`];
  }
  if (i.kind === 'webhook' && field === 'events') return [`${indent}events: ${setDiff(i.remoteModel?.events ?? [], i.localModel?.events ?? [], chalk)}`];
  if (i.kind === 'suite') {
    if (field === 'criteria') return arrow(criteriaText(i.remoteModel?.criteria ?? []), criteriaText(i.localModel?.criteria ?? []));
    if (field === 'scenarios') {
      const out = [`${indent}scenarios:`];
      for (const s of i.scenarios?.add ?? []) out.push(`${indent}  ${chalk.green(`+ ${safeText(s.name)}`)} ${chalk.dim(`(${safeText(s.category)})`)}`);
      for (const s of i.scenarios?.stale ?? [])
        out.push(
          `${indent}  ${chalk.red(`✗ ${safeText(s.name)}`)} ${chalk.dim(`${s.why} in the file; the API cannot ${s.why === 'edited' ? 'change' : 'remove'} a scenario`)}`,
        );
      if (out.length === 1) out.push(`${indent}  (the same scenarios in another order)`);
      return out;
    }
  }
  return arrow(quoted(from ?? null), quoted(to ?? null));
}

function createLines(i: PlanItem, _chalk: ChalkInstance, indent: string): string[] {
  if (i.kind === 'agent') {
    const a = i.localModel!;
    const lines = [`${indent}engine ${a.engine}, voice ${safeText(voiceText(a.voice))}${a.tools.length ? `, tools ${safeText(a.tools.join(', '))}` : ''}`];
    lines.push(`${indent}instructions: ${a.instructions.split('\n').length} line${a.instructions.split('\n').length === 1 ? '' : 's'}`);
    return lines;
  }
  if (i.kind === 'suite') {
    const s = i.localModel!;
    return [
      `${indent}${s.status}, ${s.iterations} iteration${s.iterations === 1 ? '' : 's'} per scenario, ${plural(s.scenarios.length, 'scenario')}, criteria ${safeText(criteriaText(s.criteria))}`,
    ];
  }
  const w = i.localModel!;
  return [`${indent}${safeText(w.url)}: ${safeText(w.events.join(', '))}`];
}

/** The plan as text for a terminal (or a log): one block per resource that is not unchanged. */
export function renderPlan(plan: Plan, chalk: ChalkInstance, opts: { verbose?: boolean } = {}): string {
  const lines: string[] = [];
  const shown = plan.items.filter((i) => i.action !== 'unchanged' && i.action !== 'forget');
  const counts = countPlan(plan);
  if (shown.length === 0) {
    lines.push(
      `No changes. The files, the last sync and the platform agree for profile "${safeText(plan.profile)}" (${plural(counts.unchanged, 'resource')}).`,
    );
  } else {
    lines.push(`Plan for profile "${safeText(plan.profile)}":`, '');
    for (const i of shown) {
      const c = colourFor(chalk, i.action);
      const head = `${c(`${SYMBOL[i.action].padStart(3)} ${LABEL[i.action].padEnd(9)}`)} ${safeText(title(i))}`;
      lines.push(i.reason ? `${head}: ${safeText(i.reason)}` : head);
      const indent = '      ';
      if (i.action === 'create') lines.push(...createLines(i, chalk, indent));
      else if (i.action !== 'delete') for (const f of i.changes) lines.push(...fieldLines(i, f, chalk, indent));
    }
    lines.push('', summaryLine(counts));
  }
  if (opts.verbose !== false && plan.untracked.length) {
    lines.push('');
    for (const u of plan.untracked)
      lines.push(
        chalk.dim(
          `  (on the platform, not in the files: ${u.kind} "${safeText(u.name)}" (${safeText(u.id)}) of agent ${safeText(u.agentKey)}; \`vap pull --agent ${safeText(u.agentKey)}\` brings it)`,
        ),
      );
  }
  return `${lines.join('\n')}\n`;
}

/** The plan for machines. */
export function planJson(plan: Plan, hasChanges: boolean): unknown {
  return {
    profile: plan.profile,
    changes: hasChanges,
    summary: countPlan(plan),
    resources: plan.items
      .filter((i) => i.action !== 'forget')
      .map((i) => ({
        kind: i.kind,
        key: i.key,
        name: i.name,
        file: i.file,
        action: i.action,
        id: i.id ?? null,
        ...(i.kind === 'agent' && i.fromVersion !== undefined ? { version: i.fromVersion } : {}),
        changes: i.changes.map((f) => ({
          field: f,
          platform: fieldOf(i.remoteModel, f) ?? null,
          files: fieldOf(i.localModel, f) ?? null,
        })),
        drift: i.drift,
        reason: i.reason ?? null,
        ...(i.action === 'delete' ? { needsPrune: Boolean(i.needsPrune) } : {}),
        ...(i.kind === 'suite' && i.scenarios ? { scenarios: { add: i.scenarios.add.map((s) => s.name), notApplicable: i.scenarios.stale } } : {}),
      })),
    untracked: plan.untracked,
  };
}
