import type { TestEmulator } from './emulator.js';

/** The line whose arrival makes an agent worse in the bisect tests: the emulator's score-shift control keys on it. */
export const MARKER = 'Always upsell the premium plan.';

/** The names of the preview copies (agents tagged vap-preview) on an emulator: none is left after a search. */
export async function previewCopies(emu: TestEmulator): Promise<string[]> {
  const agents = (await emu.api('GET', '/api/v1/agents?pageSize=200')).body.data.agents as Array<{ name: string; tags?: string[] }>;
  return agents.filter((a) => a.tags?.includes('vap-preview')).map((a) => a.name);
}
