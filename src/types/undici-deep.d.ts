// undici's index loads every dispatcher, mock and interceptor it has (about 70 ms at
// start-up here). The client needs only an Agent, the request API and the parser of
// response headers, so it imports those files; these declarations give them types.
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentClass: typeof Agent;
  export default AgentClass;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  import type { Dispatcher } from 'undici';
  const DispatcherClass: typeof Dispatcher;
  export default DispatcherClass;
}
declare module 'undici/lib/api/index.js' {
  const api: Record<string, (...args: unknown[]) => unknown>;
  export default api;
}

declare module 'undici/lib/core/util.js' {
  const util: { parseHeaders(raw: Buffer[] | null, obj?: Record<string, string | string[] | undefined>): Record<string, string | string[] | undefined> };
  export default util;
}
