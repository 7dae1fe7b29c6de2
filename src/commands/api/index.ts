import { Argument } from 'commander';
import { readFile } from 'node:fs/promises';
import type { ApiResponse } from '../../api/types.js';
import type { Context, GlobalOptions } from '../../context.js';
import { UsageError } from '../../errors.js';
import { tsvField } from '../../ui/format.js';
import { BlockWriter } from '../../ui/block-writer.js';
import { safeText } from '../../ui/safe-text.js';
import { action } from '../action.js';
import type { RegisterGroup } from '../types.js';
import { nextPageQuery, pageItems, pathWithQuery, shellWord } from './paging.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

interface ApiOptions {
  data?: string;
  paginate?: boolean;
  include?: boolean;
}

export const register: RegisterGroup = (group, makeContext) => {
  group
    .addArgument(new Argument('<method>', 'HTTP method').choices([...METHODS, ...METHODS.map((m) => m.toLowerCase())]))
    .argument('<path>', 'path below the base URL, e.g. /api/v1/agents?search=desk')
    .option('-d, --data <json>', 'request body: JSON text, @file to read a file, or @- for stdin')
    .option('--paginate', 'follow every page of a listing (page numbers or nextCursor) and print every item, as they arrive')
    .option('-i, --include', "print the status line and the response headers (and a listing's pagination) on stderr")
    .addHelpText(
      'after',
      `
The auth header is chosen by path (Bearer for agents, evals, webhooks and events;
x-api-key for contact lists, import jobs, calls, campaigns and analytics), and the
envelope is unwrapped whatever its shape: stdout gets the envelope's data, as JSON
(\`{ "agents": [...] }\` for /api/v1/agents, the array for /api/v1/contact-lists).
--query applies to that data.

A paged listing says on stderr how to get the next page. --paginate follows every
page and prints one JSON array of every item (-o ndjson: one item per line), written
as the pages arrive; with --query the expression applies to each page, as it would
without --paginate, and the results are joined.

Examples:
  $ vap api GET /api/v1/voices
  $ vap api POST /api/v1/agents --data '{"name":"Desk","instructions":"Hi","engine":"realtime"}'
  $ vap api PATCH /api/v1/contact-lists/cl_123/schema --data @schema.json
  $ vap api GET /api/v1/agents --query 'agents[].name'
  $ vap api GET /api/v1/agents --paginate --query 'agents[].name'
  $ vap api GET '/api/v1/calls?status=failed' --paginate -o ndjson > failed.ndjson
  $ vap api GET /api/v1/agents --include`,
    )
    .action(action<ApiOptions>(makeContext, (args, opts, ctx) => run(args[0]!.toUpperCase() as Method, args[1]!, opts, ctx)));
};

