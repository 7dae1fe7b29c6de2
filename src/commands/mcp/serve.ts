import type { Context, GlobalOptions } from '../../context.js';

/** The options of `vap mcp` (the server itself). */
export interface ServeOptions {
  allowWrites?: boolean;
  http?: number;
  maxResult?: number;
}

/**
 * `vap mcp`: the API client is made first (no key is exit 4 before anything is served), with
 * the active profile, --profile and the environment as every command; then the server,
 * over stdio or Streamable HTTP, until the client goes away or Ctrl-C.
 */
export async function run(opts: ServeOptions & GlobalOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const { DEFAULT_MAX_CHARS } = await import('../../mcp/result.js');
  const server = { ctx, api, allowWrites: Boolean(opts.allowWrites), maxChars: opts.maxResult ?? DEFAULT_MAX_CHARS };
  if (opts.http !== undefined) {
    const { serveHttp } = await import('../../mcp/http.js');
    await serveHttp({ ...server, port: opts.http, token: ctx.env.VAP_MCP_TOKEN || undefined });
    return;
  }
  const { serveStdio } = await import('../../mcp/server.js');
  const creds = await ctx.credentials();
  ctx.io.stderr.write(
    `vap mcp: serving the Model Context Protocol on stdin and stdout (profile ${creds.profile}, ${server.allowWrites ? 'writes allowed' : 'read-only'}).\n`,
  );
  await serveStdio(server);
}
