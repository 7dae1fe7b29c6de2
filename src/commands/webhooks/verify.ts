import { readFile } from 'node:fs/promises';
import { Command } from 'commander';
import { DEFAULT_TOLERANCE_SECONDS, SIGNATURE_HEADER, verifySignature } from '../../spec/signature.js';
import type { Context } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { describeFsError } from '../../fs-errors.js';
import { action } from '../action.js';
import type { ContextFactory } from '../types.js';

interface VerifyOptions {
  secretFile?: string;
  secret?: string;
  header?: string;
  bodyFile?: string;
  tolerance?: string;
}

const REASONS: Record<string, string> = {
  bad_header: 'bad header format',
  mismatch: 'signature mismatch',
  stale: 'stale timestamp',
  future: 'timestamp in the future',
};

export function verifyCommand(makeContext: ContextFactory): Command {
  return new Command('verify')
    .description(`Check a delivery's ${SIGNATURE_HEADER} header against its body and the endpoint secret (offline; exit 0 valid, 1 invalid)`)
    .option('--secret-file <file>', 'read the endpoint secret from a file (surrounding whitespace ignored)')
    .option('--secret <secret>', 'the endpoint secret (prefer --secret-file: flags end up in shell history)')
    .option('--header <value>', `the ${SIGNATURE_HEADER} header: "t=<unix seconds>,v1=<hex>" (a leading "${SIGNATURE_HEADER}:" is accepted)`)
    .option('--body-file <file>', 'the raw body as received, byte for byte (default: stdin; - is stdin)')
    .option('--tolerance <seconds>', `largest accepted age of the timestamp (default ${DEFAULT_TOLERANCE_SECONDS})`)
    .addHelpText(
      'after',
      `
The signature is HMAC-SHA256 keyed with the whole secret (whsec_…) over "<t>.<body>",
hex-encoded. The body must be exactly the bytes received: re-serialised JSON will
not match. Invalid (exit 1) names the reason: bad header format, signature mismatch,
stale timestamp (older than --tolerance) or a timestamp in the future.

Examples:
  $ vap webhooks verify --secret-file ./vap-secret --header "t=1767225600,v1=5f2b…" --body-file body.json
  $ cat body.json | vap webhooks verify --secret-file ./vap-secret --header "$SIG" --tolerance 600
  $ vap webhooks verify --secret "$WHSEC" --header "$SIG" --body-file body.json --json`,
    )
    .action(action<VerifyOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
}

export async function run(opts: VerifyOptions, ctx: Context): Promise<void> {
  if (opts.secret !== undefined && opts.secretFile !== undefined)
    throw new UsageError('--secret and --secret-file cannot be used together', 'pass one of them');
  if (opts.secret === undefined && opts.secretFile === undefined)
    throw new UsageError('the secret is missing', 'pass --secret-file <file> (or --secret whsec_…)');
  if (opts.header === undefined || opts.header.trim() === '')
    throw new UsageError('the signature header is missing', `pass --header "t=…,v1=…" (the ${SIGNATURE_HEADER} header of the delivery)`);
  let tolerance = DEFAULT_TOLERANCE_SECONDS;
  if (opts.tolerance !== undefined) {
    if (!/^\d+$/.test(opts.tolerance.trim())) throw new UsageError(`--tolerance "${opts.tolerance}" is not a whole number of seconds`, 'pass --tolerance 300');
    tolerance = Number(opts.tolerance);
  }
  const secret = opts.secretFile !== undefined ? (await readInput('--secret-file', opts.secretFile)).toString('utf8').trim() : opts.secret!.trim();
  if (!secret) throw new UsageError(opts.secretFile !== undefined ? `the secret file ${opts.secretFile} is empty` : '--secret is empty');
  const header = opts.header.trim().replace(new RegExp(`^${SIGNATURE_HEADER}\\s*:\\s*`, 'i'), '');

  let body: Buffer;
  if (opts.bodyFile !== undefined && opts.bodyFile !== '-') {
    body = await readInput('--body-file', opts.bodyFile);
  } else {
    if (ctx.io.stdinIsTTY) throw new UsageError('no body to verify', 'pass --body-file <file>, or pipe the body on stdin');
    body = await readAll(ctx.io.stdin);
  }

  const nowSeconds = Math.floor(Date.now() / 1000);
  const result = verifySignature({ secret, header, body, toleranceSeconds: tolerance, nowSeconds });
  const g = ctx.globals;
  const signedAt = result.timestamp !== undefined ? new Date(result.timestamp * 1000).toISOString() : undefined;
  const ageSeconds = result.timestamp !== undefined ? nowSeconds - result.timestamp : undefined;
  if (result.valid) {
    await ctx.out.item(
      { valid: true, signedAt, ageSeconds },
      {
        fields: [
          { header: 'valid', value: (r) => r.valid },
          { header: 'signed at', value: (r) => r.signedAt },
          { header: 'age (s)', value: (r) => r.ageSeconds },
        ],
        id: (r) => r.valid,
      },
    );
    await ctx.success(`Valid signature: signed ${ageSeconds} s ago, within the tolerance of ${tolerance} s`);
    return;
  }
  if (g.json || g.output || g.query) {
    await ctx.out.item(
      { valid: false, reason: result.reason, message: result.message, signedAt, ageSeconds },
      {
        fields: [
          { header: 'valid', value: (r) => r.valid },
          { header: 'reason', value: (r) => r.reason },
          { header: 'message', value: (r) => r.message },
        ],
      },
    );
  }
  throw new CliError(`invalid signature (${REASONS[result.reason] ?? result.reason}): ${result.message}`);
}

async function readInput(flag: string, file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (err) {
    throw new UsageError(`cannot read ${flag} ${file}: ${describeFsError(err)}`);
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c, 'utf8') : Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks);
}
