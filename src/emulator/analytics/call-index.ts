import { telephonyFor, type TelephonyModel } from '../telephony/model.js';
import type { CallRecord } from '../telephony/types.js';
import type { ModuleEnv } from '../types.js';

/**
 * The organization's calls grouped by campaign, so a per-campaign request (realtime, polled every
 * few seconds) reads only that campaign's calls. Only the set of calls is cached; the records
 * are the model's own (when it is refreshed: src/emulator/README.md).
 */

interface Grouping {
  source: readonly CallRecord[];
  length: number;
  last: CallRecord | undefined;
  byCampaign: Map<string, CallRecord[]>;
}

const NONE: readonly CallRecord[] = Object.freeze([]);

export class CallIndex {
  private readonly orgs = new Map<string, Grouping>();

  constructor(private readonly model: TelephonyModel) {}

  /** Every call of the organization, oldest first (the model's array: never change it). */
  all(orgId: string): readonly CallRecord[] {
    return this.model.calls(orgId);
  }

  /** The campaign's calls, oldest first. */
  ofCampaign(orgId: string, campaignId: string): readonly CallRecord[] {
    return this.grouping(orgId).byCampaign.get(campaignId) ?? NONE;
  }

  /** Every campaign id that has calls (deleted campaigns' too) → its calls, oldest first. */
  groups(orgId: string): ReadonlyMap<string, readonly CallRecord[]> {
    return this.grouping(orgId).byCampaign;
  }

  private grouping(orgId: string): Grouping {
    const source = this.model.calls(orgId);
    const g = this.orgs.get(orgId);
    if (g && g.source === source && g.length === source.length && source[g.length - 1] === g.last) return g;
    if (g && g.source === source && g.length < source.length && (g.length === 0 || source[g.length - 1] === g.last)) {
      for (let i = g.length; i < source.length; i++) add(g.byCampaign, source[i]!);
      g.length = source.length;
      g.last = source[source.length - 1];
      return g;
    }
    const byCampaign = new Map<string, CallRecord[]>();
    for (const c of source) add(byCampaign, c);
    const fresh: Grouping = { source, length: source.length, last: source[source.length - 1], byCampaign };
    this.orgs.set(orgId, fresh);
    return fresh;
  }
}

function add(m: Map<string, CallRecord[]>, c: CallRecord): void {
  const list = m.get(c.campaignId);
  if (list) list.push(c);
  else m.set(c.campaignId, [c]);
}

const indexes = new WeakMap<ModuleEnv, CallIndex>();

export function callIndexFor(env: ModuleEnv): CallIndex {
  let i = indexes.get(env);
  if (!i) {
    i = new CallIndex(telephonyFor(env));
    indexes.set(env, i);
  }
  return i;
}
