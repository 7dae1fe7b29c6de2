import { badRequest, conflict, notFound, unprocessable } from '../../errors.js';
import type { Collection } from '../../store.js';
import type { ModuleEnv } from '../../types.js';
import { evalModelFor } from '../model.js';
import { fail, objectBody, onlyFields } from '../validate.js';
import { generateSources, type PastCall, type SourceRecord } from './data.js';
import { triageCall, type Triage } from './triage.js';

/**
 * Call imports of eval suites (document 1, "Imports"): seeded sources, candidate calls, imports,
 * batched triage on simulated time, scenarios from calls. State per organization:
 * `evalImportSources` (generated once, then kept) and `evalImports`.
 */

const SOURCES = 'evalImportSources';
const IMPORTS = 'evalImports';

export const TRIAGE_SIM_MS_PER_CALL = 1500;
export const BATCH_DEFAULT = 10;
export const BATCH_MAX = 50;
export const MAX_CALLS_PER_IMPORT = 500;

export interface ImportRecord {
  id: string;
  evalId: string;
  agentId: string;
  sourceType: 'campaign' | 'call_center';
  sourceId: string;
  label: string;
  status: 'pending' | 'triaging' | 'triaged';
  callIds: string[];
  triage: Record<string, Triage>;
  scenarioIds: Record<string, string>;
  createdAt: string;
  /** Creation order (ties of createdAt). */
  seq: number;
}

export interface CandidateQuery {
  sourceType: 'campaign' | 'call_center';
  sourceId: string;
  fromMs?: number;
  toMs?: number;
  minDuration?: number;
  direction?: 'inbound' | 'outbound';
  search?: string;
}

const models = new WeakMap<ModuleEnv, ImportModel>();

export function importModelFor(env: ModuleEnv): ImportModel {
  let m = models.get(env);
  if (!m) {
    m = new ImportModel(env);
    models.set(env, m);
  }
  return m;
}

export class ImportModel {
  /** One triage at a time per import (a second request waits for the first batch). */
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(private readonly env: ModuleEnv) {
    evalModelFor(env).onSuiteDeleted((orgId, suite) => {
      const c = this.imports(orgId);
      for (const [id, imp] of c) if (imp.evalId === suite.id) c.delete(id);
    });
  }

  private imports(orgId: string): Collection<ImportRecord> {
    return this.env.store.collection<ImportRecord>(orgId, IMPORTS);
  }

  /** The organization's sources, generated on first use and kept in the state. */
  sources(orgId: string): SourceRecord[] {
    const c = this.env.store.collection<SourceRecord>(orgId, SOURCES);
    if (c.size === 0) {
      for (const s of generateSources(this.env.options.seed, orgId, this.env.clock.nowMs())) c.set(s.id, s);
    }
    return [...c.values()];
  }

  findSource(orgId: string, sourceType: string, sourceId: string): SourceRecord {
    const s = this.sources(orgId).find((x) => x.id === sourceId && x.sourceType === sourceType);
    if (!s) throw notFound(sourceType === 'call_center' ? 'call center' : 'campaign', sourceId);
    return s;
  }

  suite(orgId: string, agentId: string, evalId: string) {
    return evalModelFor(this.env).findSuite(orgId, agentId, evalId);
  }

  /** Call ids already imported into a suite. */
  importedCallIds(orgId: string, evalId: string): Set<string> {
    const ids = new Set<string>();
    for (const imp of this.imports(orgId).values()) if (imp.evalId === evalId) for (const id of imp.callIds) ids.add(id);
    return ids;
  }

