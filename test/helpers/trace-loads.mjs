// Loaded with `node --import`: records the URL of every module loaded into $VAP_TRACE_FILE.
import { register } from 'node:module';

register(new URL('./trace-loads-hooks.mjs', import.meta.url), { data: { file: process.env.VAP_TRACE_FILE } });
