import { agentModelFor } from '../agents/model.js';
import { contactsCollection, LISTS, type StoredContact, type StoredList } from '../contacts/model.js';
import { personOf } from './people.js';
import { conflict, HttpError, unprocessable } from '../errors.js';
import { eventLogFor } from '../events/log.js';
import type { ModuleEnv, Org } from '../types.js';
import { telephonyFor } from './model.js';
import { phoneNumbersFor } from './phone-numbers.js';
import { simulatorFor } from './simulator.js';
import type { CallRecord, CampaignRecord, Direction } from './types.js';
import { checkPhone } from '../../spec/contact-validate.js';
import { fail, int, isoMs, objectBody, oneOf, onlyFields, str } from './validate.js';
import type { CampaignStatus } from '../../spec/calls.js';

/** Campaign changes: create, update, delete, start, pause, contacts, queue, trigger (choices: /work/notes/calls-contract.md). */

export const LIMITS = { name: 200, description: 2000, contactIdsPerRequest: 1000 } as const;

const CREATE_FIELDS = ['name', 'description', 'direction', 'type', 'contactListId', 'agentId', 'agent', 'workspaceId', 'provisionedPhoneNumberId'] as const;
const PATCH_FIELDS = ['name', 'description', 'agentId', 'agent', 'workspaceId'] as const;

