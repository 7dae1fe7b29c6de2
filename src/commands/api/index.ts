import { Argument, Command } from 'commander';
import { readFile } from 'node:fs/promises';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { action } from '../action.js';
import type { RegisterGroup } from '../types.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

interface ApiOptions {
  data?: string;
  field?: string[];
}

export const register: RegisterGroup = (group, makeContext) => {
  group
    .addArgument(new Argument('<method>', 'HTTP method').choices([...METHODS, ...METHODS.map((m) => m.toLowerCase())]))
    .argument('<path>', 'path below the base URL, e.g. /api/v1/agents?search=desk')
    .option('-d, --data <json>', 'request body: JSON text, @file to read a file, or @- for stdin')
    .addHelpText(
      'after',
      `
The auth header is chosen by path (Bearer for agents, evals, webhooks and events;
x-api-key for contact lists, import jobs, calls, campaigns and analytics), and the
response's envelope is unwrapped: stdout gets the data, as JSON.

Examples:
  $ vap api GET /api/v1/voices
  $ vap api POST /api/v1/agents --data '{"name":"Desk","instructions":"Hi","engine":"realtime"}'
  $ vap api PATCH /api/v1/contact-lists/cl_123/schema --data @schema.json
  $ vap api GET /api/v1/agents --query 'agents[].name'`,
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
      throw new UsageError(`cannot read ${data.slice(1)}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'check the path given to --data @file');
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
  const body = opts.data === undefined ? undefined : await readBody(opts.data, ctx);
  const [{ authSchemeFor }] = await Promise.all([import('../../api/groups.js')]);
  const url = new URL(path, 'http://placeholder');
  const query = Object.fromEntries(url.searchParams);
  const api = await ctx.api();
  const res = await api.request({ method, path: url.pathname, query, auth: authSchemeFor(url.pathname), body, signal: ctx.signal });
  await ctx.out.data(res.pagination ? { data: res.data, pagination: res.pagination } : res.data);
}
