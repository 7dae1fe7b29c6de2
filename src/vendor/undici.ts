// The part of undici the HTTP layer uses, as one module (built as its own file in dist/vendor/).
// undici's index loads every dispatcher, mock and interceptor it has; an Agent, the request
// API and the parser of response headers (for answers read through dispatch) are all vap needs.
import Agent from 'undici/lib/dispatcher/agent.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import api from 'undici/lib/api/index.js';
import util from 'undici/lib/core/util.js';

// What undici's own index does to give every dispatcher `.request()` and `.stream()`.
Object.assign(Dispatcher.prototype, api);

export { Agent };
export const parseHeaders: (raw: Buffer[]) => Record<string, string | string[] | undefined> = util.parseHeaders;
