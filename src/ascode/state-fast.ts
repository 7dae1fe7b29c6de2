import { idProblem } from '../api/path.js';
import { canonicalJson } from './model.js';
import { slugProblem } from './paths.js';

/**
 * A fast path for the state file's bulk: its agents, suites and webhooks entries (thousands
 * of them) checked and written by hand. The references are state.ts's zod schema and
 * model.ts's canonicalJson; property tests hold each hand version to its reference.
 */

const BULK = ['agents', 'suites', 'webhooks'] as const;
const HASH = /^[0-9a-f]{16}$/;
const ENTRY_KEYS = new Set(['id', 'hash', 'fields', 'version', 'file']);

/** One entry of agents, suites or webhooks, checked by hand: exactly what EntrySchema accepts, or false. */
function entryConforms(e: unknown): boolean {
  if (e === null || typeof e !== 'object' || Array.isArray(e)) return false;
  const o = e as Record<string, unknown>;
  for (const k in o) if (!ENTRY_KEYS.has(k)) return false;
  if (typeof o.id !== 'string' || o.id.length > 200 || idProblem(o.id) !== undefined) return false;
  if (typeof o.hash !== 'string' || (o.hash !== '' && !HASH.test(o.hash))) return false;
  if (o.version !== undefined && !(typeof o.version === 'number' && Number.isInteger(o.version) && o.version >= 0)) return false;
  if (o.file !== undefined && !(typeof o.file === 'string' && HASH.test(o.file))) return false;
  const f = o.fields;
  if (f === null || typeof f !== 'object' || Array.isArray(f)) return false;
  for (const k in f as Record<string, unknown>)
    if (k.length > 40 || typeof (f as Record<string, unknown>)[k] !== 'string' || !HASH.test((f as Record<string, string>)[k]!)) return false;
  return true;
}

/** Whether the bulk sections conform (then only the rest needs the schema). */
export function bulkConforms(raw: Record<string, unknown>): boolean {
  for (const section of BULK) {
    const sec = raw[section];
    if (sec === undefined) continue;
    if (sec === null || typeof sec !== 'object' || Array.isArray(sec)) return false;
    for (const key in sec as Record<string, unknown>) {
      if (!Object.hasOwn(sec, key)) continue;
      const parts = section === 'suites' ? key.split('/') : [key];
      const keyOk = (section !== 'suites' || parts.length === 2) && parts.every((p) => slugProblem(p) === undefined);
      if (!keyOk || !entryConforms((sec as Record<string, unknown>)[key])) return false;
    }
  }
  return true;
}

/**
 * An entry of agents, suites or webhooks as canonicalJson writes it, written out field by
 * field (a state of 2,000 agents has 4,000 of them, and writing it ends every push); an
 * entry of any other shape goes through canonicalJson. A property test holds the two equal.
 */
export function entryJson(v: unknown): string {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return canonicalJson(v);
  const e = v as Record<string, unknown>;
  for (const k in e) if (!ENTRY_KEYS.has(k) || !Object.hasOwn(e, k)) return canonicalJson(v);
  const { id, hash, fields, version, file } = e;
  if (typeof id !== 'string' || typeof hash !== 'string' || fields === null || typeof fields !== 'object' || Array.isArray(fields)) return canonicalJson(v);
  if ((version !== undefined && typeof version !== 'number') || (file !== undefined && typeof file !== 'string')) return canonicalJson(v);
  if (Object.getPrototypeOf(fields) !== Object.prototype && Object.getPrototypeOf(fields) !== null) return canonicalJson(v);
  const f = fields as Record<string, unknown>;
  const names = Object.keys(f).sort();
  let out = '{"fields":{';
  let first = true;
  for (const k of names) {
    const h = f[k];
    if (h === undefined) continue;
    if (typeof h !== 'string') return canonicalJson(v);
    out += `${first ? '' : ','}${JSON.stringify(k)}:${JSON.stringify(h)}`;
    first = false;
  }
  out += '}';
  if (file !== undefined) out += `,"file":${JSON.stringify(file)}`;
  out += `,"hash":${JSON.stringify(hash)},"id":${JSON.stringify(id)}`;
  if (version !== undefined) out += `,"version":${JSON.stringify(version)}`;
  return `${out}}`;
}
