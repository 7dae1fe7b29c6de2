import type { Readable, Writable } from 'node:stream';
import { serializeMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/** The largest message read (one line, in bytes): the SDK's own stdio limit. */
export const MAX_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/** How much of an oversized line's start and end is kept to find the request's id in. */
const ENDS_BYTES = 1024;

/**
 * Newline-delimited JSON-RPC, read as the SDK's StdioServerTransport reads it, except on errors: the SDK closes the connection on an oversized line
 * and drops a malformed one unanswered; here each gets the JSON-RPC error the protocol allows and the next line is read as usual.
 * An oversized line is skipped as it arrives (never held whole) and answered with the id its ends show (idOfEnds).
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The pieces of the line read so far, and their length in bytes. */
  private parts: Buffer[] = [];
  private size = 0;
  /** Set while the rest of an oversized line is skipped: its first and last bytes. */
  private over: { head: Buffer; tail: Buffer } | undefined;
  private started = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly maxBytes = MAX_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    if (this.started) throw new Error('LineTransport already started');
    this.started = true;
    this.input.on('data', this.ondata);
    this.input.on('error', this.oninputerror);
  }

  async close(): Promise<void> {
    this.input.off('data', this.ondata);
    this.input.off('error', this.oninputerror);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.parts = [];
    this.size = 0;
    this.over = undefined;
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(serializeMessage(message));
  }

  private write(line: string): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(line)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  private readonly oninputerror = (error: Error) => this.onerror?.(error);

  private readonly ondata = (chunk: Buffer) => {
    let from = 0;
    while (from < chunk.length) {
      const nl = chunk.indexOf(10, from);
      const end = nl === -1 ? chunk.length : nl;
      if (end > from) this.take(chunk.subarray(from, end));
      if (nl === -1) return;
      this.endLine();
      from = nl + 1;
    }
  };

  private take(piece: Buffer): void {
    if (this.over) {
      this.over.tail = lastBytes([this.over.tail, piece], ENDS_BYTES);
    } else if (this.size + piece.length > this.maxBytes) {
      this.parts.push(piece);
      this.over = { head: firstBytes(this.parts, ENDS_BYTES), tail: lastBytes(this.parts, ENDS_BYTES) };
      this.parts = [];
    } else {
      this.parts.push(piece);
    }
    this.size += piece.length;
  }

  private endLine(): void {
    const { parts, size, over } = this;
    this.parts = [];
    this.size = 0;
    this.over = undefined;
    if (over) {
      const message = `Invalid Request: the message is ${size} bytes, over vap mcp's limit of ${this.maxBytes} bytes for one message; it was skipped`;
      return this.reject(idOfEnds(over.head.toString('utf8'), over.tail.toString('utf8')), ErrorCode.InvalidRequest, message, { size, limit: this.maxBytes });
    }
    let line = (parts.length === 1 ? parts[0]! : Buffer.concat(parts, size)).toString('utf8');
    if (line.endsWith('\r')) line = line.slice(0, -1);
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      if (line.trim() === '') return;
      return this.reject(null, ErrorCode.ParseError, 'Parse error: the line is not JSON (vap mcp reads one JSON-RPC message per line)');
    }
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success)
      return this.reject(
        replyId(json),
        ErrorCode.InvalidRequest,
        'Invalid Request: the line is JSON but not a JSON-RPC 2.0 message (a request, notification or response object)',
      );
    this.onmessage?.(parsed.data);
  }

  /** Answers a message that never reaches the server, and tells the server's onerror. */
  private reject(id: RequestId | null, code: number, message: string, data?: unknown): void {
    this.onerror?.(new Error(message));
    this.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } })}\n`).catch(() => undefined);
  }
}

/** The id to answer an invalid message with: a request's (it has a method and a string or number id), else null. */
export function replyId(json: unknown): RequestId | null {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return null;
  const { id, method } = json as { id?: unknown; method?: unknown };
  return typeof method === 'string' && (typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))) ? id : null;
}

// One JSON string, number or literal; and a member `"key": value` with such a value.
const STR = String.raw`"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"`;
const PRIM = String.raw`(?:${STR}|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)`;
const MEMBER = new RegExp(String.raw`\s*(${STR})\s*:\s*(${PRIM})\s*([,}])`, 'y');
/** The members with plain values that end the object, up to its closing brace at the end of the line. */
const LAST_MEMBERS = new RegExp(String.raw`${STR}\s*:\s*${PRIM}\s*(?:,\s*${STR}\s*:\s*${PRIM}\s*)*\}\s*$`);

/**
 * The id of an oversized request, read from the plain-valued members that open its line (`{"jsonrpc":"2.0","id":7,…`) or close it
 * (`…},"jsonrpc":"2.0","id":7}`), as clients write them, without parsing the rest. Only a request's id (a method among them) is given, else null.
 */
export function idOfEnds(head: string, tail: string): RequestId | null {
  const members = new Map<string, unknown>();
  const open = /^\s*\{/.exec(head);
  if (open) readMembers(head, open[0].length, members);
  const close = LAST_MEMBERS.exec(tail);
  if (close) readMembers(tail, close.index, members);
  return replyId(Object.fromEntries(members));
}

function readMembers(text: string, from: number, into: Map<string, unknown>): void {
  MEMBER.lastIndex = from;
  for (let m = MEMBER.exec(text); m; m = MEMBER.exec(text)) {
    const key = JSON.parse(m[1]!) as string;
    if (!into.has(key)) into.set(key, JSON.parse(m[2]!));
    if (m[3] === '}') return;
  }
}

/** The first `n` bytes of the pieces, copied (the chunks they come from are let go). */
function firstBytes(parts: Buffer[], n: number): Buffer {
  const out = Buffer.allocUnsafe(Math.min(n, lengthOf(parts)));
  let at = 0;
  for (let i = 0; i < parts.length && at < out.length; i++) at += parts[i]!.copy(out, at, 0, Math.min(parts[i]!.length, out.length - at));
  return out;
}

/** The last `n` bytes of the pieces, copied. */
function lastBytes(parts: Buffer[], n: number): Buffer {
  const out = Buffer.allocUnsafe(Math.min(n, lengthOf(parts)));
  let at = out.length;
  for (let i = parts.length - 1; i >= 0 && at > 0; i--) {
    const p = parts[i]!;
    const take = Math.min(at, p.length);
    at -= take;
    p.copy(out, at, p.length - take);
  }
  return out;
}

function lengthOf(parts: Buffer[]): number {
  let len = 0;
  for (const p of parts) len += p.length;
  return len;
}
