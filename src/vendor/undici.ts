// The part of undici the HTTP layer uses, as one module (built as its own file in dist/vendor/).
// undici's index loads every dispatcher, mock and interceptor it has; an Agent and the
// request API are all vap needs.
import Agent from 'undici/lib/dispatcher/agent.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import api from 'undici/lib/api/index.js';

// What undici's own index does to give every dispatcher `.request()` and `.stream()`.
Object.assign(Dispatcher.prototype, api);

export { Agent };
