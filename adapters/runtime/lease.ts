import type { SettingsStore } from "../../core/ports/settings.store.ts";

/**
 * A lease in the store: at most one holder at a time among the processes sharing the database, for work
 * that must run in one place (the profile worker applies events in order; two runners would lose updates).
 * The holder renews it as it uses it, once a third of its time has passed (not on every use: a renewal
 * is a committed write, and the profile worker uses its lease for every batch); a holder that died loses
 * it when it expires. Real time, not the virtual clock: a lease is about processes, not about the
 * service's notion of now.
 */
export function createLease(settings: SettingsStore, name: string, holder: string, ttlMs: number, realNow: () => number = Date.now) {
  const key = `lease.${name}`;
  /** Until when this holder's last write keeps the lease its own (0: not known to hold it). */
  let heldUntil = 0;
  return {
    /** Takes or renews the lease; false while another live holder has it. */
    async acquire(): Promise<boolean> {
      const now = realNow();
      // No other process can take a lease before it expires, so a fresh one needs no look at the store.
      if (heldUntil - now > (ttlMs * 2) / 3) return true;
      heldUntil = 0;
      const current = await settings.get(key);
      if (current !== null) {
        const separator = current.lastIndexOf("|");
        const owner = current.slice(0, separator);
        const expiresAt = Number(current.slice(separator + 1));
        if (owner !== holder && Number.isFinite(expiresAt) && expiresAt > now) return false;
      }
      const taken = await settings.compareAndSet(key, current, `${holder}|${now + ttlMs}`);
      if (taken) heldUntil = now + ttlMs;
      return taken;
    },
    /** Gives the lease up (on shutdown), so that another process takes over at once instead of after it expires. */
    async release(): Promise<void> {
      heldUntil = 0;
      const current = await settings.get(key);
      if (current !== null && current.slice(0, current.lastIndexOf("|")) === holder) await settings.compareAndSet(key, current, `${holder}|0`);
    },
  };
}