export function campaignService(env: ModuleEnv) {
  const model = telephonyFor(env);
  const sim = simulatorFor(env);
  const agents = agentModelFor(env);
  const now = () => env.clock.iso();

  const publish = (org: Org, c: CampaignRecord, previousStatus: CampaignStatus) =>
    eventLogFor(env).append(org.id, { type: 'campaign.status.updated', callId: null, data: { campaignId: c.id, status: c.status, previousStatus } });

  const agentField = (body: Record<string, unknown>) => {
    const a = body.agent;
    if (a === undefined || a === null) return a as null | undefined;
    if (typeof a !== 'object' || Array.isArray(a)) fail('agent', 'must be an object { type }');
    const t = (a as Record<string, unknown>).type;
    if (typeof t !== 'string' || t.trim() === '') fail('agent.type', 'must be a non-empty string');
    return { type: t };
  };

  const checkAgent = (org: Org, agentId: string) => {
    if (!agents.find(org.id, agentId))
      throw unprocessable('agent_not_found', `agent ${agentId} does not exist in this organization (GET /api/v1/agents lists them)`, [
        { field: 'agentId', message: 'unknown agent' },
      ]);
  };

  const list = (org: Org, id: string): StoredList | undefined => env.store.collection<StoredList>(org.id, LISTS).get(id);

  return {
    create(org: Org, raw: unknown): CampaignRecord {
      const body = objectBody(raw);
      onlyFields(body, CREATE_FIELDS);
      const name = str(body, 'name', { required: true, max: LIMITS.name })!.trim();
      const description = str(body, 'description', { max: LIMITS.description }) ?? '';
      const type = oneOf(body.type, 'type', ['api', 'standard'] as const) ?? 'standard';
      const direction: Direction =
        oneOf(body.direction, 'direction', ['outbound', 'inbound'] as const) ??
        (type === 'api' ? 'outbound' : fail('direction', 'is required (outbound or inbound), unless type is api'));
      const agentId = str(body, 'agentId', { required: true, max: 200 })!;
      const agent = agentField(body) ?? null;
      const workspaceId = str(body, 'workspaceId', { max: 200 }) ?? null;
      const contactListId = str(body, 'contactListId', { max: 200 });
      const pnId = str(body, 'provisionedPhoneNumberId', { max: 200 });
      if (type === 'api') {
        if (direction !== 'outbound') fail('direction', 'an API campaign places outbound calls only');
        if (contactListId !== undefined) fail('contactListId', 'an API campaign has no contact list (its calls are triggered one by one)');
      }
      if (direction === 'outbound' && pnId !== undefined) fail('provisionedPhoneNumberId', 'is for inbound campaigns only');
      if (type === 'standard' && direction === 'outbound' && contactListId === undefined) fail('contactListId', 'is required for an outbound campaign');
      if (direction === 'inbound' && pnId === undefined)
        fail('provisionedPhoneNumberId', 'is required for an inbound campaign (GET /_emulator/phone-numbers lists the seeded numbers)');
      checkAgent(org, agentId);
      let listName: string | null = null;
      if (contactListId !== undefined) {
        const l = list(org, contactListId);
        if (!l)
          throw unprocessable('contact_list_not_found', `contact list ${contactListId} does not exist in this organization`, [
            { field: 'contactListId', message: 'unknown contact list' },
          ]);
        listName = l.name;
      }
      let phoneNumber: string | null = null;
      if (pnId !== undefined) {
        const pn = phoneNumbersFor(env.options.seed, org.id).find((p) => p.id === pnId);
        if (!pn)
          throw unprocessable('phone_number_not_found', `phone number ${pnId} is not provisioned for this organization`, [
            { field: 'provisionedPhoneNumberId', message: 'unknown phone number' },
          ]);
        phoneNumber = pn.phoneNumber;
      }
      const at = now();
      const c: CampaignRecord = {
        id: env.ids.uuid('campaign'),
        name,
        description,
        status: 'draft',
        direction,
        type,
        contactListId: contactListId ?? null,
        contactListName: listName,
        agentId,
        agent,
        workspaceId,
        provisionedPhoneNumberId: pnId ?? null,
        phoneNumber,
        createdAt: at,
        updatedAt: at,
        startedAt: null,
        completedAt: null,
        currentRunId: null,
        nextInboundAt: null,
        inboundCount: 0,
        placedAny: false,
      };
      model.campaignMap(org.id).set(c.id, c);
      return c;
    },

    update(org: Org, id: string, raw: unknown): CampaignRecord {
      const c = model.campaign(org.id, id);
      const body = objectBody(raw);
      onlyFields(body, PATCH_FIELDS, {
        status: 'is changed with POST /api/v1/campaigns/{id}/start or /pause',
        direction: 'cannot change after creation',
        type: 'cannot change after creation',
        contactListId: 'cannot change after creation',
        provisionedPhoneNumberId: 'cannot change after creation',
      });
      if (Object.keys(body).length === 0) fail('body', `names no field to change (${PATCH_FIELDS.join(', ')})`);
      if (c.status === 'completed') throw conflict('campaign_completed', `campaign ${c.id} is completed and can no longer be changed`);
      const name = str(body, 'name', { max: LIMITS.name });
      const description = str(body, 'description', { max: LIMITS.description });
      const agentId = str(body, 'agentId', { max: 200, min: 1 });
      const agent = agentField(body);
      const workspaceId = body.workspaceId === null ? null : str(body, 'workspaceId', { max: 200 });
      if (agentId !== undefined) checkAgent(org, agentId);
      if (name !== undefined) {
        if (!name.trim()) fail('name', 'must not be empty');
        c.name = name.trim();
      }
      if (description !== undefined) c.description = description;
      if (agentId !== undefined) c.agentId = agentId;
      if (agent !== undefined) c.agent = agent;
      if (workspaceId !== undefined) c.workspaceId = workspaceId;
      c.updatedAt = now();
      model.campaignMap(org.id).touch(c.id);
      return c;
    },

    delete(org: Org, id: string): void {
      const c = model.campaign(org.id, id);
      if (c.status === 'active')
        throw conflict('campaign_active', `campaign ${c.id} is active; pause it first (POST /api/v1/campaigns/${c.id}/pause), then delete it`);
      for (const call of sim.queuedOf(c.id)) sim.cancel(org.id, call);
      model.dropCampaignState(org.id, c.id);
    },

    start(org: Org, id: string): CampaignRecord {
      const c = model.campaign(org.id, id);
      if (c.status !== 'draft' && c.status !== 'paused') {
        throw conflict(
          'invalid_transition',
          `campaign ${c.id} is ${c.status}; only a draft or paused campaign can be started${c.status === 'completed' ? ' (completed is final)' : ''}`,
        );
      }
      const prev = c.status;
      const at = now();
      const run = { id: env.ids.uuid('run'), campaignId: c.id, startedAt: at, endedAt: null };
      model.runList(org.id, c.id).set(run.id, run);
      c.currentRunId = run.id;
      c.status = 'active';
      c.startedAt ??= at;
      c.updatedAt = at;
      c.nextInboundAt = null;
      model.campaignMap(org.id).touch(c.id);
      publish(org, c, prev);
      return c;
    },

    pause(org: Org, id: string): CampaignRecord {
      const c = model.campaign(org.id, id);
      if (c.status !== 'active') throw conflict('invalid_transition', `campaign ${c.id} is ${c.status}; only an active campaign can be paused`);
      const at = now();
      const runs = model.runList(org.id, c.id);
      const run = c.currentRunId ? runs.get(c.currentRunId) : undefined;
      if (run) {
        run.endedAt = at;
        runs.touch(run.id);
      }
      c.currentRunId = null;
      c.status = 'paused';
      c.nextInboundAt = null;
      c.updatedAt = at;
      model.campaignMap(org.id).touch(c.id);
      publish(org, c, 'active');
      return c;
    },

    addContacts(org: Org, id: string, raw: unknown): { added: number; skipped: number } {
      const c = model.campaign(org.id, id);
      const body = objectBody(raw);
      onlyFields(body, ['contactIds']);
      const ids = contactIdsOf(body);
      if (c.type === 'api')
        throw unprocessable('api_campaign', `campaign ${c.id} is an API campaign: it has no contacts (POST /api/v1/campaigns/${c.id}/trigger places calls)`);
      if (c.status === 'completed') throw conflict('campaign_completed', `campaign ${c.id} is completed; contacts can no longer be added`);
      if (!c.contactListId) throw unprocessable('no_contact_list', `campaign ${c.id} has no contact list to take contacts from`);
      const l = list(org, c.contactListId);
      const stored = env.store.collection<StoredContact>(org.id, contactsCollection(c.contactListId));
      const missing = l ? ids.filter((x) => !stored.has(x)) : ids;
      if (missing.length > 0) {
        throw unprocessable(
          'contacts_not_in_list',
          `${missing.length === 1 ? 'contact' : 'contacts'} ${missing.slice(0, 20).join(', ')}${missing.length > 20 ? ` and ${missing.length - 20} more` : ''} ${missing.length === 1 ? 'is' : 'are'} not in the campaign's contact list ${c.contactListId}; nothing was added`,
          missing.map((m) => ({ field: `contactIds[${ids.indexOf(m)}]`, message: 'not in the contact list' })),
        );
      }
      const contacts = model.contactsOf(org.id, c.id);
      let added = 0;
      let skipped = 0;
      const at = now();
      for (const cid of ids) {
        if (contacts.has(cid)) {
          skipped++;
          continue;
        }
        const p = personOf(l!, stored.get(cid)!);
        contacts.set(cid, { contactId: cid, name: p.name, phoneNumber: p.phoneNumber, status: 'pending', addedAt: at, lastCallId: null });
        added++;
      }
      c.updatedAt = at;
      model.campaignMap(org.id).touch(c.id);
      return { added, skipped };
    },

    removeContact(org: Org, id: string, contactId: string): void {
      const c = model.campaign(org.id, id);
      const contacts = model.contactsOf(org.id, c.id);
      if (!contacts.has(contactId)) throw new HttpError(404, 'not_found', `contact ${contactId} is not in campaign ${c.id}`);
      for (const call of sim.queuedOf(c.id)) if (call.contactId === contactId) sim.cancel(org.id, call);
      contacts.delete(contactId);
      c.updatedAt = now();
      model.campaignMap(org.id).touch(c.id);
    },

    queueCalls(org: Org, id: string, raw: unknown): CallRecord[] {
      const c = model.campaign(org.id, id);
      const body = objectBody(raw);
      onlyFields(body, ['contactIds', 'queueAllPending', 'priority', 'scheduledFor']);
      const all = body.queueAllPending;
      if (all !== undefined && typeof all !== 'boolean') fail('queueAllPending', 'must be true or false');
      const hasIds = body.contactIds !== undefined;
      if (hasIds === (all === true)) fail(hasIds ? 'queueAllPending' : 'contactIds', 'give exactly one of contactIds or queueAllPending: true');
      const ids = hasIds ? contactIdsOf(body) : [];
      const priority = int(body.priority, 'priority', 1, 10) ?? 5;
      const scheduledFor = scheduled(body.scheduledFor, env.clock.nowMs());
      if (c.type === 'api')
        throw unprocessable('api_campaign', `campaign ${c.id} is an API campaign; place its calls with POST /api/v1/campaigns/${c.id}/trigger`);
      if (c.direction === 'inbound') throw unprocessable('inbound_campaign', `campaign ${c.id} is inbound; it receives calls and cannot queue any`);
      if (c.status === 'completed') throw conflict('campaign_completed', `campaign ${c.id} is completed; no more calls can be queued`);
      const contacts = model.contactsOf(org.id, c.id);
      if (hasIds) {
        const missing = ids.filter((x) => !contacts.has(x));
        if (missing.length > 0) {
          throw unprocessable(
            'contacts_not_in_campaign',
            `${missing.length === 1 ? 'contact' : 'contacts'} ${missing.slice(0, 20).join(', ')} ${missing.length === 1 ? 'is' : 'are'} not in campaign ${c.id} (add them with POST /api/v1/campaigns/${c.id}/contacts); nothing was queued`,
            missing.map((m) => ({ field: `contactIds[${ids.indexOf(m)}]`, message: 'not a contact of the campaign' })),
          );
        }
      }
      const targets = hasIds
        ? ids.map((x) => contacts.get(x)!)
        : model.contactIndex(org.id, c.id).page({ facet: 'status', values: ['pending'] }, 0, Number.MAX_SAFE_INTEGER, false);
      const out: CallRecord[] = [];
      for (const t of targets) {
        if (t.status === 'queued') continue;
        const call = sim.newCall(org.id, c, { phoneNumber: t.phoneNumber, calleeName: t.name, contactId: t.contactId, priority, scheduledFor });
        sim.queue(org.id, call);
        t.status = 'queued';
        t.lastCallId = call.id;
        contacts.touch(t.contactId);
        out.push(call);
      }
      return out;
    },

    trigger(org: Org, id: string, raw: unknown): CallRecord {
      const c = model.campaign(org.id, id);
      const body = objectBody(raw);
      onlyFields(body, ['phoneNumber', 'calleeName', 'scheduledFor']);
      const given = str(body, 'phoneNumber', { required: true, max: 40 })!.trim();
      // The phone rule of contact imports (src/spec/contact-validate.ts): stored in E.164.
      const checked = checkPhone(given);
      if (!checked.ok) fail('phoneNumber', `must be an E.164 number such as +14155550123: ${checked.reason}`);
      const phone = String(checked.value);
      const calleeName = str(body, 'calleeName', { max: 200 }) ?? '';
      const scheduledFor = scheduled(body.scheduledFor, env.clock.nowMs());
      if (c.type !== 'api')
        throw unprocessable(
          'not_api_campaign',
          `campaign ${c.id} is not an API campaign (type api); queue its calls with POST /api/v1/campaigns/${c.id}/calls`,
        );
      if (c.status !== 'active')
        throw conflict('campaign_not_active', `campaign ${c.id} is ${c.status}; start it (POST /api/v1/campaigns/${c.id}/start) before triggering calls`);
      const call = sim.newCall(org.id, c, { phoneNumber: phone, calleeName: calleeName.trim(), contactId: null, priority: 10, scheduledFor });
      sim.queue(org.id, call);
      return call;
    },
  };
}

function contactIdsOf(body: Record<string, unknown>): string[] {
  const ids = body.contactIds;
  if (!Array.isArray(ids)) fail('contactIds', 'must be an array of contact ids');
  if (ids.length < 1 || ids.length > LIMITS.contactIdsPerRequest) fail('contactIds', `must hold 1 to ${LIMITS.contactIdsPerRequest} ids`);
  const out: string[] = [];
  ids.forEach((x, i) => {
    if (typeof x !== 'string' || x === '') fail(`contactIds[${i}]`, 'must be a non-empty string');
    if (!out.includes(x)) out.push(x);
  });
  return out;
}

/** scheduledFor: an ISO timestamp not before now − 1 min; null when absent. */
function scheduled(value: unknown, nowMs: number): string | null {
  const ms = isoMs(value, 'scheduledFor');
  if (ms === undefined) return null;
  if (ms < nowMs - 60_000) fail('scheduledFor', `is in the past (${new Date(ms).toISOString()}); give a time from now on`);
  return new Date(ms).toISOString();
}
