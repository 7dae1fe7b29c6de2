// undici's index loads every dispatcher, mock and interceptor it has (about 70 ms at
// start-up here). The client needs only an Agent and the request API, so it imports
// those two files; these declarations give them undici's own types.
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
