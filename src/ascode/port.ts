import type { ApiClient } from '../api/client.js';
import type { Credentials } from '../config/resolve.js';

/**
 * What opening and planning a project say and ask on their way. A verb makes one from its Context (`projectPort`);
 * an MCP tool makes one with no terminal, where every question is answered as --yes does.
 */
export interface ProjectPort {
  signal: AbortSignal;
  api(): Promise<ApiClient>;
  credentials(): Promise<Credentials>;
  credentialsFor(profile: string): Promise<Credentials>;
  info(line: string): void;
  warn(line: string): Promise<void>;
  /** A problem of the files, one line; a usage error (exit 2) that counts them follows. */
  note(line: string): void;
  spinner(text: string): Promise<{ stop(): void }>;
  /** --yes: the questions below are answered yes without asking. */
  yes: boolean;
  /** Asks on a terminal; absent where nobody can answer. */
  confirm?(question: string): Promise<boolean>;
}
