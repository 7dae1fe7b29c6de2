/** A score on 0..1 as vap prints it: the one standard of src/ui/values.ts (three decimals, `–` when there is none). */
export { formatScore as fmtScore } from '../../ui/values.js';
