import type { ApiClient } from '../api/client.js';
import type { Context } from '../context.js';
import { InterruptedError } from '../errors.js';
import { drawsInPlace } from '../ui/accessible.js';
import { triageAll, type TriageProgress } from './imports-bridge.js';
import { LiveLine } from '../ui/live-line.js';
import { safeText } from '../ui/safe-text.js';

/** A bar redrawn in place on a terminal's stderr; plain lines per batch when stderr is piped or VAP_ACCESSIBLE is set; nothing under -q. */
function progressWriter(ctx: Context): { update(p: TriageProgress): void; stop(): void } {
  if (ctx.globals.quiet) return { update() {}, stop() {} };
  if (!drawsInPlace(ctx)) {
    return { update: (p) => ctx.io.stderr.write(`${safeText(`triaged ${p.triaged}/${p.total}`)}\n`), stop() {} };
  }
  const line = new LiveLine(ctx.io.stderr);
  return {
    update(p) {
      const ratio = p.total > 0 ? Math.min(1, p.triaged / p.total) : 1;
      line.drawBar(ratio, `${safeText(`${p.triaged}/${p.total}`)} calls`, 'Triage ');
    },
    stop() {
      line.keep();
    },
  };
}

/**
 * Step 6: triage in batches. Each batch commits on the server, so Ctrl-C (or a failure) loses
 * at most the batch in flight, and running the wizard again resumes the import.
 */
export async function triageImport(
  ids: { agentId: string; evalId: string; importId: string },
  start: { triaged: number; total: number },
  batchSize: number,
  api: ApiClient,
  ctx: Context,
): Promise<{ triaged: number; total: number }> {
  const bar = progressWriter(ctx);
  bar.update({ ...start, processed: 0, remaining: start.total - start.triaged });
  const resumeHint = `run \`vap evals import --agent ${ids.agentId} --eval ${ids.evalId} --import ${ids.importId}\` to resume`;
  try {
    return await triageAll(api, { ...ids, batchSize, signal: ctx.signal, onProgress: (p) => bar.update(p) });
  } catch (err) {
    bar.stop();
    if (ctx.signal.aborted || err instanceof InterruptedError || (err as Error).name === 'AbortError') {
      throw new InterruptedError(`interrupted; the batches triaged so far are kept — ${resumeHint}`);
    }
    if (err instanceof Error && !('hint' in err && err.hint)) Object.assign(err, { hint: resumeHint });
    throw err;
  } finally {
    bar.stop();
  }
}
