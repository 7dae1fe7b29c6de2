import type { Dispatcher as DispatcherType } from 'undici';

export type HttpAgent = DispatcherType;
export type HttpResponse = DispatcherType.ResponseData;

type Headers = Record<string, string | string[] | undefined>;

/** undici's parser of raw response headers, once undici is loaded (by createAgent). */
let parseHeaders: ((raw: Buffer[]) => Headers) | undefined;

/** An undici Agent; undici itself (src/vendor/undici.ts, its own chunk) is loaded on the first call. */
export async function createAgent(connectTimeoutMs: number): Promise<HttpAgent> {
  const vendor = await import('../vendor/undici.js');
  const { Agent } = vendor;
  parseHeaders = vendor.parseHeaders;
  // maxHeaderSize is Node's default, given so that undici need not load node:http to read it.
  return new Agent({ connect: { timeout: connectTimeoutMs }, keepAliveTimeout: 4_000, maxHeaderSize: 16 * 1024 });
}

/** A whole answer, its body as text. */
export interface TextResponse {
  statusCode: number;
  headers: Headers;
  text: string;
}

/** Why an answer could not be read: `afterHeaders` when its status and headers had arrived (then the body was cut off, or too slow). */
export interface DispatchError extends Error {
  afterHeaders?: { statusCode: number; headers: Headers };
}

/** What stops a request: an AbortSignal, or the emitter the client makes of one (see client.ts). */
export interface Stopper {
  readonly aborted: boolean;
  readonly reason?: unknown;
  once(event: 'abort', listener: () => void): unknown;
  removeListener(event: 'abort', listener: () => void): unknown;
}

/**
 * An answer read whole as text through undici's dispatch: what `request()` and `body.text()`
 * give (a UTF-8 BOM left out), without the stream and promises they make for each of the
 * thousands of answers of a plan (docs/performance.md).
 */
export function dispatchText(agent: HttpAgent, opts: DispatcherType.DispatchOptions, stop?: Stopper): Promise<TextResponse> {
  return new Promise((resolve, reject) => {
    let statusCode = 0;
    let headers: Headers | undefined;
    let chunks: Buffer[] = [];
    let length = 0;
    let abort: ((reason?: unknown) => void) | undefined;
    const onStop = () => abort?.(stop!.reason);
    const done = () => stop?.removeListener('abort', onStop);
    if (stop) {
      if (stop.aborted) {
        reject(stop.reason);
        return;
      }
      stop.once('abort', onStop);
    }
    agent.dispatch(opts, {
      onConnect(abortRequest: (reason?: unknown) => void) {
        abort = abortRequest;
        if (stop?.aborted) abortRequest(stop.reason);
      },
      onHeaders(status: number, raw: Buffer[] | string[] | null): boolean {
        // 1xx: informational, the answer is still to come.
        if (status < 200) return true;
        statusCode = status;
        headers = parseHeaders!((raw ?? []) as Buffer[]);
        return true;
      },
      onData(chunk: Buffer): boolean {
        chunks.push(chunk);
        length += chunk.length;
        return true;
      },
      onComplete() {
        done();
        const buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
        chunks = [];
        const start = buf.length > 2 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
        resolve({ statusCode, headers: headers ?? {}, text: buf.toString('utf8', start) });
      },
      onError(err: Error) {
        done();
        if (err !== null && typeof err === 'object' && headers !== undefined) (err as DispatchError).afterHeaders = { statusCode, headers };
        reject(err);
      },
      onUpgrade() {
        // never asked for
      },
    } as unknown as DispatcherType.DispatchHandler);
  });
}
