import { describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  NotFoundError,
  RateLimitError,
  UnprocessableEntityError,
} from '../../src/api/errors.js';

const h = (rid?: string) => (rid ? { 'x-request-id': rid } : {});

describe('ApiError.fromResponse', () => {
  it('picks a subclass by status', () => {
    expect(ApiError.fromResponse(400, '', {})).toBeInstanceOf(BadRequestError);
    expect(ApiError.fromResponse(401, '', {})).toBeInstanceOf(AuthenticationError);
    expect(ApiError.fromResponse(404, '', {})).toBeInstanceOf(NotFoundError);
    expect(ApiError.fromResponse(422, '', {})).toBeInstanceOf(UnprocessableEntityError);
    expect(ApiError.fromResponse(429, '', {})).toBeInstanceOf(RateLimitError);
    expect(ApiError.fromResponse(503, '', {})).toBeInstanceOf(InternalServerError);
    expect(ApiError.fromResponse(418, '', {}).constructor).toBe(ApiError);
  });

  it('reads the emulator envelope: message, code and request id from the body', () => {
    const e = ApiError.fromResponse(
      404,
      JSON.stringify({ error: { code: 'not_found', message: 'agent ag_1 not found' }, meta: { requestId: 'req_body' } }),
      h('req_header'),
    );
    expect(e.message).toBe('agent ag_1 not found');
    expect(e.code).toBe('not_found');
    expect(e.requestId).toBe('req_body');
    expect(e.status).toBe(404);
  });

  it.each([
    [{ error: 'plain string error' }, 'plain string error'],
    [{ message: 'top-level message' }, 'top-level message'],
    [{ detail: 'problem+json detail', title: 'Bad' }, 'problem+json detail'],
    [{ errors: [{ field: 'name', message: 'is required' }] }, 'name: is required'],
    [{ errors: ['first', 'second'] }, 'first'],
    [{ something: 'else' }, 'HTTP 400 Bad Request'],
    [[1, 2, 3], 'HTTP 400 Bad Request'],
  ])('finds the message in %j', (body, message) => {
    expect(ApiError.fromResponse(400, JSON.stringify(body), h('req_1')).message).toBe(message);
  });

  it('uses the header request id when the body has none', () => {
    expect(ApiError.fromResponse(500, '{"message":"boom"}', h('req_h')).requestId).toBe('req_h');
  });

  it('takes the first line of a text body, and the title of an HTML page', () => {
    expect(ApiError.fromResponse(502, '\n  upstream timed out\nmore detail', {}).message).toBe('upstream timed out');
    expect(ApiError.fromResponse(503, '<html><head><title>503 Service Unavailable</title></head><body>x</body></html>', {}).message).toBe(
      '503 Service Unavailable',
    );
  });

  it('names the status when the body is empty', () => {
    const e = ApiError.fromResponse(401, '', h('req_e'));
    expect(e.message).toBe('HTTP 401 Unauthorized');
    expect(e.requestId).toBe('req_e');
  });

  it('clips very long messages to one line', () => {
    const e = ApiError.fromResponse(400, JSON.stringify({ message: `a\nb ${'x'.repeat(1000)}` }), {});
    expect(e.message.length).toBeLessThanOrEqual(300);
    expect(e.message).not.toContain('\n');
  });
});
