import type { ApiClient } from './client.js';
import { apiPath } from './path.js';
import type { StreamResponse } from './types.js';
import type { Voice } from '../spec/agents.js';

/** `language`: a BCP 47 tag (`es-MX`) or a bare code (`es` matches every Spanish voice). */
export async function listVoices(api: ApiClient, opts: { language?: string } = {}, signal?: AbortSignal): Promise<Voice[]> {
  const res = await api.request<{ voices: Voice[] }>({ method: 'GET', path: '/api/v1/voices', auth: 'bearer', query: { language: opts.language }, signal });
  return res.data?.voices ?? [];
}

/** The preview, streamed as the service sends it (`audio/mpeg`, not a JSON envelope). */
export async function streamVoicePreview(api: ApiClient, voiceId: string, signal?: AbortSignal): Promise<StreamResponse> {
  return api.stream({ method: 'GET', path: apiPath`/api/v1/voices/${voiceId}/preview`, auth: 'bearer', accept: 'audio/mpeg', signal });
}
