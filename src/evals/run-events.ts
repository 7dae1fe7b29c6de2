import type { ApiClient } from '../api/client.js';
import type { WatchCompletion } from './wait.js';

// The event-driven end of a wait (issue 8): filled in once src/api/sse.ts lands.
export function eventStreamWatch(_api: ApiClient): WatchCompletion | undefined {
  return undefined;
}