  candidates(orgId: string, evalId: string, q: CandidateQuery): PastCall[] {
    const source = this.findSource(orgId, q.sourceType, q.sourceId);
    const imported = this.importedCallIds(orgId, evalId);
    const needle = q.search?.toLowerCase();
    return source.calls
      .filter((c) => {
        if (imported.has(c.id)) return false;
        const t = Date.parse(c.startedAt);
        if (q.fromMs !== undefined && t < q.fromMs) return false;
        if (q.toMs !== undefined && t > q.toMs) return false;
        if (q.minDuration !== undefined && c.durationSeconds < q.minDuration) return false;
        if (q.direction && c.direction !== q.direction) return false;
        if (needle) {
          const hay = `${c.callerIntent}\n${c.sentiment}\n${c.transcript.map((x) => x.text).join('\n')}`.toLowerCase();
          if (!hay.includes(needle)) return false;
        }
        return true;
      })
      .sort((a, b) => (a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : a.id < b.id ? -1 : 1));
  }

  list(orgId: string, agentId: string, evalId: string): ImportRecord[] {
    const suite = this.suite(orgId, agentId, evalId);
    return this.imports(orgId)
      .ordered({ eval: (i) => i.evalId })
      .page({ facet: 'eval', values: [suite.id] }, 0, Number.MAX_SAFE_INTEGER, true)
      .sort((a, b) => b.seq - a.seq);
  }

  find(orgId: string, agentId: string, evalId: string, importId: string): ImportRecord {
    const suite = this.suite(orgId, agentId, evalId);
    const imp = this.imports(orgId).get(importId);
    if (!imp || imp.evalId !== suite.id) throw notFound('import', importId);
    return imp;
  }

  create(orgId: string, agentId: string, evalId: string, raw: unknown): ImportRecord {
    const suite = this.suite(orgId, agentId, evalId);
    const body = objectBody(raw);
    onlyFields(body, ['sourceType', 'sourceId', 'callIds']);
    const sourceType = body.sourceType;
    if (sourceType !== 'campaign' && sourceType !== 'call_center') fail('sourceType', 'must be one of: campaign, call_center');
    if (typeof body.sourceId !== 'string' || !body.sourceId.trim()) fail('sourceId', 'is required (a campaign or call center id)');
    const ids = body.callIds;
    if (!Array.isArray(ids) || ids.length === 0) fail('callIds', 'must be a non-empty array of call ids');
    if (ids.length > MAX_CALLS_PER_IMPORT) fail('callIds', `at most ${MAX_CALLS_PER_IMPORT} calls per import`);
    if (ids.some((x) => typeof x !== 'string' || !x)) fail('callIds', 'must contain only non-empty strings');
    const callIds = ids as string[];
    if (new Set(callIds).size !== callIds.length) fail('callIds', 'must not repeat an id');
    const source = this.findSource(orgId, sourceType, body.sourceId);
    const inSource = new Set(source.calls.map((c) => c.id));
    const foreign = callIds.filter((id) => !inSource.has(id));
    if (foreign.length > 0) {
      throw unprocessable(
        'calls_not_in_source',
        `${some(foreign)} ${foreign.length === 1 ? 'does' : 'do'} not belong to ${sourceType} ${source.id}; nothing was imported`,
        { callIds: foreign },
      );
    }
    const imported = this.importedCallIds(orgId, suite.id);
    const again = callIds.filter((id) => imported.has(id));
    if (again.length > 0) {
      throw conflict('calls_already_imported', `${some(again)} ${again.length === 1 ? 'is' : 'are'} already imported into this suite; nothing was imported`, {
        callIds: again,
      });
    }
    let seq = 0;
    for (const i of this.imports(orgId).values()) seq = Math.max(seq, i.seq);
    const rec: ImportRecord = {
      id: this.env.ids.next('imp'),
      evalId: suite.id,
      agentId,
      sourceType,
      sourceId: source.id,
      label: `${source.name} (${callIds.length} call${callIds.length === 1 ? '' : 's'})`,
      status: 'pending',
      callIds: [...callIds],
      triage: {},
      scenarioIds: {},
      createdAt: this.env.clock.iso(),
      seq: seq + 1,
    };
    this.imports(orgId).set(rec.id, rec);
    return rec;
  }