async function readBody(data: string, ctx: Context): Promise<unknown> {
  let text = data;
  if (data === '@-') {
    text = '';
    for await (const chunk of ctx.io.stdin) text += chunk.toString();
  } else if (data.startsWith('@')) {
    try {
      text = await readFile(data.slice(1), 'utf8');
    } catch (err) {
      throw new UsageError(
        `cannot read ${data.slice(1)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
        'check the path given to --data @file',
      );
    }
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--data is not valid JSON: ${(err as Error).message}`, 'pass a JSON document, or @file');
  }
}

export async function run(method: Method, path: string, opts: ApiOptions, ctx: Context): Promise<void> {
  if (!path.startsWith('/')) throw new UsageError(`the path must start with "/" (got "${path}")`, 'for example /api/v1/agents');
  if (opts.paginate && method !== 'GET')
    throw new UsageError(`--paginate follows the pages of a listing, which is read with GET (not ${method})`, 'drop --paginate, or use GET');
  const body = opts.data === undefined ? undefined : await readBody(opts.data, ctx);
  const [{ authSchemeFor }, { ApiError }] = await Promise.all([import('../../spec/groups.js'), import('../../api/errors.js')]);
  const url = new URL(path, 'http://placeholder');
  const api = await ctx.api();
  const send = async (query: URLSearchParams): Promise<ApiResponse<unknown>> => {
    try {
      const res = await api.request<unknown>({
        method,
        path: url.pathname,
        query: Object.fromEntries(query),
        auth: authSchemeFor(url.pathname),
        body,
        signal: ctx.signal,
      });
      if (opts.include) printHead(ctx, res.status, res.headers, res.pagination);
      return res;
    } catch (err) {
      if (opts.include && err instanceof ApiError) printHead(ctx, err.status, err.headers, undefined);
      throw err;
    }
  };

  if (!opts.paginate) {
    const res = await send(url.searchParams);
    await ctx.out.data(res.data);
    const next = nextPageQuery(res.pagination, url.searchParams, pageItems(res.data)?.length);
    if (next)
      ctx.info(safeText(`more: the next page is \`${command(ctx.globals, method, pathWithQuery(url.pathname, next))}\`; --paginate follows every page`));
    return;
  }

  const out = new ItemWriter(ctx);
  try {
    const seen = new Set<string>();
    let query: URLSearchParams | undefined = url.searchParams;
    while (query) {
      const res = await send(query);
      const items = pageItems(res.data);
      // Not a listing (or a listing of several arrays): printed as it is, once.
      if (!items) {
        await out.push(ctx.globals.query ? await applyQuery(res.data, ctx.globals.query) : res.data);
        break;
      }
      if (ctx.globals.query) {
        // The expression applies to the page as the server sent it (the same as without --paginate).
        const r = await applyQuery(res.data, ctx.globals.query);
        if (Array.isArray(r)) for (const v of r) await out.push(v);
        else if (r !== null) await out.push(r);
      } else {
        for (const item of items) await out.push(item);
      }
      query = nextPageQuery(res.pagination, query, items.length);
      if (query) {
        // A server that hands back the same cursor (or page) again would be followed forever.
        const key = query.toString();
        if (seen.has(key))
          throw new UsageError(
            `the server sent the same next page twice (${pathWithQuery(url.pathname, query)}); stopped following it`,
            'follow the pages by hand, with ?page= or ?cursor=',
          );
        seen.add(key);
      }
    }
  } catch (err) {
    // The items of the pages read so far are written, as they would have been one by one.
    await out.flush();
    throw err;
  }
  await out.end();
}

async function applyQuery(value: unknown, expression: string): Promise<unknown> {
  const { applyQuery } = await import('../../ui/query.js');
  return applyQuery(value, expression);
}

/** The command that reads another page, with the global flags that pick the server. */
function command(g: GlobalOptions, method: Method, path: string): string {
  const words = ['vap', ...(g.profile ? ['--profile', g.profile] : []), ...(g.baseUrl ? ['--base-url', g.baseUrl] : []), 'api', method, path];
  return words.map(shellWord).join(' ');
}

/** `--include`: the status line and the headers on stderr (they are the server's text: shown safe), then a listing's pagination. */
function printHead(
  ctx: Context,
  status: number,
  headers: Record<string, string | string[] | undefined> | undefined,
  pagination: ApiResponse<unknown>['pagination'],
): void {
  const lines = [`HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? ''}`.trimEnd()];
  for (const [name, value] of Object.entries(headers ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) if (v !== undefined) lines.push(`${name}: ${v}`);
  }
  if (pagination) lines.push(`pagination: ${JSON.stringify(pagination)}`);
  ctx.io.stderr.write(`${lines.map((l) => safeText(l)).join('\n')}\n\n`);
}

/** Reason phrases of the statuses this API answers with. */
const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/**
 * `--paginate`'s output, written as pages arrive, in blocks (src/ui/block-writer.ts: with
 * back-pressure, so a slow reader never makes pages pile up): one JSON array, NDJSON lines
 * (`-o ndjson`), TSV lines (`-o tsv`), or ids (`-q`).
 */
class ItemWriter {
  private count = 0;
  private readonly out: BlockWriter;
  constructor(private readonly ctx: Context) {
    this.out = new BlockWriter(ctx.io.stdoutText ?? ctx.io.stdout, { signal: ctx.signal });
  }

  private get format(): 'json' | 'ndjson' | 'tsv' | 'ids' {
    const g = this.ctx.globals;
    if (g.quiet) return 'ids';
    const f = g.json ? 'json' : g.output;
    return f === 'ndjson' || f === 'tsv' ? f : 'json';
  }

  async push(v: unknown): Promise<void> {
    switch (this.format) {
      case 'ids': {
        const id = (v as { id?: unknown } | null)?.id;
        if (id !== undefined && id !== null) await this.out.write(`${tsvField(id)}\n`);
        break;
      }
      case 'ndjson':
        await this.out.write(`${JSON.stringify(v)}\n`);
        break;
      case 'tsv':
        await this.out.write(`${Array.isArray(v) ? v.map(tsvField).join('\t') : tsvField(v)}\n`);
        break;
      case 'json':
        await this.out.write(`${this.count === 0 ? '[\n' : ',\n'}${JSON.stringify(v, null, 2).replace(/^/gm, '  ')}`);
        break;
    }
    this.count++;
  }

  async end(): Promise<void> {
    if (this.format === 'json') this.out.write(this.count === 0 ? '[]\n' : '\n]\n');
    await this.out.end();
  }

  /** What is held, written (a listing cut short: no closing bracket). */
  async flush(): Promise<void> {
    await this.out.end();
  }
}
