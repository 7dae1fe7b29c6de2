import { z } from 'zod';
import type { ProjectPort } from '../../ascode/port.js';
import { safeMessage } from '../../ui/safe-text.js';
import { defineTool, type ToolEnv } from '../tool.js';

export const ascodeTools = [
  defineTool({
    name: 'vap_ascode_diff',
    title: 'The as-code plan of a folder',
    description:
      "What `vap diff` shows for an agents-as-code folder (vap.yaml, agents/<slug>/agent.md, suites and webhooks as YAML): each agent, eval suite and webhook endpoint compared three ways (the files, the last sync in .vap/state.<profile>.json, the platform now) as unchanged, create, update (field by field, platform and files), delete, drift, conflict or blocked, for the server's profile. Reads the files and the platform; changes nothing.",
    input: { dir: z.string().min(1).describe('The project folder, or a folder inside it (vap.yaml is found by walking up).') },
    output: z.object({
      plan: z.looseObject({
        profile: z.string().nullish(),
        changes: z.boolean().nullish(),
        summary: z.looseObject({}).nullish(),
        resources: z.array(z.looseObject({})).nullish(),
        untracked: z.array(z.looseObject({})).nullish(),
      }),
      log: z.array(z.string()),
    }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      const [{ planFolder }, { planJson }] = await Promise.all([import('../../ascode/plan-folder.js'), import('../../ascode/render.js')]);
      const log: string[] = [];
      try {
        const { plan, changed } = await planFolder(headlessPort(env, log), { dir: a.dir });
        return { data: { plan: planJson(plan, changed), log }, rest: 'run `vap diff` in the folder for the whole plan' };
      } catch (err) {
        throw withLog(err, log);
      }
    },
  }),
];

/** No terminal: no spinner, every question answered as --yes does, and each line made safe into the log. */
function headlessPort(env: ToolEnv, log: string[]): ProjectPort {
  return {
    signal: env.signal,
    api: async () => env.api,
    credentials: env.credentials,
    credentialsFor: () => env.credentials(),
    info: (line) => void log.push(safeMessage(line)),
    warn: async (line) => void log.push(`! ${safeMessage(line)}`),
    note: (line) => void log.push(safeMessage(line)),
    spinner: async () => ({ stop() {} }),
    yes: true,
  };
}

/** A failed plan: the problems the files have (one per line, as `vap diff` prints them) go with the error. */
function withLog(err: unknown, log: string[]): unknown {
  if (log.length === 0 || !(err instanceof Error)) return err;
  err.message = `${err.message}\n${log.join('\n')}`;
  return err;
}
