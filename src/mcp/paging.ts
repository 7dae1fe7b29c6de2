import { z } from 'zod';
import type { Page } from '../api/paginate.js';
import { fitItems, jsonSize, type ToolOutput } from './result.js';
import { DATA_NOTICE, neutralise, Refusal } from './safety.js';

/**
 * Listings page with the protocol's cursors (`limit` in, `nextCursor` out, passed back as `cursor`).
 * A cursor is opaque base64url JSON holding the tool, the position and the filters, so that it continues the same listing.
 * The API's pages are read as they come and the answer cut to the stated size, the cursor then pointing just after the last item shown.
 */

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

/** The input fields every listing has. */
export const listInput = {
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_LIMIT)
    .optional()
    .describe(`How many items at most (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}); fewer when they would exceed the size results are cut to.`),
  cursor: z
    .string()
    .optional()
    .describe(
      'The nextCursor of the previous call, to read the next items of the same listing (it carries the filters: pass it with the same filters, or alone).',
    ),
};

export interface Position {
  /** Offset into the listing (page-numbered, offset and whole-array listings). */
  o?: number;
  /** The API's cursor of the page to read (cursor listings), and how many of that page were shown already. */
  c?: string;
  s?: number;
}

interface CursorBody extends Position {
  t: string;
  f: Record<string, unknown>;
}

/**
 * The position and filters of a call: from its cursor when it has one (a filter given with
 * a cursor must be the cursor's), else the start and the call's own filters.
 */
export function openCursor(tool: string, cursor: string | undefined, filters: Record<string, unknown>): { pos: Position; filters: Record<string, unknown> } {
  const given = defined(filters);
  if (cursor === undefined) return { pos: { o: 0 }, filters: given };
  let body: CursorBody;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as CursorBody;
    if (typeof body !== 'object' || body === null || typeof body.t !== 'string' || typeof body.f !== 'object') throw new Error('shape');
  } catch {
    throw new Refusal(
      `${tool}: the cursor is not one this server made; pass the nextCursor of a previous ${tool} call unchanged, or leave cursor out to start from the beginning.`,
    );
  }
  if (body.t !== tool) throw new Refusal(`${tool}: that cursor belongs to ${body.t}; pass it to ${body.t}, or leave cursor out.`);
  for (const [k, v] of Object.entries(given)) {
    if (JSON.stringify(body.f[k]) !== JSON.stringify(v)) {
      throw new Refusal(
        `${tool}: the cursor continues a listing with ${k} ${body.f[k] === undefined ? 'not set' : `= ${JSON.stringify(body.f[k])}`}; pass the cursor with the same filters (or alone), or leave cursor out to start a new listing.`,
      );
    }
  }
  const pos: Position = {};
  if (typeof body.o === 'number' && Number.isInteger(body.o) && body.o >= 0) pos.o = body.o;
  if (typeof body.c === 'string') pos.c = body.c;
  if (typeof body.s === 'number' && Number.isInteger(body.s) && body.s >= 0) pos.s = body.s;
  return { pos, filters: body.f };
}

export function makeCursor(tool: string, pos: Position, filters: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify({ t: tool, ...pos, f: defined(filters) }), 'utf8').toString('base64url');
}

function defined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/** Items `offset .. offset+count` of a page-numbered listing, read page by page (pages of `pageSize`); `more` when items follow them. */
export async function readRange<T>(
  fetchPage: (page: number, pageSize: number) => Promise<Page<T>>,
  offset: number,
  count: number,
  pageSize: number,
): Promise<{ items: T[]; more: boolean; total?: number }> {
  const items: T[] = [];
  let page = Math.floor(offset / pageSize) + 1;
  let skip = offset % pageSize;
  for (;;) {
    const p = await fetchPage(page, pageSize);
    const fresh = p.items.slice(skip);
    skip = 0;
    const room = count - items.length;
    items.push(...fresh.slice(0, room));
    if (fresh.length > room) return { items, more: true, total: p.total };
    if (!p.hasMore || p.items.length === 0) return { items, more: false, total: p.total };
    if (items.length >= count) return { items, more: true, total: p.total };
    page++;
  }
}

export interface ListSpec {
  tool: string;
  /** The field of `data` that holds the items (`agents`, `calls`). */
  key: string;
  filters: Record<string, unknown>;
  /** Other fields of `data` (a listing's summary counts). */
  extra?: Record<string, unknown>;
  /** The fields of each item a listing gives (the columns of the verb's table); the whole item without. */
  fields?: readonly string[];
}

/**
 * A listing's output, and `shorten` for one over the stated size: as many items as fit, the cursor after the last one shown and a note.
 * The envelope calls `shorten` only then, so most listings are measured once. Items are neutralised once, here.
 */
export function listOutput(spec: ListSpec, items: readonly unknown[], more: boolean, next: (shown: number) => Position, total?: number): ToolOutput {
  const safe = items.map((i) => (spec.fields ? pick(i, spec.fields) : neutralise(i)));
  const extra = neutralise(spec.extra ?? {}) as Record<string, unknown>;
  const rest = `the rest follows: call ${spec.tool} again with cursor = nextCursor`;
  const output = (shown: number): ToolOutput => {
    const out: ToolOutput = {
      data: { ...extra, [spec.key]: shown < safe.length ? safe.slice(0, shown) : safe, ...(total !== undefined ? { total } : {}) },
      neutralised: true,
    };
    if (shown < items.length || more) out.nextCursor = makeCursor(spec.tool, next(shown), spec.filters);
    if (shown < items.length) out.cut = { shown, of: items.length, rest };
    return out;
  };
  return {
    ...output(safe.length),
    shorten: (maxChars) => {
      const base = {
        dataNotice: DATA_NOTICE,
        data: { ...extra, [spec.key]: [] as unknown[], total },
        nextCursor: 'x'.repeat(120),
        cut: { limitChars: maxChars, shown: items.length, of: items.length, rest },
      };
      return output(fitItems(safe, maxChars - jsonSize(base)));
    },
  };
}

/** The fields of an item, neutralised (the keys are vap's own names; only the values are the platform's). */
function pick(item: unknown, fields: readonly string[]): unknown {
  if (item === null || typeof item !== 'object') return neutralise(item);
  const o = item as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const f of fields) if (o[f] !== undefined) out[f] = neutralise(o[f]);
  return out;
}

/** The limit of a call. */
export const limitOf = (limit: number | undefined) => limit ?? DEFAULT_LIMIT;
