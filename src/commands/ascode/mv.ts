import type { Context, GlobalOptions } from '../../context.js';
import { safeText } from '../../ui/safe-text.js';
import { action } from '../action.js';
import type { RegisterGroup } from '../types.js';
import { addDirOption, type DirOptions } from './common.js';

export const register: RegisterGroup = (cmd, makeContext) => {
  addDirOption(cmd)
    .description("Rename an agent's folder, a suite's or a webhook's file, and its entries in every profile's state (a rename, not a delete and a create)")
    .argument('<old>', 'what to rename: <agent>, agents/<agent>, <agent>/evals/<suite>, or webhooks/<slug>')
    .argument('<new>', 'the new slug (or the same forms)')
    .addHelpText(
      'after',
      `
Nothing is sent: the platform ids stay, only the names in this folder change.

Examples:
  $ vap mv front-desk reception
  $ vap mv reception/evals/booking booking-happy-paths
  $ vap mv webhooks/crm webhooks/crm-events`,
    )
    .action(action<DirOptions>(makeContext, (args, opts, ctx) => run(args[0]!, args[1]!, opts, ctx)));
};

export async function run(from: string, to: string, opts: DirOptions & GlobalOptions, ctx: Context): Promise<void> {
  const [{ findRoot, noProjectError }, { ProjectFs, checkLayout }, { move }] = await Promise.all([
    import('../../ascode/project.js'),
    import('../../ascode/paths.js'),
    import('../../ascode/mv.js'),
  ]);
  const start = opts.dir ?? '.';
  const root = findRoot(start);
  if (!root) throw noProjectError(start);
  const fs = new ProjectFs(root);
  checkLayout(fs);
  const r = await move(fs, from, to);
  await ctx.success(
    `Renamed ${safeText(r.from)} → ${safeText(r.to)}${r.profiles.length ? ` (state of ${r.profiles.map((p) => safeText(p)).join(', ')} updated)` : ''}`,
  );
}
