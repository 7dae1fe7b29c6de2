import { badRequest } from '../errors.js';

/**
 * The `dateFrom` / `dateTo` query of campaign and run analytics: calendar days
 * (YYYY-MM-DD, UTC) on the call's createdAt, both ends included; either may be left
 * out. Anything else is a 400 naming the parameter.
 */

export interface DayRange {
  from: string | null;
  to: string | null;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

export function parseDay(value: unknown, name: string): string | null {
  if (value === undefined || value === '') return null;
  if (typeof value !== 'string') throw badRequest(`${name}: give it once, as a date YYYY-MM-DD`, [{ field: name, message: 'must be a date YYYY-MM-DD' }]);
  const m = DAY.exec(value);
  const ok =
    m !== null &&
    (() => {
      const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
      return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
    })();
  if (!ok) throw badRequest(`${name}: must be a date YYYY-MM-DD (got ${JSON.stringify(value)})`, [{ field: name, message: 'must be a date YYYY-MM-DD' }]);
  return value;
}

export function parseRange(query: Record<string, unknown>): DayRange {
  const from = parseDay(query.dateFrom, 'dateFrom');
  const to = parseDay(query.dateTo, 'dateTo');
  if (from && to && from > to) throw badRequest(`dateFrom (${from}) is after dateTo (${to})`, [{ field: 'dateFrom', message: 'is after dateTo' }]);
  return { from, to };
}

/** Whether an ISO timestamp falls on a day of the range (ISO strings compare as text on their first 10 characters). */
export function inRange(iso: string, r: DayRange): boolean {
  const day = iso.slice(0, 10);
  return (r.from === null || day >= r.from) && (r.to === null || day <= r.to);
}

export const isAllTime = (r: DayRange): boolean => r.from === null && r.to === null;
