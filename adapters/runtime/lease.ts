import { readFileSync, readlinkSync } from "node:fs";
import type { SettingsStore } from "../../core/ports/index.ts";

/** The process a lease is taken by: its host and process id, and how to tell whether a process still runs. */
export interface LeaseProcess {
  /**
   * Where its process ids mean something (this boot of this machine, this process id namespace), or null when
   * that cannot be told: then no holder is ever judged gone, and a lease is only taken once it expires.
   */
  readonly host: string | null;
  readonly pid: number;
  isAlive(pid: number): boolean;
}

/** Whether a process with this id runs on this host (one we may not signal runs too). */
export function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}

/**
 * This machine's boot (Linux's boot id, which differs between machines and between boots) and the process id
 * namespace of this process, so that processes on other machines, or in other containers, never judge each
 * other's process ids. Null where either cannot be read.
 */
function processHost(): string | null {
  try {
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const namespace = readlinkSync("/proc/self/ns/pid");
    return boot && namespace ? `${boot}/${namespace}` : null;
  } catch {
    return null;
  }
}

const thisProcess: LeaseProcess = { host: processHost(), pid: process.pid, isAlive: processIsAlive };

/**
 * A lease as stored: `holder|pid@host|expiresAt`, the expiry last, as earlier versions wrote and read it
 * (`holder|expiresAt`): an earlier version reads `holder|pid@host` as the holder and still respects the expiry.
 */
interface StoredLease {
  readonly owner: string;
  readonly expiresAt: number;
  readonly pid: number | null;
  readonly host: string | null;
}

function parseLease(value: string): StoredLease {
  const expirySeparator = value.lastIndexOf("|");
  const expiresAt = Number(value.slice(expirySeparator + 1));
  const rest = value.slice(0, Math.max(0, expirySeparator));
  const processSeparator = rest.lastIndexOf("|");
  const processPart = processSeparator < 0 ? null : /^(\d+)@(.+)$/.exec(rest.slice(processSeparator + 1));
  if (!processPart) return { owner: rest, expiresAt, pid: null, host: null };
  return {
    owner: rest.slice(0, processSeparator),
    expiresAt,
    pid: Number(processPart[1]),
    host: processPart[2] as string,
  };
}

/**
 * A lease in the store: at most one holder at a time among the processes sharing the database, for work
 * that must run in one place (the profile worker applies events in order; two runners would lose updates).
 * The holder renews it as it uses it, once a third of its time has passed (not on every use: a renewal
 * is a committed write, and the profile worker uses its lease for every batch); a holder that died loses
 * it when it expires, or at once to a process on the same host, which can see that the holder's process is
 * gone (a restart after a crash does not wait out the lease). Real time, not the virtual clock: a lease is
 * about processes, not about the service's notion of now.
 */
export function createLease(
  settings: SettingsStore,
  name: string,
  holder: string,
  ttlMs: number,
  realNow: () => number = Date.now,
  self: LeaseProcess = thisProcess,
) {
  const key = `lease.${name}`;
  /** Until when this holder's last write keeps the lease its own (0: not known to hold it). */
  let heldUntil = 0;
  const valueUntil = (expiresAt: number) =>
    self.host === null ? `${holder}|${expiresAt}` : `${holder}|${self.pid}@${self.host}|${expiresAt}`;
  /** Whether the stored lease keeps this holder out: another holder's, unexpired, and its process not known to be gone. */
  const keepsOut = (stored: StoredLease, now: number) => {
    if (stored.owner === holder || !Number.isFinite(stored.expiresAt) || stored.expiresAt <= now) return false;
    const holderGone =
      self.host !== null &&
      stored.host === self.host &&
      stored.pid !== null &&
      stored.pid !== self.pid &&
      !self.isAlive(stored.pid);
    return !holderGone;
  };
  return {
    /** Takes or renews the lease; false while another live holder has it. */
    async acquire(): Promise<boolean> {
      const now = realNow();
      // No other process can take a lease before it expires, so a fresh one needs no look at the store.
      if (heldUntil - now > (ttlMs * 2) / 3) return true;
      heldUntil = 0;
      const current = await settings.get(key);
      if (current !== null && keepsOut(parseLease(current), now)) return false;
      const taken = await settings.compareAndSet(key, current, valueUntil(now + ttlMs));
      if (taken) heldUntil = now + ttlMs;
      return taken;
    },
    /** Gives the lease up (on shutdown), so that another process takes over at once instead of after it expires. */
    async release(): Promise<void> {
      heldUntil = 0;
      const current = await settings.get(key);
      if (current !== null && parseLease(current).owner === holder)
        await settings.compareAndSet(key, current, valueUntil(0));
    },
    /**
     * Gives the lease up for good once the work it guards is done, removing its row: a lease per piece of work
     * (one per file import) would otherwise leave a row each forever. Nothing when another holder has it now,
     * even if it took it between this look and the delete.
     */
    async end(): Promise<void> {
      heldUntil = 0;
      const current = await settings.get(key);
      if (current !== null && parseLease(current).owner === holder) await settings.deleteIf(key, current);
    },
  };
}