  /** Triages the next batch: takes 1.5 simulated s per call, then commits the whole batch. */
  async triage(
    orgId: string,
    agentId: string,
    evalId: string,
    importId: string,
    raw: unknown,
  ): Promise<{ imp: ImportRecord; processed: number; remaining: number }> {
    this.find(orgId, agentId, evalId, importId);
    const body = objectBody(raw);
    onlyFields(body, ['batchSize']);
    let batchSize = BATCH_DEFAULT;
    if (body.batchSize !== undefined) {
      const b = body.batchSize;
      if (typeof b !== 'number' || !Number.isInteger(b) || b < 1 || b > BATCH_MAX) fail('batchSize', `must be an integer from 1 to ${BATCH_MAX}`);
      batchSize = b;
    }
    const key = `${orgId}/${importId}`;
    const prev = this.locks.get(key) ?? Promise.resolve();
    const mine = prev.catch(() => undefined).then(() => this.triageBatch(orgId, agentId, evalId, importId, batchSize));
    this.locks.set(key, mine);
    try {
      return await mine;
    } finally {
      if (this.locks.get(key) === mine) this.locks.delete(key);
    }
  }

  private async triageBatch(orgId: string, agentId: string, evalId: string, importId: string, batchSize: number) {
    let imp = this.find(orgId, agentId, evalId, importId);
    const pending = imp.callIds.filter((id) => !imp.triage[id]);
    const batch = pending.slice(0, batchSize);
    if (batch.length === 0) return { imp, processed: 0, remaining: 0 };
    if (imp.status === 'pending') {
      imp.status = 'triaging';
      this.imports(orgId).touch(imp.id);
    }
    await this.env.clock.sleep(batch.length * TRIAGE_SIM_MS_PER_CALL);
    // The suite (and with it the import) may have been deleted meanwhile: then a 404.
    imp = this.find(orgId, agentId, evalId, importId);
    const source = this.findSource(orgId, imp.sourceType, imp.sourceId);
    const byId = new Map(source.calls.map((c) => [c.id, c]));
    for (const id of batch) {
      const call = byId.get(id);
      if (call) imp.triage[id] = triageCall(call);
    }
    const remaining = imp.callIds.filter((id) => !imp.triage[id]).length;
    imp.status = remaining === 0 ? 'triaged' : 'triaging';
    this.imports(orgId).touch(imp.id);
    return { imp, processed: batch.length, remaining };
  }

  triagedCalls(orgId: string, agentId: string, evalId: string, importId: string): Array<Record<string, unknown>> {
    const imp = this.find(orgId, agentId, evalId, importId);
    const source = this.findSource(orgId, imp.sourceType, imp.sourceId);
    const byId = new Map(source.calls.map((c) => [c.id, c]));
    return imp.callIds.map((id) => {
      const c = byId.get(id);
      const t = imp.triage[id];
      return {
        id,
        triageStatus: t ? 'triaged' : 'pending',
        triage: t ? { category: t.category, summary: t.summary, suggestedScenario: { ...t.suggestedScenario } } : null,
        scenarioId: this.liveScenarioId(orgId, imp, id),
        direction: c?.direction ?? null,
        durationSeconds: c?.durationSeconds ?? null,
        callerIntent: c?.callerIntent ?? null,
        sentiment: c?.sentiment ?? null,
      };
    });
  }

  /** The scenario made from a call, while that scenario exists. */
  private liveScenarioId(orgId: string, imp: ImportRecord, callId: string): string | null {
    const sid = imp.scenarioIds[callId];
    if (!sid) return null;
    return evalModelFor(this.env).scenarios(orgId).has(sid) ? sid : null;
  }

