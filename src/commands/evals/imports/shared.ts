import type { CallImport } from '../../../api/eval-imports.js';
import type { Column } from '../../../ui/format.js';
import { count } from '../../../ui/values.js';

export const IMPORT_FIELDS: Column<CallImport>[] = [
  { header: 'id', value: (i) => i.id },
  { header: 'label', value: (i) => i.label },
  { header: 'status', value: (i) => i.status },
  { header: 'total calls', value: (i) => count(i.totalCalls) },
  { header: 'triaged calls', value: (i) => count(i.triagedCalls) },
  { header: 'source', value: (i) => i.source },
];
