import type { ApiClient } from '../api/client.js';
import { CALLS_MAX_PAGE_SIZE, getCall, listCalls } from '../api/calls.js';
import { CAMPAIGNS_MAX_PAGE_SIZE, getCampaign, listCampaignsPage, listRuns } from '../api/campaigns.js';
import { NotFoundError } from '../api/errors.js';
import type { Context } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { isUuid } from '../ui/values.js';
import { RecentIds, type RecordedKind } from './recent.js';

/**
 * An id as a table shows it (a UUID's first eight digits) is an id: a call, campaign or run is taken
 * by a unique prefix too, a campaign also by name. The API cannot search by prefix, so vap reads a
 * listing and the ids it recently showed (src/ids/recent.ts); an ambiguous prefix is exit 2, none exit 1.
 */

/** How many of the newest calls are read to find a prefix. */
const CALLS_READ = CALLS_MAX_PAGE_SIZE;
/** How many pages of campaigns are read, at most. */
const MAX_PAGES = 10;
/** How many ids found only in the record are read from the API; more than that is too short a prefix. */
const RECORD_CHECKS = 5;
/** How many candidates an ambiguous prefix lists. */
const LISTED = 5;

interface Candidate {
  id: string;
  /** What tells it apart, in a few words (a call's status and callee, a campaign's name). */
  about: string;
  name?: string;
}

interface Listing {
  items: Candidate[];
  /** Whether every id of the kind is in it. */
  complete: boolean;
  /** Where vap looked, for the message when nothing matched ("the newest 100 calls"). */
  scope: string;
}

interface Kind {
  word: string;
  plural: string;
  /** The command that lists them, for the hint. */
  list: string;
  /** Taken by name too (the API's listing can search names). */
  names?: boolean;
  recorded?: RecordedKind;
  listing(api: ApiClient, signal: AbortSignal, search?: string): Promise<Listing>;
  /** One id read from the API: an id found only in the record is checked so. */
  read?(api: ApiClient, id: string, signal: AbortSignal): Promise<Candidate>;
}

const CALL: Kind = {
  word: 'call',
  plural: 'calls',
  list: 'vap calls list',
  recorded: 'call',
  async listing(api, signal) {
    const page = await listCalls(api, { page: 1, pageSize: CALLS_READ }, signal);
    return { items: page.calls.map(aboutCall), complete: page.pagination.totalPages <= 1, scope: `the newest ${page.calls.length} calls` };
  },
  read: async (api, id, signal) => aboutCall(await getCall(api, id, signal)),
};

const CAMPAIGN: Kind = {
  word: 'campaign',
  plural: 'campaigns',
  list: 'vap campaigns list',
  names: true,
  recorded: 'campaign',
  async listing(api, signal, search) {
    const items: Candidate[] = [];
    for (let page = 1; page <= MAX_PAGES; page++) {
      const p = await listCampaignsPage(api, { page, pageSize: CAMPAIGNS_MAX_PAGE_SIZE, search }, signal);
      items.push(...p.items.map(aboutCampaign));
      if (!p.hasMore || p.items.length === 0) return { items, complete: true, scope: 'the campaigns' };
    }
    return { items, complete: false, scope: `the first ${items.length} campaigns` };
  },
  read: async (api, id, signal) => aboutCampaign(await getCampaign(api, id, signal)),
};

function runsOf(campaignId: string): Kind {
  return {
    word: 'run',
    plural: 'runs',
    list: `vap campaigns runs ${campaignId}`,
    async listing(api, signal) {
      const runs = await listRuns(api, campaignId, signal);
      return { items: runs.map((r) => ({ id: r.id, about: `started ${r.startedAt}` })), complete: true, scope: `the runs of campaign ${campaignId}` };
    },
  };
}

function aboutCall(c: { id: string; status?: string; calleeName?: string }): Candidate {
  return { id: c.id, about: [c.status, c.calleeName].filter(Boolean).join(', ') };
}

function aboutCampaign(c: { id: string; name?: string; status?: string }): Candidate {
  return { id: c.id, name: c.name, about: [c.name, c.status].filter(Boolean).join(', ') };
}

