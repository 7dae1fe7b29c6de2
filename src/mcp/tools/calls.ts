import { z } from 'zod';
import {
  CALL_DIRECTIONS,
  CALL_STATUS_FILTERS,
  CALLS_MAX_PAGE_SIZE,
  getCall,
  getTranscript,
  listCalls,
  type CallFilters,
  type CallsSummary,
} from '../../api/calls.js';
import { limitOf, listInput, listOutput, openCursor, readRange } from '../paging.js';
import { fitItems, jsonSize } from '../result.js';
import { DATA_NOTICE, neutralise } from '../safety.js';
import * as S from '../schemas.js';
import { defineTool } from '../tool.js';

const callId = z.string().min(1).describe('The call id (a UUID, from vap_calls_list).');

export const callTools = [
  defineTool({
    name: 'vap_calls_list',
    title: 'List calls',
    description:
      'Calls of the organization, newest first, with filters: status (failed, completed, queued, in-progress, cancelled), campaign, direction, creation dates, duration in seconds, and a search on the callee name or phone. Also the counts over every match (total, completed, failed, active, queued). Summaries and transcripts are in vap_calls_get.',
    input: {
      status: z.enum(CALL_STATUS_FILTERS).optional(),
      campaignId: z.string().optional(),
      direction: z.enum(CALL_DIRECTIONS as [string, ...string[]]).optional(),
      dateFrom: z.string().optional().describe('ISO 8601: created on or after.'),
      dateTo: z.string().optional().describe('ISO 8601: created on or before.'),
      minDuration: z.number().int().min(0).optional().describe('Seconds.'),
      maxDuration: z.number().int().min(0).optional().describe('Seconds.'),
      search: z.string().optional().describe('Callee name or phone number.'),
      ...listInput,
    },
    output: z.object({ summary: S.callsSummary.nullish(), calls: z.array(S.call), total: S.num }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      const { limit: _l, cursor, ...given } = a;
      const { pos, filters } = openCursor(env.tool, cursor, given);
      const offset = pos.o ?? 0;
      const limit = limitOf(a.limit);
      let summary: CallsSummary | undefined;
      const r = await readRange(
        async (page, pageSize) => {
          const p = await listCalls(env.api, { page, pageSize, ...(filters as CallFilters) }, env.signal);
          summary ??= p.summary;
          return { items: p.calls, hasMore: page < p.pagination.totalPages, total: p.pagination.total };
        },
        offset,
        limit,
        Math.min(limit, CALLS_MAX_PAGE_SIZE),
      );
      return listOutput({ tool: env.tool, key: 'calls', filters, extra: { summary: summary ?? null } }, r.items, r.more, (n) => ({ o: offset + n }), r.total);
    },
  }),

  defineTool({
    name: 'vap_calls_get',
    title: 'Get a call with its transcript and analysis',
    description:
      "One call: its facts (status, direction, duration, failure reason), the summary, the after-call analysis (sentiment, human contact, objectives, callback, do-not-call, legal, crisis, resolution), the flags that need someone's attention first (crisis, legal threat, do-not-call request, as `vap calls get` shows them), and the transcript. A long transcript is cut: transcriptFrom reads on from a message.",
    input: {
      callId,
      transcriptFrom: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe('The first transcript message to give (its ordinal; default 0), to read the rest of a cut transcript.'),
    },
    output: z.object({
      call: S.callDetail,
      attention: z.array(z.looseObject({ kind: z.string(), text: z.string(), action: S.str })),
      transcript: z.object({ messageCount: z.number(), from: z.number(), messages: z.array(S.transcriptLine) }),
    }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      const [call, transcript, { analysisFlags }] = await Promise.all([
        getCall(env.api, a.callId, env.signal),
        getTranscript(env.api, a.callId, env.signal),
        import('../../calls/detail.js'),
      ]);
      const from = a.transcriptFrom ?? 0;
      const rest = transcript.messages.slice(from).map(neutralise);
      const head = { call, attention: analysisFlags(call.analysis), transcript: { messageCount: transcript.messageCount, from, messages: [] as unknown[] } };
      const restNote = (shown: number) =>
        `call vap_calls_get again with transcriptFrom ${from + shown} for the rest of the transcript (or read the resource vap://calls/${a.callId}/transcript)`;
      const overhead = jsonSize({
        dataNotice: DATA_NOTICE,
        data: neutralise(head),
        cut: { limitChars: env.maxChars, shown: rest.length, of: rest.length, rest: restNote(rest.length) },
      });
      // The call and its analysis come first; the transcript takes what room is left (at least one message).
      const shown = fitItems(rest, env.maxChars - overhead);
      const data = { ...head, transcript: { ...head.transcript, messages: rest.slice(0, shown) } };
      if (shown < rest.length) return { data, cut: { shown, of: rest.length, rest: restNote(shown) } };
      return { data, rest: `read the transcript as the resource vap://calls/${a.callId}/transcript` };
    },
  }),
];
