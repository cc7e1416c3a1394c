import type { SettingsStore } from "../../core/ports/settings.store.ts";

/**
 * A lease in the store: at most one holder at a time among the processes sharing the database, for work
 * that must run in one place (the profile worker applies events in order; two runners would lose updates).
 * The holder renews it on every use; a holder that died loses it when it expires. Real time, not the
 * virtual clock: a lease is about processes, not about the service's notion of now.
 */
export function createLease(settings: SettingsStore, name: string, holder: string, ttlMs: number, realNow: () => number = Date.now) {
  const key = `lease.${name}`;
  return {
    /** Takes or renews the lease; false while another live holder has it. */
    async acquire(): Promise<boolean> {
      const now = realNow();
      const current = await settings.get(key);
      if (current !== null) {
        const separator = current.lastIndexOf("|");
        const owner = current.slice(0, separator);
        const expiresAt = Number(current.slice(separator + 1));
        if (owner !== holder && Number.isFinite(expiresAt) && expiresAt > now) return false;
      }
      return settings.compareAndSet(key, current, `${holder}|${now + ttlMs}`);
    },
    /** Gives the lease up (on shutdown), so that another process takes over at once instead of after it expires. */
    async release(): Promise<void> {
      const current = await settings.get(key);
      if (current !== null && current.slice(0, current.lastIndexOf("|")) === holder) await settings.compareAndSet(key, current, `${holder}|0`);
    },
  };
}
