import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest } from './errors.js';

/** Document 1 success envelope: `{ data, meta: { requestId, pagination? } }`. */
export function sendData(
  req: FastifyRequest,
  reply: FastifyReply,
  data: unknown,
  opts: { status?: number; pagination?: Record<string, unknown> } = {},
): FastifyReply {
  const meta: Record<string, unknown> = { requestId: req.id };
  if (opts.pagination) meta.pagination = opts.pagination;
  return reply.code(opts.status ?? 200).send({ data, meta });
}

/**
 * The same envelope around `data` already rendered as JSON text (records whose JSON is kept
 * per version): byte for byte what sendData would send, without serializing them again.
 */
export function sendDataJson(
  req: FastifyRequest,
  reply: FastifyReply,
  dataJson: string,
  opts: { status?: number; pagination?: Record<string, unknown> } = {},
): FastifyReply {
  const meta: Record<string, unknown> = { requestId: req.id };
  if (opts.pagination) meta.pagination = opts.pagination;
  return reply
    .code(opts.status ?? 200)
    .type('application/json; charset=utf-8')
    .send(`{"data":${dataJson},"meta":${JSON.stringify(meta)}}`);
}

/** Clamps a listing size to the spec's maximum; refuses what is not a positive integer. */
export function pageParam(value: unknown, name: string, def: number, max: number, min = 1): number {
  if (value === undefined || value === '') return def;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n) || n < min) {
    throw badRequest(`${name} must be an integer of at least ${min}`, [{ field: name, message: `must be an integer of at least ${min}` }]);
  }
  return Math.min(n, max);
}
