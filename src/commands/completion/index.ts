import { Argument } from 'commander';
import { SHELLS, type Shell } from '../../completion/scripts.js';
import { action } from '../action.js';
import type { RegisterGroup } from '../types.js';

export const register: RegisterGroup = (group, makeContext, host) => {
  group
    .addArgument(new Argument('<shell>', 'the shell to complete for').choices(SHELLS))
    .addHelpText(
      'after',
      `
Examples:
  $ source <(vap completion bash)
  $ vap completion zsh > "\${fpath[1]}/_vap"
  $ vap completion fish > ~/.config/fish/completions/vap.fish`,
    )
    .action(
      action(makeContext, async (args, _opts, ctx) => {
        const [{ completionTree }, { completionScript }, { listTopics }] = await Promise.all([
          import('../../completion/tree.js'),
          import('../../completion/scripts.js'),
          import('../../help/topics.js'),
        ]);
        if (!host) throw new Error('vap completion is registered without the program that holds the command tree');
        const full = await host.fullTree();
        ctx.io.stdout.write(completionScript(args[0] as Shell, completionTree(full, listTopics())));
      }),
    );
};