  createScenarios(orgId: string, agentId: string, evalId: string, importId: string, raw: unknown): { created: number; scenarioIds: string[]; skipped: number } {
    const imp = this.find(orgId, agentId, evalId, importId);
    const body = objectBody(raw);
    onlyFields(body, ['callIds']);
    const ids = body.callIds;
    if (!Array.isArray(ids) || ids.length === 0) fail('callIds', 'must be a non-empty array of triaged call ids');
    if (ids.some((x) => typeof x !== 'string' || !x)) fail('callIds', 'must contain only non-empty strings');
    const callIds = [...new Set(ids as string[])];
    const inImport = new Set(imp.callIds);
    const foreign = callIds.filter((id) => !inImport.has(id));
    if (foreign.length > 0)
      throw unprocessable('calls_not_in_import', `${some(foreign)} ${foreign.length === 1 ? 'is' : 'are'} not in import ${imp.id}; no scenario was created`, {
        callIds: foreign,
      });
    const untriaged = callIds.filter((id) => !imp.triage[id]);
    if (untriaged.length > 0) {
      throw conflict(
        'not_triaged',
        `${some(untriaged)} ${untriaged.length === 1 ? 'is' : 'are'} not triaged yet; triage the import first (no scenario was created)`,
        { callIds: untriaged },
      );
    }
    const evals = evalModelFor(this.env);
    const scenarioIds: string[] = [];
    let skipped = 0;
    for (const id of callIds) {
      if (this.liveScenarioId(orgId, imp, id)) {
        skipped++;
        continue;
      }
      const t = imp.triage[id]!;
      const sc = evals.addScenario(orgId, agentId, evalId, {
        name: t.suggestedScenario.name,
        persona: t.suggestedScenario.persona,
        goal: t.suggestedScenario.goal,
        category: t.category,
        isEnabled: true,
        isAutoGenerated: true,
        sourceCallId: id,
      });
      imp.scenarioIds[id] = sc.id;
      scenarioIds.push(sc.id);
    }
    this.imports(orgId).touch(imp.id);
    return { created: scenarioIds.length, scenarioIds, skipped };
  }
}

export function importView(i: ImportRecord): Record<string, unknown> {
  return {
    id: i.id,
    source: `${i.sourceType}:${i.sourceId}`,
    label: i.label,
    status: i.status,
    totalCalls: i.callIds.length,
    triagedCalls: Object.keys(i.triage).length,
    sourceType: i.sourceType,
    sourceId: i.sourceId,
    createdAt: i.createdAt,
  };
}

export function candidateView(c: PastCall): Record<string, unknown> {
  const first = c.transcript.find((t) => t.role === 'user')?.text ?? '';
  return {
    id: c.id,
    direction: c.direction,
    durationSeconds: c.durationSeconds,
    sentiment: c.sentiment,
    callerIntent: c.callerIntent,
    resolved: c.resolved,
    startedAt: c.startedAt,
    preview: first.length > 120 ? `${first.slice(0, 119)}…` : first,
  };
}

/** `from`/`to` (ISO date or timestamp); a date `to` includes that whole day. */
/** `call a`, `calls a, b, c` or `5 calls (a, b, c, …)`: the ids in the message, not only in details. */
function some(ids: string[]): string {
  if (ids.length === 1) return `call ${ids[0]}`;
  if (ids.length <= 3) return `calls ${ids.join(', ')}`;
  return `${ids.length} calls (${ids.slice(0, 3).join(', ')}, …)`;
}

/** A real calendar day first (Date.parse rolls 2026-02-31 over to March 3). */
function calendarDay(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= new Date(Date.UTC(y, mo, 0)).getUTCDate();
}

export function parseWhen(value: unknown, name: 'from' | 'to'): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') throw badRequest(`${name} must be an ISO date (YYYY-MM-DD) or timestamp`);
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const ms = Date.parse(dateOnly ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(ms) || !calendarDay(value))
    throw badRequest(`${name} must be an ISO date (YYYY-MM-DD) or timestamp`, [{ field: name, message: 'not an ISO date' }]);
  return dateOnly && name === 'to' ? ms + 86_400_000 - 1 : ms;
}
