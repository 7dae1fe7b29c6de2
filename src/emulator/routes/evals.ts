import { sendData } from '../envelope.js';
import { badRequest, notFound } from '../errors.js';
import { evalModelFor } from '../evals/model.js';
import { evalRunnerFor, type Arm } from '../evals/runner.js';
import * as v from '../evals/validate.js';
import { aggregates, resultView, runView } from '../evals/views.js';
import { eventLogFor } from '../events/log.js';
import type { EmulatorModule } from '../types.js';

/**
 * Document 1: eval suites, scenarios and runs under /api/v1/agents/{agentId}/evals,
 * and the control path for runs (/_emulator/evals/...) and the event log
 * (/_emulator/events). Thin HTTP over ../evals/ (model, runner, tester, scorer).
 */

type P = { agentId: string };
type PE = P & { evalId: string };
type PR = PE & { runId: string };
type Query = Record<string, string | undefined>;

const BASE = '/api/v1/agents/:agentId/evals';

export const evalsModule: EmulatorModule = {
  name: 'evals',
  register(app, env) {
    const model = evalModelFor(env);
    const runner = evalRunnerFor(env);
    env.onReady(() => runner.resumeAll());
    env.onClose(() => runner.close());

    const findRun = (orgId: string, p: PR) => {
      const suite = model.findSuite(orgId, p.agentId, p.evalId);
      const run = model.runs(orgId).get(p.runId);
      if (!run || run.evalId !== suite.id) throw notFound('eval run', p.runId);
      return run;
    };

    // Suites.
    app.get<{ Params: P }>(BASE, async (req, reply) => {
      const suites = model.listSuites(req.org.id, req.params.agentId);
      return sendData(req, reply, { evals: suites.map((s) => model.suiteView(req.org.id, s)) });
    });

    app.post<{ Params: P }>(BASE, async (req, reply) => {
      const s = model.createSuite(req.org.id, req.params.agentId, req.body);
      return sendData(req, reply, model.suiteView(req.org.id, s), { status: 201 });
    });

    app.get<{ Params: PE }>(`${BASE}/:evalId`, async (req, reply) => {
      const s = model.findSuite(req.org.id, req.params.agentId, req.params.evalId);
      return sendData(req, reply, model.suiteView(req.org.id, s));
    });

    app.patch<{ Params: PE }>(`${BASE}/:evalId`, async (req, reply) => {
      const s = model.updateSuite(req.org.id, req.params.agentId, req.params.evalId, req.body);
      return sendData(req, reply, model.suiteView(req.org.id, s));
    });

    app.delete<{ Params: PE }>(`${BASE}/:evalId`, async (req, reply) => {
      model.deleteSuite(req.org.id, req.params.agentId, req.params.evalId);
      return sendData(req, reply, { deleted: true });
    });

    // Scenarios.
    app.get<{ Params: PE }>(`${BASE}/:evalId/scenarios`, async (req, reply) => {
      const list = model.listScenarios(req.org.id, req.params.agentId, req.params.evalId);
      return sendData(req, reply, { scenarios: list.map((s) => model.scenarioView(s)) });
    });

    app.post<{ Params: PE }>(`${BASE}/:evalId/scenarios`, async (req, reply) => {
      const s = model.createScenario(req.org.id, req.params.agentId, req.params.evalId, req.body);
      return sendData(req, reply, model.scenarioView(s), { status: 201 });
    });

    // Runs.
    app.post<{ Params: PE }>(`${BASE}/:evalId/runs`, async (req, reply) => {
      const suite = model.findSuite(req.org.id, req.params.agentId, req.params.evalId);
      const body = v.objectBody(req.body);
      const extra = Object.keys(body)[0];
      if (extra !== undefined) v.fail(extra, 'is not accepted: starting a run takes no body');
      const run = runner.start(req.org.id, suite);
      return sendData(req, reply, runView(run), { status: 201 });
    });

    app.get<{ Params: PE }>(`${BASE}/:evalId/runs`, async (req, reply) => {
      const suite = model.findSuite(req.org.id, req.params.agentId, req.params.evalId);
      return sendData(req, reply, { runs: model.listRuns(req.org.id, suite.id).map(runView) });
    });

    app.get<{ Params: PR }>(`${BASE}/:evalId/runs/:runId`, async (req, reply) => {
      const run = findRun(req.org.id, req.params);
      return sendData(req, reply, { run: runView(run), aggregates: aggregates(run, runner.resultsOf(req.org.id, run.id)) });
    });

    app.delete<{ Params: PR }>(`${BASE}/:evalId/runs/:runId`, async (req, reply) => {
      const run = findRun(req.org.id, req.params);
      runner.deleteRun(req.org.id, run);
      return sendData(req, reply, { deleted: true });
    });

    app.get<{ Params: PR }>(`${BASE}/:evalId/runs/:runId/results`, async (req, reply) => {
      const run = findRun(req.org.id, req.params);
      return sendData(req, reply, { results: runner.resultsOf(req.org.id, run.id).map((x) => resultView(x, run)) });
    });

    // Control path (no auth): the next run fails or is held; a held run is released.
    app.post('/_emulator/evals/next-run', async (req) => {
      const body = v.objectBody(req.body);
      v.onlyFields(body, ['outcome', 'reason', 'evalId']);
      if (body.outcome !== 'fail' && body.outcome !== 'hold') v.fail('outcome', 'must be one of: fail, hold');
      const reason = v.text(body, 'reason', { max: 1000 }) ?? null;
      const evalId = v.text(body, 'evalId', { max: 200 }) ?? null;
      return { armed: runner.arm({ outcome: body.outcome, reason, evalId } as Arm) };
    });

    app.delete('/_emulator/evals/next-run', async () => ({ disarmed: runner.disarm() }));

    // Control path: a known truth for calibration (README, "Score shifts").
    app.post('/_emulator/evals/score-shift', async (req) => runner.addShift(v.scoreShift(req.body)));
    app.delete<{ Params: { id: string } }>('/_emulator/evals/score-shift/:id', async (req) => {
      if (!runner.removeShift(req.params.id)) throw notFound('score shift', req.params.id);
      return { deleted: true };
    });

    app.post<{ Params: { runId: string } }>('/_emulator/evals/runs/:runId/release', async (req) => {
      const r = runner.release(req.params.runId);
      if (!r) throw notFound('eval run', req.params.runId);
      return { released: r.released, run: runView(r.run) };
    });

    // The event log of every organization (or one), with the real time of each append.
    app.get<{ Querystring: Query }>('/_emulator/events', async (req) => {
      const which = req.query.org;
      let orgId: string | undefined;
      if (which) {
        const org = env.orgs.find((o) => o.name === which || o.id === which);
        if (!org)
          throw badRequest(`org: no organization named "${which}" (known: ${env.orgs.map((o) => o.name).join(', ')})`, [
            { field: 'org', message: 'unknown organization' },
          ]);
        orgId = org.id;
      }
      const types = req.query.type
        ? new Set(
            req.query.type
              .split(',')
              .map((t) => t.trim())
              .filter(Boolean),
          )
        : null;
      const orgName = new Map(env.orgs.map((o) => [o.id, o.name]));
      const events = eventLogFor(env)
        .all(orgId)
        .filter((e) => !types || types.has(e.type))
        .map((e) => ({
          id: e.id,
          type: e.type,
          organizationId: e.organizationId,
          callId: e.callId,
          occurredAt: e.occurredAt,
          data: e.data,
          realTimeMs: e.realTimeMs,
          org: orgName.get(e.organizationId) ?? null,
          streamOnly: e.streamOnly,
        }));
      return { events };
    });
  },
};