const LAYOUT = 'xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx';

/** Whether text is the start of a UUID as a table shows it (`c7e89311`, `c7e89311-5b8e`): hex digits, dashes where a UUID has them. */
function isUuidPrefix(text: string): boolean {
  if (text.length === 0 || text.length > LAYOUT.length) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (LAYOUT[i] === '-' ? c !== '-' : !/[0-9a-f]/i.test(c)) return false;
  }
  return true;
}

const CUT = /(…|\.\.\.)$/;

/** The reference as typed, without the `…` (or `...`) of a cell cut to fit. */
function bare(ref: string): string {
  return ref.trim().replace(CUT, '');
}

interface Resolved {
  id: string;
  /** Where the id came from: as given, the API's listing, or vap's record of the ids it showed (then read from the API). */
  from: 'given' | 'listing' | 'record';
}

interface Reads {
  /** The API client, made when a read is needed (a whole id needs none). */
  api: () => Promise<ApiClient>;
  signal: AbortSignal;
  /** The record, opened when it is needed. */
  recent?: () => Promise<RecentIds>;
}

/**
 * The id `ref` means: a whole UUID as it is; else a unique prefix of an id (or, for a kind
 * taken by name, a name) in the API's listing, or in the record when the listing may not
 * hold every id. `lenient`: a value that is neither is sent as given (the server decides).
 */
async function resolve(reads: Reads, kind: Kind, ref: string, lenient = false): Promise<Resolved> {
  const text = bare(ref);
  if (text === '') throw new UsageError(`the ${kind.word} id is empty`, `give the id of a ${kind.word}, or the start of one as \`${kind.list}\` shows it`);
  if (isUuid(text)) return { id: text, from: 'given' };
  const prefix = isUuidPrefix(text);
  if (!prefix && !kind.names) {
    if (lenient) return { id: text, from: 'given' };
    throw new UsageError(`"${ref}" is not a ${kind.word} id: ${kind.word} ids are UUIDs`, `copy one from \`${kind.list}\` (or \`${kind.list} -q\`)`);
  }
  // A name (or a name cut to fit, its start) is searched for by the server; a prefix needs the listing itself.
  const api = await reads.api();
  const listing = await kind.listing(api, reads.signal, prefix ? undefined : text);
  const lower = text.toLowerCase();
  const byId = prefix ? listing.items.filter((c) => c.id.toLowerCase().startsWith(lower)) : [];
  const byName = kind.names ? namedIn(listing.items, text, CUT.test(ref.trim())) : [];
  const found = [...byId, ...byName.filter((c) => !byId.some((b) => b.id === c.id))];

  let fromRecord: Candidate[] = [];
  if (prefix && !listing.complete && kind.recorded && reads.recent) {
    const recent = await reads.recent();
    const recorded = recent.startingWith(kind.recorded, text).filter((id) => !found.some((c) => c.id === id));
    if (found.length + recorded.length > 1 && recorded.length > RECORD_CHECKS) {
      throw ambiguous(kind, ref, [...found, ...recorded.map((id) => ({ id, about: '' }))]);
    }
    // Never taken on the record's word: each id is read from the API, and one it does not know is dropped.
    const read = await Promise.all(
      recorded.map((id) =>
        kind.read!(api, id, reads.signal).catch((err: unknown) =>
          err instanceof NotFoundError ? recent.forget(kind.recorded!, id).then(() => undefined) : Promise.reject(err),
        ),
      ),
    );
    fromRecord = read.filter((c): c is Candidate => c !== undefined);
  }
  const all = [...found, ...fromRecord];
  if (all.length === 1) return { id: all[0]!.id, from: found.length === 1 ? 'listing' : 'record' };
  if (all.length > 1) throw ambiguous(kind, ref, all, byName.length > 0 && byId.length === 0);
  throw notFound(kind, ref, prefix, listing, Boolean(kind.recorded && reads.recent));
}

