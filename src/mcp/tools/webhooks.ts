import { z } from 'zod';
import { DELIVERIES_MAX_LIMIT, getWebhookEndpoint, listWebhookDeliveriesPage, listWebhookEndpoints } from '../../api/webhooks.js';
import { safeText } from '../../ui/safe-text.js';
import { limitOf, listInput, listOutput, openCursor } from '../paging.js';
import * as S from '../schemas.js';
import { defineTool } from '../tool.js';
import { DELIVERY_STATUSES } from '../../spec/webhooks.js';

const webhookId = z.string().min(1).describe('The webhook endpoint id (from vap_webhooks_list).');

export const webhookTools = [
  defineTool({
    name: 'vap_webhooks_list',
    title: 'List webhook endpoints',
    description: 'The webhook endpoints: name, URL, subscribed event types, enabled, consecutive failures, last success. Never a secret.',
    input: { ...listInput },
    output: z.object({ endpoints: z.array(S.webhook), total: S.num }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      const { pos, filters } = openCursor(env.tool, a.cursor, {});
      const offset = pos.o ?? 0;
      const all = await listWebhookEndpoints(env.api, env.signal);
      const items = all.slice(offset, offset + limitOf(a.limit));
      return listOutput({ tool: env.tool, key: 'endpoints', filters }, items, offset + items.length < all.length, (n) => ({ o: offset + n }), all.length);
    },
  }),

  defineTool({
    name: 'vap_webhooks_get',
    title: 'Get a webhook endpoint',
    description: 'One webhook endpoint (never its secret: only its prefix).',
    input: { webhookId },
    output: z.object({ endpoint: S.webhook }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      return { data: { endpoint: await getWebhookEndpoint(env.api, a.webhookId, env.signal) } };
    },
  }),

  defineTool({
    name: 'vap_webhooks_deliveries',
    title: "List an endpoint's deliveries",
    description:
      "The deliveries of events to a webhook endpoint, newest first: event type and id, status (pending, in_flight, succeeded, failed, dead_lettered), attempts, the receiver's last HTTP status and why the last attempt failed. Payloads are never returned.",
    input: { webhookId, status: z.enum(DELIVERY_STATUSES as [string, ...string[]]).optional(), ...listInput },
    output: z.object({ deliveries: z.array(S.delivery) }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      const { pos, filters } = openCursor(env.tool, a.cursor, { webhookId: a.webhookId, status: a.status });
      // The API pages with its own cursor: the position is that cursor and how many of its page were shown.
      const skip = pos.s ?? 0;
      const limit = limitOf(a.limit);
      const page = await listWebhookDeliveriesPage(
        env.api,
        filters.webhookId as string,
        { page: 1, pageSize: Math.min(skip + limit, DELIVERIES_MAX_LIMIT), cursor: pos.c, status: filters.status as string | undefined },
        env.signal,
      );
      const items = page.items.slice(skip, skip + limit);
      const restOfPage = skip + items.length < page.items.length;
      return listOutput({ tool: env.tool, key: 'deliveries', filters }, items, restOfPage || page.hasMore, (n) =>
        skip + n < page.items.length ? { c: pos.c, s: skip + n } : { c: page.nextCursor ?? undefined, s: 0 },
      );
    },
  }),

  defineTool({
    name: 'vap_webhooks_rotate_secret',
    title: "Rotate an endpoint's signing secret",
    description:
      'Gives a webhook endpoint a new signing secret, effective at once: the old one stops working immediately, so the receiver must be updated at once. The new secret is shown only now: in the result, or, with secretFile, written to that file (mode 0600, as `vap webhooks rotate-secret --secret-file` does) and not shown.',
    input: {
      webhookId,
      secretFile: z.string().min(1).optional().describe('Write the new secret to this file (mode 0600) instead of returning it.'),
      confirm: z.string().optional().describe('The endpoint id again, to confirm the rotation once the user agreed to it.'),
    },
    output: z.object({ endpoint: z.looseObject({ id: S.str, secret: S.str }).nullish(), log: z.array(z.string()) }),
    idempotent: false,
    openWorld: false,
    write: {
      changes: "replaces the endpoint's signing secret; deliveries are signed with the new one at once and the old one stops working",
      undo: 'it cannot be undone: the old secret is gone (rotate again for another new one, and give the receiver the new secret)',
      destructive: true,
      confirm: (a) => ({ id: a.webhookId, what: 'webhook endpoint' }),
    },
    async run(a, env) {
      const { rotateSecret, rotatedText, SAVE_SECRET_TEXT, secretKeptText } = await import('../../webhooks/rotate.js');
      const { endpoint, secretFile } = await rotateSecret(() => Promise.resolve(env.api), a.webhookId, { secretFile: a.secretFile });
      // The endpoint as `--json` prints it (without the secret when a file holds it), and the lines the command says.
      const { secret: _secret, ...withoutSecret } = endpoint;
      const log = [secretFile === undefined ? `! ${SAVE_SECRET_TEXT}` : `✓ ${safeText(secretKeptText(secretFile))}`, `✓ ${safeText(rotatedText(endpoint.id))}`];
      return {
        data: { endpoint: secretFile === undefined ? endpoint : withoutSecret, log },
        undo: a.secretFile
          ? `the new secret is in ${safeText(a.secretFile)} (mode 0600); it cannot be undone`
          : 'the new secret is in data.endpoint.secret and is not shown again; it cannot be undone',
      };
    },
  }),
];
