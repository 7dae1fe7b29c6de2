import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import Conf from 'conf';
import { CliError, UsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { configDir, configFile } from './paths.js';
import { readConfig, withKeys } from './read.js';
import type { ConfigData, ConfigView, ProfileData } from './types.js';

export type { ConfigData, ProfileData } from './types.js';

/**
 * The config file, for changes (conf: atomic writes, mode 0600). Where it lives: the
 * platform's config dir for "vap" (for example ~/.config/vap/config.json), or
 * `$VAP_CONFIG_DIR/config.json`. Reading alone goes through readConfig().
 */
export class ConfigStore implements ConfigView {
  private readonly conf: Conf<ConfigData>;
  private readonly dir: string;

  /**
   * Opens the config for changes. A corrupt file is refused first (readConfig: one line
   * naming it and how to recover; conf is never let near it, so it is never overwritten),
   * and a folder that cannot be created or written is a usage error naming it (exit 2).
   */
  constructor(env: Record<string, string | undefined>) {
    this.dir = configDir(env);
    readConfig(env);
    try {
      this.conf = new Conf<ConfigData>({
        projectName: 'vap',
        projectSuffix: '',
        configName: 'config',
        cwd: this.dir,
        configFileMode: 0o600,
        defaults: { profiles: {} },
      });
    } catch (err) {
      throw folderError(err, this.dir, configFile(env), ExitCode.USAGE);
    }
  }

  /** Refuses (exit 2, before anything is sent) when the config cannot be written: the folder for conf's atomic rename, the file itself. */
  assertWritable(): void {
    try {
      accessSync(this.dir, constants.W_OK);
      accessSync(this.conf.path, constants.W_OK);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw folderError(err, this.dir, this.conf.path, ExitCode.USAGE);
    }
  }

  /** A change, written through conf; a failure to write is one line naming the folder and the fix. */
  private write(key: 'profiles' | 'defaultProfile', value: unknown): void {
    try {
      this.conf.set(key, value as never);
    } catch (err) {
      throw folderError(err, this.dir, this.conf.path, ExitCode.FAILURE);
    }
  }

  get path(): string {
    return this.conf.path;
  }

  get defaultProfile(): string | undefined {
    return this.conf.get('defaultProfile');
  }

  setDefaultProfile(name: string): void {
    this.write('defaultProfile', name);
  }

  profiles(): Record<string, ProfileData> {
    return this.conf.get('profiles') ?? {};
  }

  profile(name: string): ProfileData | undefined {
    return this.profiles()[name];
  }

  profilesWithKeys(): string[] {
    return withKeys(this.profiles());
  }

  updateProfile(name: string, patch: Partial<ProfileData>): void {
    const all = this.profiles();
    const next: ProfileData = { ...all[name], ...patch };
    for (const k of Object.keys(next) as Array<keyof ProfileData>) {
      if (next[k] === undefined) delete next[k];
    }
    this.write('profiles', { ...all, [name]: next });
  }

  removeProfileKey(name: string, key: keyof ProfileData): boolean {
    const p = this.profile(name);
    if (!p || p[key] === undefined) return false;
    const { [key]: _removed, ...rest } = p;
    this.write('profiles', { ...this.profiles(), [name]: rest });
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

/** An error of the config folder or file (not writable, read-only file system, full disk) as one line naming the folder and the fix. */
function folderError(err: unknown, dir: string, file: string, exitCode: 1 | 2): CliError {
  const code = (err as NodeJS.ErrnoException).code;
  const why =
    code === 'EACCES' || code === 'EPERM'
      ? 'permission denied'
      : code === 'EROFS'
        ? 'the file system is read-only'
        : code === 'ENOSPC'
          ? 'the disk is full'
          : code === 'ENOTDIR'
            ? 'a part of the path is a file, not a folder'
            : (code ?? (err as Error).message);
  const message = `cannot write the config file ${file} in the folder ${dir}: ${why}`;
  const hint = 'make the folder writable, or set VAP_CONFIG_DIR to a folder you can write';
  return exitCode === ExitCode.USAGE ? new UsageError(message, hint) : new CliError(message, exitCode, hint);
}
