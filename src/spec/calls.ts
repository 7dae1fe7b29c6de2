/** Wire types of calls and campaigns (document 2). */

export type CallStatus = 'queued' | 'initiated' | 'ringing' | 'in_progress' | 'completed' | 'failed' | 'cancelled';
export const CALL_STATUSES: readonly CallStatus[] = ['queued', 'initiated', 'ringing', 'in_progress', 'completed', 'failed', 'cancelled'];

export type CampaignStatus = 'draft' | 'active' | 'paused' | 'completed';
export const CAMPAIGN_STATUSES: readonly CampaignStatus[] = ['draft', 'active', 'paused', 'completed'];
