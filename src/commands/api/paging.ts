import { hasMoreByPages } from '../../api/paginate.js';
import type { Pagination } from '../../api/types.js';

/**
 * How `vap api` pages through a listing of either document: the next page's query (undefined on
 * the last page) is `page` + 1 while the server says more follow, or, for a listing that gives only
 * a cursor (webhook deliveries, agent versions), `cursor=<nextCursor>` as the spec says.
 */
export function nextPageQuery(p: Pagination | undefined, query: URLSearchParams, itemCount: number | undefined): URLSearchParams | undefined {
  if (!p) return undefined;
  const next = new URLSearchParams(query);
  if (p.page !== undefined) {
    const more = 'nextCursor' in p ? p.nextCursor != null && p.nextCursor !== '' : hasMoreByPages(p.page, p.limit ?? itemCount ?? 0, itemCount ?? 0, p);
    if (!more || itemCount === 0) return undefined;
    next.delete('cursor');
    next.set('page', String(p.page + 1));
    return next;
  }
  if (typeof p.nextCursor === 'string' && p.nextCursor !== '' && itemCount !== 0) {
    // The cursor says where the next page starts, in place of a page number or an offset.
    next.delete('page');
    next.delete('offset');
    next.set('cursor', p.nextCursor);
    return next;
  }
  return undefined;
}

/**
 * The items of one page: the data itself when it is an array (contact lists, import jobs),
 * else the one array it holds (`agents`, `calls`, `deliveries`, `versions`…). Undefined when
 * the data is not a listing (no array, or several).
 */
export function pageItems(data: unknown): unknown[] | undefined {
  if (Array.isArray(data)) return data;
  if (typeof data !== 'object' || data === null) return undefined;
  const arrays = Object.values(data as Record<string, unknown>).filter(Array.isArray);
  return arrays.length === 1 ? arrays[0] : undefined;
}

/** `/api/v1/agents?page=2`: a path with its query (none when empty). */
export function pathWithQuery(path: string, query: URLSearchParams): string {
  const q = query.toString();
  return q ? `${path}?${q}` : path;
}

/** A word quoted for a POSIX shell when it needs it (a path with `?` or `&` does). */
export function shellWord(w: string): string {
  return /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}
