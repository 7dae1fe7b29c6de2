import { z } from 'zod';
import { listVoices } from '../../api/voices.js';
import { limitOf, listInput, listOutput, openCursor } from '../paging.js';
import * as S from '../schemas.js';
import { defineTool } from '../tool.js';

export const voiceTools = [
  defineTool({
    name: 'vap_voices_list',
    title: 'List voices',
    description:
      'The voices agents can speak with: id, name, description and language. language filters by a BCP 47 tag or a bare code (es matches every Spanish voice).',
    input: { language: z.string().optional().describe('A BCP 47 tag (es-MX) or a bare language code (es).'), ...listInput },
    output: z.object({ voices: z.array(S.voice), total: S.num }),
    idempotent: true,
    openWorld: false,
    async run(a, env) {
      const { pos, filters } = openCursor(env.tool, a.cursor, { language: a.language });
      const offset = pos.o ?? 0;
      const all = await listVoices(env.api, { language: filters.language as string | undefined }, env.signal);
      const items = all.slice(offset, offset + limitOf(a.limit));
      return listOutput({ tool: env.tool, key: 'voices', filters }, items, offset + items.length < all.length, (n) => ({ o: offset + n }), all.length);
    },
  }),
];
