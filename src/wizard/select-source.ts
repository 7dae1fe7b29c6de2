import type { ApiClient } from '../api/client.js';
import { listImportSources, type ImportSources, type SourceType } from '../api/eval-imports.js';
import type { Context } from '../context.js';
import { CliError } from '../errors.js';
import { SOURCE_KINDS, type SourceKind } from './options.js';
import { safeText } from '../ui/safe-text.js';

export interface ChosenSource {
  kind: SourceKind;
  sourceType: SourceType;
  sourceId: string;
  name: string;
  callCount: number;
}

const GROUPS: Array<[SourceKind, keyof ImportSources]> = [
  ['outbound', 'outboundCampaigns'],
  ['inbound', 'inboundCampaigns'],
  ['call-center', 'callCenters'],
];

/** Step 4: the source of the calls, among outbound campaigns, inbound campaigns and call centers. */
export async function selectSource(
  given: { kind?: SourceKind; sourceType?: SourceType; sourceId?: string } | undefined,
  ids: { agentId: string; evalId: string },
  api: ApiClient,
  ctx: Context,
): Promise<ChosenSource> {
  const sources = await listImportSources(api, ids.agentId, ids.evalId, ctx.signal);
  const all: ChosenSource[] = GROUPS.flatMap(([kind, key]) =>
    sources[key].map((s) => ({ kind, sourceType: SOURCE_KINDS[kind].sourceType, sourceId: s.id, name: s.name, callCount: s.callCount })),
  );
  const fits = all.filter((s) => (!given?.kind || s.kind === given.kind) && (!given?.sourceType || s.sourceType === given.sourceType));
  if (given?.sourceId) {
    const found = fits.find((s) => s.sourceId === given.sourceId);
    if (found) return found;
    if (all.some((s) => s.sourceId === given.sourceId)) {
      throw new CliError(`source ${given.sourceId} is not of --source-type ${given.kind ?? given.sourceType}`, undefined, 'drop --source-type or fix it');
    }
    throw new CliError(
      `no source ${given.sourceId} for this agent's imports`,
      undefined,
      `see \`vap evals imports sources --agent ${ids.agentId} --eval ${ids.evalId}\``,
    );
  }
  if (fits.length === 0) throw new CliError(`no ${given?.kind ? `${SOURCE_KINDS[given.kind].label.toLowerCase()}s` : 'sources'} to import calls from`);
  // Names are data: made safe before they are padded, so the columns line up as shown.
  const names = new Map(fits.map((s) => [s, safeText(String(s.name))]));
  const width = Math.max(...[...names.values()].map((n) => n.length));
  const id = await ctx.prompter.select(
    'Import calls from',
    fits.map((s) => ({
      name: `${SOURCE_KINDS[s.kind].label.padEnd(18)} ${names.get(s)!.padEnd(width)}  ${safeText(String(s.callCount)).padStart(4)} call${s.callCount === 1 ? '' : 's'}`,
      value: s.sourceId,
    })),
    { flag: '--source <sourceId>' },
  );
  return fits.find((s) => s.sourceId === id)!;
}