/** The candidates named `name` (whose name starts with it, for a name cut to fit a table): exactly, else ignoring case. */
function namedIn(items: readonly Candidate[], name: string, cut: boolean): Candidate[] {
  const is = (a: string, b: string) => (cut ? a.startsWith(b) : a === b);
  const exact = items.filter((c) => c.name !== undefined && is(c.name, name));
  if (exact.length) return exact;
  const lower = name.toLowerCase();
  return items.filter((c) => c.name !== undefined && is(c.name.toLowerCase(), lower));
}

function ambiguous(kind: Kind, ref: string, all: readonly Candidate[], byName = false): UsageError {
  const shown = all.slice(0, LISTED).map((c) => (c.about ? `${c.id} (${c.about})` : c.id));
  const more = all.length > LISTED ? `, and ${all.length - LISTED} more` : '';
  if (byName)
    return new UsageError(
      `${all.length} ${kind.plural} are named "${ref}": ${shown.join(', ')}${more}`,
      `give the id of the one you mean (its first eight characters are enough)`,
    );
  return new UsageError(`${ref} is the start of ${all.length} ${kind.word} ids: ${shown.join(', ')}${more}`, 'give more of the id');
}

function notFound(kind: Kind, ref: string, prefix: boolean, listing: Listing, recorded: boolean): CliError {
  const what = prefix ? `no ${kind.word} id starts with ${bare(ref)}` : `no ${kind.word} is named "${bare(ref)}"`;
  const where = listing.complete ? '' : `vap looked among ${listing.scope}${recorded ? ` and the ${kind.plural} it listed lately` : ''}; `;
  const fix = listing.complete ? `see \`${kind.list}\`` : `give the whole id (\`${kind.list} --wide\` shows it whole)`;
  return new CliError(`${kind.word} ${bare(ref)} not found: ${what}`, undefined, `${where}${fix}`);
}

// ---------------------------------------------------------------------------------------
// For the verbs

async function owner(ctx: Context): Promise<RecentIds> {
  const c = await ctx.credentials();
  return RecentIds.open(ctx.env, { profile: c.profile, baseUrl: c.baseUrl, apiKey: c.apiKey });
}

async function resolveFor(ctx: Context, kind: Kind, ref: string, lenient = false): Promise<string> {
  const r = await resolve({ api: () => ctx.api(), signal: ctx.signal, recent: () => owner(ctx) }, kind, ref, lenient);
  if (r.from === 'record') ctx.info(`${bare(ref)} is ${kind.word} ${r.id} (from the ${kind.plural} vap listed lately; read from the API to make sure)`);
  return r.id;
}

/**
 * The call `ref` means: a call id, or its start as `vap calls list` shows it. `lenient` (calls
 * tail): a value that is neither is sent as given, for the server to say whether it is a call.
 */
export function resolveCallId(ctx: Context, ref: string, opts: { lenient?: boolean } = {}): Promise<string> {
  return resolveFor(ctx, CALL, ref, opts.lenient);
}

/** The campaign `ref` means: a campaign id, its start as `vap campaigns list` shows it, or the campaign's name. */
export function resolveCampaignId(ctx: Context, ref: string): Promise<string> {
  return resolveFor(ctx, CAMPAIGN, ref);
}

/** The run of a campaign `ref` means: a run id, or its start as `vap campaigns runs` shows it. */
export function resolveCampaignRunId(ctx: Context, campaignId: string, ref: string): Promise<string> {
  return resolveFor(ctx, runsOf(campaignId), ref);
}

/**
 * Passes a listing's rows through and, when they are shown in a table on a terminal (where
 * a UUID shows its first eight digits), records their ids once the listing is done, so that
 * a prefix copied from the table is found later (src/ids/recent.ts).
 */
export async function* rememberShown<T>(
  ctx: Context,
  kind: RecordedKind,
  rows: AsyncIterable<T> | Iterable<T>,
  ids: (row: T) => Array<string | null | undefined>,
): AsyncGenerator<T> {
  if (!ctx.out.human) {
    yield* rows;
    return;
  }
  const shown: string[] = [];
  for await (const row of rows) {
    for (const id of ids(row)) if (id) shown.push(id);
    yield row;
  }
  await (await owner(ctx)).remember(kind, shown);
}
