import { randomBytes } from 'node:crypto';
import Conf from 'conf';
import { configDir } from './paths.js';
import type { ConfigData, ConfigView, ProfileData } from './types.js';

export type { ConfigData, ProfileData } from './types.js';

/**
 * The config file, for changes (conf: atomic writes, mode 0600). Where it lives: the
 * platform's config dir for "vap" (for example ~/.config/vap/config.json), or
 * `$VAP_CONFIG_DIR/config.json`. Reading alone goes through readConfig().
 */
export class ConfigStore implements ConfigView {
  private readonly conf: Conf<ConfigData>;

  constructor(env: Record<string, string | undefined>) {
    this.conf = new Conf<ConfigData>({
      projectName: 'vap',
      projectSuffix: '',
      configName: 'config',
      cwd: configDir(env),
      configFileMode: 0o600,
      defaults: { profiles: {} },
    });
  }

  get path(): string {
    return this.conf.path;
  }

  get defaultProfile(): string | undefined {
    return this.conf.get('defaultProfile');
  }

  setDefaultProfile(name: string): void {
    this.conf.set('defaultProfile', name);
  }

  profiles(): Record<string, ProfileData> {
    return this.conf.get('profiles') ?? {};
  }

  profile(name: string): ProfileData | undefined {
    return this.profiles()[name];
  }

  updateProfile(name: string, patch: Partial<ProfileData>): void {
    const all = this.profiles();
    const next: ProfileData = { ...all[name], ...patch };
    for (const k of Object.keys(next) as Array<keyof ProfileData>) {
      if (next[k] === undefined) delete next[k];
    }
    this.conf.set('profiles', { ...all, [name]: next });
  }

  removeProfileKey(name: string, key: keyof ProfileData): boolean {
    const p = this.profile(name);
    if (!p || p[key] === undefined) return false;
    const { [key]: _removed, ...rest } = p;
    this.conf.set('profiles', { ...this.profiles(), [name]: rest });
    return true;
  }

  /** The profile's `webhooks listen` secret, made and saved on first use. */
  listenSecret(name: string): string {
    const existing = this.profile(name)?.webhookListenSecret;
    if (existing && /^whsec_[A-Za-z0-9_-]{32}$/.test(existing)) return existing;
    const secret = `whsec_${randomBytes(24).toString('base64url')}`;
    this.updateProfile(name, { webhookListenSecret: secret });
    return secret;
  }
}
