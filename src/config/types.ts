/** The config file's shapes, shared by the fast reader (read.ts) and the conf-backed store (store.ts). */

export interface ProfileData {
  apiKey?: string;
  baseUrl?: string;
  output?: string;
  /**
   * The signing secret `vap webhooks listen` signs forwarded events with: `whsec_` and 32
   * base64url characters, made on first use and kept, so that a local receiver configured
   * with it keeps working from one run to the next.
   */
  webhookListenSecret?: string;
}

export interface ConfigData {
  defaultProfile?: string;
  profiles: Record<string, ProfileData>;
}

/** What resolving settings needs from the config file. */
export interface ConfigView {
  readonly path: string;
  readonly defaultProfile: string | undefined;
  profile(name: string): ProfileData | undefined;
  /** The names of the profiles that hold an API key, sorted. */
  profilesWithKeys(): string[];
}
