/**
 * The instance's compression settings as a proxy node sees them, readable without a promise on every call: the
 * last loaded value is served while a reload (after an invalidation by the control plane, or the TTL) runs in the
 * background. Until the first load completes the mode is `off`, the safe default.
 */
import type { AppContext } from '../../core/context.ts';
import { LookupCache } from '../../core/cache.ts';
import {
  COMPRESSION_SETTINGS_CACHE, DEFAULT_COMPRESSION_SETTINGS, readCompressionSettings, type CompressionSettings,
} from '../../core/ai/compression-settings.ts';

const ONLY = 'all';

export class SettingsSource {
  #ctx: AppContext;
  #cache: LookupCache<CompressionSettings>;
  #last: CompressionSettings = DEFAULT_COMPRESSION_SETTINGS;
  #loading: Promise<void> | undefined;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
    this.#cache = ctx.caches.register(new LookupCache<CompressionSettings>(COMPRESSION_SETTINGS_CACHE, 60_000, 1));
    void this.#reload();
  }

  current(): CompressionSettings {
    const hit = this.#cache.peek(ONLY);
    if (hit !== undefined) return (this.#last = hit);
    void this.#reload();
    return this.#last;
  }

  /** Resolves once the settings as stored now are loaded (start-up, and tests after a change). */
  async loaded(): Promise<void> {
    await this.#reload();
    // A load already under way may have started before the latest change (and the change dropped its result).
    if (this.#cache.peek(ONLY) === undefined) await this.#reload();
  }

  #reload(): Promise<void> {
    this.#loading ??= this.#cache.get(ONLY, () => readCompressionSettings(this.#ctx.db))
      .then((s) => {
        this.#last = s;
      })
      .catch((err: unknown) => this.#ctx.log.warn({ err }, 'compression settings could not be read; keeping the last known'))
      .finally(() => {
        this.#loading = undefined;
      });
    return this.#loading;
  }
}
