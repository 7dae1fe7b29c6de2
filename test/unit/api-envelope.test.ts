import { describe, expect, it } from 'vitest';
import { unwrapEnvelope } from '../../src/api/envelope.js';

describe('unwrapEnvelope', () => {
  it('document 1: { data, meta: { requestId, pagination } }', () => {
    const r = unwrapEnvelope(
      { data: { agents: [{ id: 'a' }] }, meta: { requestId: 'req_1', pagination: { nextCursor: '2', limit: 50 } } },
      'auto',
      200,
      'req_h',
    );
    expect(r.data).toEqual({ agents: [{ id: 'a' }] });
    expect(r.requestId).toBe('req_1');
    expect(r.pagination).toEqual({ nextCursor: '2', limit: 50 });
  });

  it('document 2 listing: { data: [...], pagination }', () => {
    const r = unwrapEnvelope({ data: [{ id: 'cl_1' }], pagination: { page: 1, limit: 20, total: 1, totalPages: 1 } }, 'auto', 200, 'req_h');
    expect(r.data).toEqual([{ id: 'cl_1' }]);
    expect(r.pagination).toEqual({ page: 1, limit: 20, total: 1, totalPages: 1 });
    expect(r.requestId).toBe('req_h');
  });

  it('document 2 calls: pagination inside data', () => {
    const r = unwrapEnvelope({ data: { calls: [], pagination: { page: 2, pageSize: 50, total: 51, totalPages: 2 }, summary: {} } }, 'auto', 200);
    expect(r.pagination).toEqual({ page: 2, limit: 50, total: 51, totalPages: 2 });
  });

  it('bare objects (import jobs)', () => {
    const job = { id: 'job_1', status: 'pending', progress: { total: 1, processed: 0, successful: 0, failed: 0 } };
    expect(unwrapEnvelope(job, 'auto', 200, 'req_h')).toEqual({ data: job, status: 200, requestId: 'req_h' });
    expect(unwrapEnvelope({ data: 'x' }, 'bare', 202).data).toEqual({ data: 'x' });
  });

  it('nextCursor null means no next page', () => {
    expect(unwrapEnvelope({ data: {}, meta: { requestId: 'r', pagination: { nextCursor: null, limit: 5 } } }, 'meta', 200).pagination).toEqual({
      nextCursor: null,
      limit: 5,
    });
  });
});
