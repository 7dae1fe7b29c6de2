import { Command, CommanderError } from 'commander';
import type { ConfigGates } from '../../ascode/project.js';
import { UsageError } from '../../errors.js';
import type { GateOptions } from '../../evals/settings.js';
import { addBaselineOptions, addGateOptions } from '../eval-options.js';

/**
 * vap.yaml's `gates:` is keyed by each flag's long name (`min-score: 0.8`) and parsed by the flag's own
 * parser, so the file and the command line accept the same things; a flag on the command line wins.
 */

/** The gate options with vap.yaml's gates filling what the command line did not give. */
export function withConfigGates<T extends GateOptions>(opts: T, gates: ConfigGates): T {
  if (gates.size === 0) return opts;
  const fromFile = parseConfigGates(gates) as Record<string, unknown>;
  const out = { ...opts } as Record<string, unknown>;
  for (const [k, v] of Object.entries(fromFile)) {
    const given = out[k];
    if (given === undefined || (Array.isArray(given) && given.length === 0)) out[k] = v;
  }
  return out as T;
}

function gateCommand(): Command {
  return addBaselineOptions(addGateOptions(new Command('gates')))
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: () => undefined })
    .helpOption(false);
}

/** Each gate of vap.yaml through its flag's parser; a problem is exit 2 naming its line. */
export function parseConfigGates(gates: ConfigGates): GateOptions {
  const names = gateCommand().options.map((o) => o.long!.slice(2));
  const out: Record<string, unknown> = {};
  for (const [key, { value, line }] of gates) {
    const where = `vap.yaml:${line}: gates.${key}`;
    const cmd = gateCommand();
    const opt = cmd.options.find((o) => o.long === `--${key}`);
    if (!opt) throw new UsageError(`${where}: not a gate`, `the gates are: ${names.join(', ')}`);
    const argv = argvOf(`--${key}`, value, opt.required || opt.optional);
    if (typeof argv === 'string')
      throw new UsageError(`${where}: ${argv}`, `write it as on the command line, e.g. ${example(key, opt.required || opt.optional)}`);
    try {
      cmd.parse(argv, { from: 'user' });
    } catch (err) {
      const message = err instanceof CommanderError ? err.message.replace(/^error: /, '') : (err as Error).message;
      throw new UsageError(`${where}: ${message}`, `write it as on the command line, e.g. ${example(key, opt.required || opt.optional)}`);
    }
    Object.assign(out, cmd.opts());
  }
  return out as GateOptions;
}

/** A YAML value as the flag's arguments; a string when it cannot be one. */
function argvOf(flag: string, value: unknown, takesValue: boolean): string[] | string {
  if (!takesValue) {
    if (typeof value !== 'boolean') return 'takes true or false';
    return value ? [flag] : [];
  }
  if (typeof value === 'boolean') return 'takes a value, not true or false';
  if (Array.isArray(value)) return value.flatMap((v) => [flag, String(v)]);
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => [flag, `${k}=${String(v)}`]);
  return [flag, String(value)];
}

function example(key: string, takesValue: boolean): string {
  if (!takesValue) return `${key}: true`;
  if (key === 'min-criterion') return 'min-criterion: { goal_completion: 0.8 }';
  if (key === 'baseline') return 'baseline: previous';
  const arg = /<([^>]+)>/.exec(gateCommand().options.find((o) => o.long === `--${key}`)?.flags ?? '')?.[1] ?? 'value';
  return `${key}: <${arg}>`;
}
