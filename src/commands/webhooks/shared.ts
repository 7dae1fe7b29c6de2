import type { ApiClient } from '../../api/client.js';
import { isStreamOnly, listEventTypes } from '../../api/events.js';
import type { WebhookEndpoint } from '../../api/webhooks.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { withPolicy } from '../../ui/columns.js';
import { listOf, type Column } from '../../ui/format.js';
import { nearest } from '../../ui/suggest.js';
import { count, time } from '../../ui/values.js';
import { SAVE_SECRET_TEXT, secretKeptText } from '../../webhooks/rotate.js';
import type { SecretFile } from '../../webhooks/secret-file.js';

type EndpointLike = Partial<WebhookEndpoint> & { id: string };

const yesNo = (v: unknown) => (v === true ? 'yes' : v === false ? 'no' : '');

export const ENDPOINT_COLUMNS: Column<WebhookEndpoint>[] = withPolicy<WebhookEndpoint>(
  [
    { header: 'id', value: (e) => e.id },
    { header: 'name', value: (e) => e.name },
    // A URL cut short says little: its host and more stay before other columns give way.
    { header: 'url', value: (e) => e.url, min: 24 },
    { header: 'events', value: (e) => listOf(e.events) },
    { header: 'enabled', value: (e) => yesNo(e.isEnabled) },
    { header: 'failures', value: (e) => count(e.consecutiveFailures) },
    { header: 'last success', value: (e) => time(e.lastSuccessAt) },
  ],
  { keep: ['id', 'name', 'enabled'], dropFirst: ['events', 'last success'] },
);

/** The detail view of an endpoint (never the secret: that is printed by create and rotate alone). */
export const ENDPOINT_FIELDS: Column<EndpointLike>[] = [
  { header: 'id', value: (e) => e.id },
  { header: 'name', value: (e) => e.name },
  { header: 'url', value: (e) => e.url },
  { header: 'events', value: (e) => listOf(e.events) },
  { header: 'enabled', value: (e) => yesNo(e.isEnabled) },
  { header: 'failures', value: (e) => count(e.consecutiveFailures) },
  { header: 'last success', value: (e) => (e.lastSuccessAt ? time(e.lastSuccessAt) : e.isEnabled !== undefined ? 'never' : undefined) },
  { header: 'secret prefix', value: (e) => (e.secretPrefix ? `${e.secretPrefix}…` : undefined) },
  { header: 'created', value: (e) => time(e.createdAt) },
  { header: 'updated', value: (e) => time(e.updatedAt) },
];

/** Repeatable `--events a,b` (also `--events a --events b`). */
export function collectEvents(value: string, previous: string[] | undefined): string[] {
  return [
    ...(previous ?? []),
    ...value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  ];
}

export const MAX_EVENTS = 50;

/** The event types, de-duplicated; at least one. */
export function eventList(values: string[] | undefined, flag = '--events'): string[] {
  const list = [...new Set(values ?? [])];
  if (list.length === 0) throw new UsageError(`${flag} names no event type`, `pass ${flag} call.ended,call.analysis.completed (see \`vap events types\`)`);
  if (list.length > MAX_EVENTS) throw new UsageError(`${list.length} event types given`, `an endpoint subscribes to at most ${MAX_EVENTS}`);
  return list;
}

/**
 * Checks event types against the live catalog (GET /api/v1/events/types): an unknown
 * type, or one delivered on the call stream only, is a usage error naming the fix.
 */
export async function checkWebhookEventTypes(api: ApiClient, types: readonly string[], signal?: AbortSignal): Promise<void> {
  const catalog = await listEventTypes(api, signal);
  const deliverable = catalog.filter((e) => !isStreamOnly(e)).map((e) => e.type);
  for (const t of types) {
    const entry = catalog.find((e) => e.type === t);
    if (!entry) {
      const near = nearest(t, deliverable);
      throw new UsageError(
        `unknown event type "${t}"`,
        `${near.length ? `did you mean ${near.join(' or ')}? ` : ''}webhooks can subscribe to: ${deliverable.join(', ')}`,
      );
    }
    if (isStreamOnly(entry)) {
      throw new UsageError(
        `"${t}" is delivered on the call stream only, never to a webhook`,
        `follow it live with \`vap calls tail <callId> --types ${t}\`; webhooks can subscribe to: ${deliverable.join(', ')}`,
      );
    }
  }
}

/** A public http(s) URL without credentials; whether its host is public is the service's check. */
export function checkUrl(value: string, flag = '--url'): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new UsageError(`${flag} "${value}" is not a URL`, `pass ${flag} https://example.com/hooks/vap`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UsageError(`${flag} must be http or https, not ${url.protocol.replace(/:$/, '')}`, `pass ${flag} https://…`);
  if (url.username || url.password)
    throw new UsageError(`${flag} must not carry a user name or password`, 'authenticate the deliveries by their signature instead (`vap webhooks verify`)');
  return value.trim();
}

/** A non-blank --name of at most 200 characters. */
export function checkName(value: string): string {
  const name = value.trim();
  if (!name) throw new UsageError('--name must not be empty');
  if (name.length > 200) throw new UsageError(`--name is ${name.length} characters long`, 'use at most 200');
  return name;
}

/**
 * Prints an object that carries the secret (create, rotate): with a secret file the
 * secret goes there and is printed nowhere; otherwise it is printed once, with a warning.
 */
export async function showSecretOnce<T extends { id: string; secret: string }>(ctx: Context, obj: T, secretFile: SecretFile | undefined): Promise<void> {
  await secretFile?.commit(obj.secret);
  await printSecretOnce(ctx, obj, secretFile?.path);
}

/** Prints an object that carries a secret already kept in `writtenTo` (then the secret is printed nowhere), or to be saved now. */
export async function printSecretOnce<T extends { id: string; secret: string }>(ctx: Context, obj: T, writtenTo: string | undefined): Promise<void> {
  // The fields the answer carries (create: the endpoint; rotate: id and secret).
  const wanted: Record<string, string> = { id: 'id', name: 'name', url: 'url', events: 'events', enabled: 'isEnabled' };
  const byHeader = new Map(ENDPOINT_FIELDS.map((f) => [f.header, f]));
  const fields = Object.entries(wanted)
    .filter(([, key]) => key === 'id' || key in obj)
    .map(([header]) => byHeader.get(header)!) as unknown as Array<{ header: string; value: (o: T) => unknown }>;
  if (writtenTo !== undefined) {
    const { secret: _secret, ...shown } = obj;
    await ctx.out.item(shown as unknown as T, { fields });
    await ctx.success(secretKeptText(writtenTo));
    return;
  }
  await ctx.out.item(obj, { fields: [...fields, { header: 'secret', value: (o) => o.secret }] });
  await ctx.warn(SAVE_SECRET_TEXT);
}
