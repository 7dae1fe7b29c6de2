import { Command, InvalidArgumentError } from 'commander';
import { action } from '../action.js';
import { safeText } from '../../ui/safe-text.js';
import type { Context } from '../../context.js';
import type { ContextFactory } from '../types.js';
import { CliError, UsageError } from '../../errors.js';
import { ExitCode } from '../../exit-codes.js';

interface StartOptions {
  port: number;
  host: string;
  org: Array<{ name: string; apiKey: string }>;
  timeScale: number;
  dataDir?: string;
  seed: number;
  allowLoopbackUrls?: boolean;
  log?: boolean;
  repair?: boolean;
}

const parsePort = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('a port is an integer from 0 to 65535 (0 picks a free one).');
  return n;
};

const parseOrg = (v: string, prev: StartOptions['org'] = []): StartOptions['org'] => {
  const i = v.indexOf(':');
  const name = v.slice(0, i).trim();
  const apiKey = v.slice(i + 1).trim();
  if (i <= 0 || !name || !apiKey) throw new InvalidArgumentError('expected name:key, for example --org acme:vap_test_acme.');
  return [...prev, { name, apiKey }];
};

const parseScale = (v: string): number => {
  const n = Number(v);
  if (!(n > 0) || !Number.isFinite(n)) throw new InvalidArgumentError('the time scale is a positive number, for example 50.');
  return n;
};

const parseSeed = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n)) throw new InvalidArgumentError('the seed is an integer.');
  return n;
};

export function startCommand(makeContext: ContextFactory): Command {
  return new Command('start')
    .description('Run the local emulator of the platform API (both documents) until Ctrl-C')
    .option('--port <port>', 'port to listen on; 0 picks a free one', parsePort, 4010)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--org <name:key>', 'create an organization with that API key (repeatable)', parseOrg)
    .option('--time-scale <x>', 'simulated time runs x times faster than real time', parseScale, 1)
    .option('--data-dir <dir>', 'persist state in this directory; a restart keeps everything acknowledged')
    .option('--repair', 'start on a damaged --data-dir: keep everything before the first damaged record or missing journal, move the rest aside')
    .option('--seed <n>', 'seed for generated data', parseSeed, 1)
    .option('--allow-loopback-urls', 'let webhook and file URLs point at loopback addresses')
    .option('--log', 'print one line per request on stderr')
    .addHelpText(
      'after',
      `
Examples:
  $ vap emulator start
  $ vap emulator start --port 0 --org acme:key_acme --org globex:key_globex
  $ vap emulator start --time-scale 100 --data-dir .vap-emulator --json`,
    )
    .action(action<StartOptions>(makeContext, (_args, opts, ctx) => run(opts, ctx)));
}

export async function run(opts: StartOptions, ctx: Context): Promise<void> {
  if (opts.repair && opts.dataDir === undefined)
    throw new UsageError('--repair needs --data-dir', 'name the data directory to repair: --data-dir <dir> --repair');
  const { startEmulator, StateFileError } = await import('../../emulator/server.js');
  // Undocumented tuning for tests: compact the journal once it holds this many bytes.
  const compact = ctx.env.VAP_EMULATOR_COMPACT_BYTES;
  const compactMinBytes = compact !== undefined && /^\d{1,12}$/.test(compact) ? Number(compact) : undefined;
  let emulator;
  try {
    emulator = await startEmulator({
      host: opts.host,
      port: opts.port,
      orgs: opts.org,
      timeScale: opts.timeScale,
      dataDir: opts.dataDir,
      seed: opts.seed,
      allowLoopbackUrls: opts.allowLoopbackUrls,
      // Request lines quote paths from the network: shown safe.
      log: opts.log ? (line) => ctx.io.stderr.write(`${safeText(line)}\n`) : undefined,
      // A problem found and handled in --data-dir (a torn last journal record, what --repair did): one line.
      warn: (line) => void ctx.warn(safeText(line)),
      compactMinBytes,
      repair: opts.repair,
    });
  } catch (err) {
    // A state file that cannot be read, or a data directory in use: one line naming it and the
    // fix; never a start on an empty or partial state.
    if (err instanceof StateFileError) throw new CliError(safeText(err.message), ExitCode.FAILURE);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`port ${opts.port} is already in use`, 'pick another with --port, or --port 0 for any free one');
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`cannot listen on ${opts.host}`, 'pass an address of this machine with --host');
    throw err;
  }
  const info = { url: emulator.url, orgs: emulator.orgs.map((o) => ({ name: o.name, apiKey: o.apiKey, id: o.id })) };
  if (ctx.out.format === 'json' || ctx.out.format === 'ndjson') {
    ctx.io.stdout.write(`${JSON.stringify(info)}\n`);
  } else {
    ctx.io.stdout.write(`vap emulator listening on ${emulator.url}\n`);
    for (const o of info.orgs) ctx.io.stdout.write(`${safeText(`  organization ${o.name}  key ${o.apiKey}`)}\n`);
    const first = info.orgs[0]!;
    ctx.io.stdout.write(`\nTry it:\n  export VAP_BASE_URL=${emulator.url} VAP_API_KEY=${first.apiKey}\n  vap agents list\n\nPress Ctrl-C to stop.\n`);
  }
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await emulator.close();
  ctx.info('emulator stopped');
}
