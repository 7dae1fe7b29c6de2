import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures (document 1, part 5): HMAC-SHA256 over `<timestamp>.<body>`, sent as
 * `X-Service-Signature: t=…,v1=<hex>`. One pure module, so that the emulator signs and vap
 * verifies with the same code.
 */

export const SIGNATURE_HEADER = 'X-Service-Signature';
export const EVENT_ID_HEADER = 'X-Service-Event-Id';
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The hex signature of `<t>.<body>`. `body` is the exact bytes sent. */
export function computeSignature(secret: string, timestamp: number, body: string | Uint8Array): string {
  const mac = createHmac('sha256', secret);
  mac.update(`${timestamp}.`);
  mac.update(body);
  return mac.digest('hex');
}

/** The header value for a payload signed at `timestamp` (unix seconds). */
export function signatureHeader(secret: string, body: string | Uint8Array, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${computeSignature(secret, timestamp, body)}`;
}

export interface ParsedSignature {
  timestamp: number;
  /** Every v1 signature in the header (a sender may list several during a rotation). */
  signatures: string[];
}

/** Parses `t=...,v1=...`; undefined when the header is not of that form. */
export function parseSignatureHeader(header: string): ParsedSignature | undefined {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return undefined;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== undefined) return undefined;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-fA-F]{64}$/.test(value)) return undefined;
      signatures.push(value.toLowerCase());
    }
  }
  if (timestamp === undefined || signatures.length === 0) return undefined;
  return { timestamp, signatures };
}

export type VerifyResult =
  | { valid: true; timestamp: number }
  | { valid: false; reason: 'bad_header' | 'mismatch' | 'stale' | 'future'; message: string; timestamp?: number };

/**
 * Verifies a header against the exact body bytes: the format, then the signature
 * (constant-time compare), then the timestamp's age against `toleranceSeconds`.
 */
export function verifySignature(opts: {
  secret: string;
  header: string;
  body: string | Uint8Array;
  toleranceSeconds?: number;
  nowSeconds?: number;
}): VerifyResult {
  const parsed = parseSignatureHeader(opts.header);
  if (!parsed) {
    return { valid: false, reason: 'bad_header', message: 'the header is not of the form t=<unix seconds>,v1=<64 hex characters>' };
  }
  const expected = Buffer.from(computeSignature(opts.secret, parsed.timestamp, opts.body), 'hex');
  const match = parsed.signatures.some((s) => {
    const given = Buffer.from(s, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!match) {
    return {
      valid: false,
      reason: 'mismatch',
      timestamp: parsed.timestamp,
      message: 'the signature does not match the body and secret (check the secret, and that the body is byte-for-byte what was received)',
    };
  }
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = opts.nowSeconds ?? Math.floor(Date.now() / 1000);
  const age = now - parsed.timestamp;
  if (age > tolerance) {
    return { valid: false, reason: 'stale', timestamp: parsed.timestamp, message: `the timestamp is ${age} s old, more than the tolerance of ${tolerance} s` };
  }
  if (-age > tolerance) {
    return {
      valid: false,
      reason: 'future',
      timestamp: parsed.timestamp,
      message: `the timestamp is ${-age} s in the future, more than the tolerance of ${tolerance} s`,
    };
  }
  return { valid: true, timestamp: parsed.timestamp };
}
