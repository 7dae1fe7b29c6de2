/** One page of a listing, as every list endpoint function returns it. */
export interface Page<T> {
  items: T[];
  /** True when the server says another page follows. */
  hasMore: boolean;
  total?: number;
}

export interface PageRequest {
  /** 1-based page number. */
  page: number;
  pageSize: number;
  /** Opaque cursor from the previous page, for cursor-paged listings. */
  cursor?: string;
}

export interface PaginateOptions {
  /** Total number of items wanted; undefined with `all`. */
  limit?: number;
  /** First page to read (1-based). */
  startPage?: number;
  /** Follow every page. */
  all?: boolean;
  /** Largest page the endpoint accepts. */
  maxPageSize: number;
}

export type FetchPage<T> = (req: PageRequest) => Promise<Page<T> & { nextCursor?: string | null }>;

/**
 * Streams a listing page by page: items are yielded as each page arrives, so
 * `--all` over any number of pages keeps memory flat.
 */
export async function* paginate<T>(fetchPage: FetchPage<T>, opts: PaginateOptions): AsyncGenerator<T> {
  const wanted = opts.all ? Infinity : (opts.limit ?? opts.maxPageSize);
  const pageSize = opts.all ? opts.maxPageSize : Math.max(1, Math.min(opts.maxPageSize, wanted));
  let page = opts.startPage ?? 1;
  let cursor: string | undefined;
  let yielded = 0;
  while (yielded < wanted) {
    const res = await fetchPage({ page, pageSize, cursor });
    for (const item of res.items) {
      if (yielded >= wanted) return;
      yield item;
      yielded++;
    }
    if (!res.hasMore || res.items.length === 0) return;
    page++;
    cursor = res.nextCursor ?? undefined;
  }
}

/** hasMore for page-numbered listings that report `totalPages` or `total`. */
export function hasMoreByPages(page: number, pageSize: number, got: number, p?: { totalPages?: number; total?: number }): boolean {
  if (p?.totalPages !== undefined) return page < p.totalPages;
  if (p?.total !== undefined) return page * pageSize < p.total;
  return got >= pageSize;
}
