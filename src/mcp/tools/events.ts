import { z } from 'zod';
import { listEventTypes, ORGANIZATION_STREAM_PATH } from '../../api/events.js';
import { makeCursor, openCursor } from '../paging.js';
import { fitItems, jsonSize } from '../result.js';
import { DATA_NOTICE, neutralise, Refusal } from '../safety.js';
import * as S from '../schemas.js';
import { defineTool } from '../tool.js';

const DEFAULT_EVENTS = 50;
const MAX_EVENTS = 200;
/** The longest a call waits for the stream to say it has replayed what was asked (a server that never says so). */
const REPLAY_WAIT_MS = 10_000;

interface Ev {
  id: string;
  type: string;
  envelope: unknown;
}

export const eventTools = [
  defineTool({
    name: 'vap_events_recent',
    title: "The organization's recent events",
    description:
      "The organization's recent events (calls started and ended, analyses completed, speakers identified, eval runs completed, …) as the event stream replays them, oldest first: without afterEventId the newest ones (limit, default 50), with it the ones that came after that event. lastEventId says where to ask from next time. types narrows to some event types (vap_events_types lists them).",
    input: {
      afterEventId: z
        .string()
        .regex(/^\d{1,20}$/, 'an event id (a number)')
        .optional()
        .describe('Only the events after this one (the lastEventId of a previous call).'),
      types: z.array(z.string().min(1)).optional().describe('Only these event types.'),
      limit: z.number().int().min(1).max(MAX_EVENTS).optional().describe(`How many events at most (default ${DEFAULT_EVENTS}, at most ${MAX_EVENTS}).`),
      cursor: z.string().optional().describe('The nextCursor of the previous call, to read on.'),
    },
    output: z.object({ events: z.array(S.event), lastEventId: z.string().nullable() }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      if (a.cursor && a.afterEventId) throw new Refusal('vap_events_recent: give cursor or afterEventId, not both.');
      const { pos, filters } = openCursor(env.tool, a.cursor, { types: a.types });
      const after = pos.c ?? a.afterEventId;
      const types = filters.types as string[] | undefined;
      const limit = a.limit ?? DEFAULT_EVENTS;
      // (The stream's reader and the type check are loaded by the calls that use them, not at the server's start.)
      const [{ openEventBatches }, { checkTypes }] = await Promise.all([import('../../api/sse.js'), import('../../events/follow.js')]);
      if (types?.length) await checkTypes(env.api, [{ flag: 'types', types }], { stream: 'organization', signal: env.signal });
      const stop = new AbortController();
      const timer = setTimeout(() => stop.abort(), REPLAY_WAIT_MS);
      const signal = AbortSignal.any([env.signal, stop.signal]);
      const events: Ev[] = [];
      let live = false;
      let full = false;
      try {
        read: for await (const batch of openEventBatches(env.api, {
          path: ORGANIZATION_STREAM_PATH,
          types,
          // From the oldest retained event (keeping the newest `limit`), or after the one given.
          lastEventId: after ?? '0',
          signal,
          onState: (s) => {
            if (s.kind === 'live' || s.kind === 'reconnected') {
              live = true;
              stop.abort();
            }
          },
        })) {
          for (const e of batch) {
            events.push({ id: e.id, type: e.type, envelope: e.data });
            if (after === undefined) {
              if (events.length > limit) events.shift();
            } else if (events.length >= limit) {
              full = true;
              break read;
            }
          }
          if (live) break;
        }
      } catch (err) {
        if (env.signal.aborted || !stop.signal.aborted) throw err;
      } finally {
        clearTimeout(timer);
        stop.abort();
      }
      // As many as fit the stated size: the newest ones (without afterEventId), or the first ones after it (the cursor goes on from the last shown).
      const safe = events.map(neutralise) as Ev[];
      const notes: string[] = [];
      if (!live && !full)
        notes.push(`The stream did not say within ${REPLAY_WAIT_MS / 1000} s that it had replayed everything: these are the events read by then.`);
      notes.push('For what comes later, call again with afterEventId = lastEventId.');
      const budget =
        env.maxChars -
        jsonSize({
          dataNotice: DATA_NOTICE,
          data: { events: [], lastEventId: 'x'.repeat(24) },
          nextCursor: 'x'.repeat(200),
          cut: { limitChars: env.maxChars, shown: 0, of: 0, rest: 'x'.repeat(200) },
          notes,
        });
      const fit = fitItems(after === undefined ? [...safe].reverse() : safe, budget);
      const shown = after === undefined ? safe.slice(safe.length - fit) : safe.slice(0, fit);
      const cut = fit < safe.length;
      const lastEventId = (after === undefined ? safe.at(-1)?.id : shown.at(-1)?.id) ?? after ?? null;
      return {
        data: { events: shown, lastEventId },
        neutralised: true,
        ...(full || (cut && after !== undefined) ? { nextCursor: makeCursor(env.tool, { c: lastEventId ?? undefined }, filters) } : {}),
        ...(cut
          ? {
              cut: {
                shown: fit,
                of: safe.length,
                rest:
                  after === undefined
                    ? 'older events were left out to fit: read them with a smaller limit, or from an earlier event with afterEventId'
                    : 'the rest follows: call vap_events_recent again with cursor = nextCursor',
              },
            }
          : {}),
        notes,
      };
    },
  }),

  defineTool({
    name: 'vap_events_types',
    title: 'List the event types',
    description: 'The event types of the platform, what each means, and where each is delivered (the streams, webhooks).',
    input: {},
    output: z.object({ eventTypes: z.array(S.eventType) }),
    idempotent: true,
    openWorld: false,
    async run(_a, env) {
      return { data: { eventTypes: await listEventTypes(env.api, env.signal) } };
    },
  }),
];
