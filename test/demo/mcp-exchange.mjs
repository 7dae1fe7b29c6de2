// A real exchange with `vap mcp` (the built binary) over stdio, through the official SDK's
// client, against the emulator, printed request by response: the tools and their
// annotations; the failed calls of a billing campaign, one of them, its transcript as a
// resource, and a call that failed its purpose with its transcript; a rollback refused by
// the read-only server, refused again without confirm, then confirmed; the version history.
//
//   npm run build && node test/demo/mcp-exchange.mjs
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const BIN = fileURLToPath(new URL('../../bin/vap.js', import.meta.url));
const home = mkdtempSync(join(tmpdir(), 'vap-mcp-demo-'));
const emu = spawn(process.execPath, [BIN, 'emulator', 'start', '--port', '0', '--json', '--org', 'acme:key_acme', '--time-scale', '1000', '--seed', '7'], {
  stdio: ['ignore', 'pipe', 'ignore'],
});
const info = await new Promise((r) => createInterface({ input: emu.stdout }).once('line', (l) => r(JSON.parse(l))));
const api = async (m, p, b) =>
  (
    await (
      await fetch(info.url + p, {
        method: m,
        headers: { authorization: 'Bearer key_acme', 'x-api-key': 'key_acme', ...(b ? { 'content-type': 'application/json' } : {}) },
        body: b && JSON.stringify(b),
      })
    ).json()
  ).data;
// The billing line's agent, changed once (version 2); a campaign on it with a few calls, one of which does not connect.
const agent = await api('POST', '/api/v1/agents', {
  name: 'Billing line',
  instructions: 'You call customers about their unpaid invoices and offer a payment plan.',
  engine: 'realtime',
  variables: [],
});
await api('PATCH', `/api/v1/agents/${agent.id}`, { instructions: 'You call customers about their unpaid invoices. Insist on full payment today.' });
const campaign = await api('POST', '/api/v1/campaigns', { name: 'Billing reminders', type: 'api', direction: 'outbound', agentId: agent.id });
await api('POST', `/api/v1/campaigns/${campaign.id}/start`);
const names = ['Dana Reyes', 'Sam Ortiz', 'Lee Park', 'Kim Novak', 'Ana Silva', 'Joe Bloggs', 'Ravi Shah', 'Mia Chen'];
for (let i = 0; i < names.length; i++) await api('POST', `/api/v1/campaigns/${campaign.id}/trigger`, { phoneNumber: `+1415555014${i}`, calleeName: names[i] });
for (;;) {
  const c = await api('GET', `/api/v1/calls?campaignId=${campaign.id}`);
  if (c.calls.every((x) => ['completed', 'failed'].includes(x.status))) break;
  await new Promise((r) => setTimeout(r, 100));
}

const env = { HOME: home, PATH: process.env.PATH, VAP_BASE_URL: info.url, VAP_API_KEY: 'key_acme', VAP_STATE_DIR: join(home, 'state') };
async function connect(args) {
  const client = new Client({ name: 'closing-note', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...args], env, stderr: 'ignore' }));
  return client;
}
const show = (label, req, res) => console.log(`\n### ${label}\n> ${JSON.stringify(req)}\n< ${JSON.stringify(res, null, 1).split('\n').join('\n  ')}`);
const call = async (client, label, name, args) => {
  const res = await client.callTool({ name, arguments: args });
  show(label, { method: 'tools/call', params: { name, arguments: args } }, res.isError ? res : { structuredContent: res.structuredContent });
  return res;
};

console.log('## vap mcp (read-only), through @modelcontextprotocol/sdk Client over stdio');
const ro = await connect([]);
const { tools } = await ro.listTools();
console.log(`\n### tools/list: ${tools.length} tools`);
for (const t of tools) {
  const a = t.annotations;
  console.log(`  ${t.name.padEnd(28)} readOnly=${a.readOnlyHint} destructive=${a.destructiveHint} idempotent=${a.idempotentHint} openWorld=${a.openWorldHint}`);
}
const rb = tools.find((t) => t.name === 'vap_agents_rollback');
console.log(`\n  vap_agents_rollback description:\n    ${rb.description.split('\n').join('\n    ')}`);
const failed = await call(ro, 'the failed calls of the billing campaign', 'vap_calls_list', { campaignId: campaign.id, status: 'failed', limit: 2 });
const failedId = failed.structuredContent.data.calls[0].id;
await call(ro, 'a failed call, with its transcript', 'vap_calls_get', { callId: failedId });
const tr = await ro.readResource({ uri: `vap://calls/${failedId}/transcript` });
show('its transcript as a resource', { method: 'resources/read', params: { uri: `vap://calls/${failedId}/transcript` } }, tr);
// A call that connected but failed its purpose (not resolved): its transcript says why.
const all = await api('GET', `/api/v1/calls?campaignId=${campaign.id}&status=completed`);
let unresolved;
for (const c of all.calls) {
  const d = await api('GET', `/api/v1/calls/${c.id}`);
  if (d.analysis?.resolution && d.analysis.resolution.resolved === false) {
    unresolved = c.id;
    break;
  }
}
{
  const args = { callId: unresolved };
  const res = await ro.callTool({ name: 'vap_calls_get', arguments: args });
  const d = res.structuredContent.data;
  const trimmed = {
    ...res.structuredContent,
    data: {
      call: {
        id: d.call.id,
        status: d.call.status,
        calleeName: d.call.calleeName,
        duration: d.call.duration,
        agentVersion: d.call.agentVersion,
        summary: d.call.summary,
        analysis: { resolution: d.call.analysis.resolution, doNotCall: d.call.analysis.doNotCall, '…': '(the other groups of the analysis, left out here)' },
      },
      attention: d.attention,
      transcript: d.transcript,
    },
  };
  show(
    'a call that failed its purpose: the transcript (the analysis trimmed here to its resolution)',
    { method: 'tools/call', params: { name: 'vap_calls_get', arguments: args } },
    { structuredContent: trimmed },
  );
}
await call(ro, "the agent's versions", 'vap_agents_versions', { agentId: agent.id });
await call(ro, 'a rollback on the read-only server: refused', 'vap_agents_rollback', {
  agentId: agent.id,
  version: 1,
  reason: 'v2 pressures customers',
  confirm: agent.id,
});
await ro.close();

console.log('\n## vap mcp --allow-writes');
const rw = await connect(['--allow-writes']);
await call(rw, 'a rollback without confirm: refused', 'vap_agents_rollback', { agentId: agent.id, version: 1, reason: 'v2 pressures customers' });
await call(rw, 'the rollback, confirmed with the agent id', 'vap_agents_rollback', {
  agentId: agent.id,
  version: 1,
  reason: 'v2 pressures customers',
  confirm: agent.id,
});
await call(rw, 'the version history after it', 'vap_agents_versions', { agentId: agent.id });
await rw.close();
emu.kill();
rmSync(home, { recursive: true, force: true });
