// The triage loop and scenario creation are shared with `vap evals imports …` (EMU-IMPORTS's
// src/evals/imports/); the wizard reaches them through this one module.
export { triageAll, type TriageProgress } from '../evals/imports/triage.js';
export { createScenarios } from '../evals/imports/create-scenarios.js';
