// `npm run bench`: every benchmark of the project, in one run, printed as ratios
// against baselines measured in the same run. Nothing here is asserted by tests.
import { existsSync } from 'node:fs';

const { benchStartup } = await import('./startup.mjs');
await benchStartup();

if (existsSync(new URL('./contacts.mjs', import.meta.url))) {
  const mod = await import('./contacts.mjs');
  if (typeof mod.benchContacts === 'function') await mod.benchContacts();
}

if (existsSync(new URL('./evals.mjs', import.meta.url))) {
  const mod = await import('./evals.mjs');
  if (typeof mod.benchEvals === 'function') await mod.benchEvals();
}

if (existsSync(new URL('./calibration.mjs', import.meta.url))) {
  const mod = await import('./calibration.mjs');
  if (typeof mod.benchCalibration === 'function') await mod.benchCalibration();
}

if (existsSync(new URL('./reports.mjs', import.meta.url))) {
  const mod = await import('./reports.mjs');
  if (typeof mod.benchReports === 'function') await mod.benchReports();
}

if (existsSync(new URL('./events.mjs', import.meta.url))) {
  const mod = await import('./events.mjs');
  if (typeof mod.benchEvents === 'function') await mod.benchEvents();
}

if (existsSync(new URL('./calls.mjs', import.meta.url))) {
  const mod = await import('./calls.mjs');
  if (typeof mod.benchCalls === 'function') await mod.benchCalls();
}

if (existsSync(new URL('./ascode.mjs', import.meta.url))) {
  const mod = await import('./ascode.mjs');
  if (typeof mod.benchAscode === 'function') await mod.benchAscode();
}

if (existsSync(new URL('./ascode-flow.mjs', import.meta.url))) {
  const mod = await import('./ascode-flow.mjs');
  if (typeof mod.benchAscodeFlow === 'function') await mod.benchAscodeFlow();
}

if (existsSync(new URL('./emulator.mjs', import.meta.url))) {
  const mod = await import('./emulator.mjs');
  if (typeof mod.benchEmulator === 'function') await mod.benchEmulator();
}

if (existsSync(new URL('./mcp.mjs', import.meta.url))) {
  const mod = await import('./mcp.mjs');
  if (typeof mod.benchMcp === 'function') await mod.benchMcp();
}

if (existsSync(new URL('./bisect.mjs', import.meta.url))) {
  const mod = await import('./bisect.mjs');
  if (typeof mod.benchBisect === 'function') await mod.benchBisect();
}
