import type { CallRecord, CampaignContactRecord, CampaignRecord } from './types.js';

/** The campaign record of every campaign response (listing items too). */
export function renderCampaign(c: CampaignRecord, totalContacts: number, pendingContacts: number): Record<string, unknown> {
  return {
    id: c.id,
    name: c.name,
    description: c.description,
    status: c.status,
    direction: c.direction,
    type: c.type,
    contactListId: c.contactListId,
    contactListName: c.contactListName,
    totalContacts,
    pendingContacts,
    agentId: c.agentId,
    agent: c.agent,
    workspaceId: c.workspaceId,
    provisionedPhoneNumberId: c.provisionedPhoneNumberId,
    phoneNumber: c.phoneNumber,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    startedAt: c.startedAt,
    completedAt: c.completedAt,
  };
}

/** The call of listings (the spec's fields and a few more; never summary or analysis). */
export function renderCall(c: CallRecord): Record<string, unknown> {
  return {
    id: c.id,
    campaignId: c.campaignId,
    phoneNumber: c.phoneNumber,
    calleeName: c.calleeName,
    status: c.status,
    direction: c.direction,
    duration: c.duration,
    createdAt: c.createdAt,
    endedAt: c.endedAt,
    contactId: c.contactId,
    priority: c.priority,
    scheduledFor: c.scheduledFor,
    startedAt: c.startedAt,
    failureReason: c.failureReason,
    agentId: c.agentId,
    agentVersion: c.agentVersion,
  };
}

export function renderCampaignContact(c: CampaignContactRecord): Record<string, unknown> {
  return { contactId: c.contactId, name: c.name, phoneNumber: c.phoneNumber, status: c.status, addedAt: c.addedAt, lastCallId: c.lastCallId };
}

export function pagination(page: number, pageSize: number, total: number): { page: number; pageSize: number; total: number; totalPages: number } {
  return { page, pageSize, total, totalPages: Math.ceil(total / pageSize) };
}
