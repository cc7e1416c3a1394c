import { readlinkSync } from "node:fs";
import { hostname } from "node:os";
import type { SettingsStore } from "../../core/ports/settings.store.ts";

/** The process a lease is taken by: its host and process id, and how to tell whether a process still runs. */
export interface LeaseProcess {
  /** Where its process ids mean something: the host name, and on Linux the process id namespace. */
  readonly host: string;
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
 * This host's name with the process id namespace of this process (Linux), so that two containers sharing a
 * database file and a host name but not their process ids never judge each other's processes.
 */
function processHost(): string {
  try {
    return `${hostname()}/${readlinkSync("/proc/self/ns/pid")}`;
  } catch {
    return hostname();
  }
}

const thisProcess: LeaseProcess = { host: processHost(), pid: process.pid, isAlive: processIsAlive };

/** A lease as stored: `holder|expiresAt|pid@host` (leases written before the process part: `holder|expiresAt`). */
interface StoredLease {
  readonly owner: string;
  readonly expiresAt: number;
  readonly pid: number | null;
  readonly host: string | null;
}

function parseLease(value: string): StoredLease {
  let rest = value;
  let pid: number | null = null;
  let host: string | null = null;
  const last = rest.slice(rest.lastIndexOf("|") + 1);
  const processPart = /^(\d+)@(.+)$/.exec(last);
  if (processPart) {
    pid = Number(processPart[1]);
    host = processPart[2] as string;
    rest = rest.slice(0, rest.lastIndexOf("|"));
  }
  const separator = rest.lastIndexOf("|");
  return { owner: rest.slice(0, separator), expiresAt: Number(rest.slice(separator + 1)), pid, host };
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
export function createLease(settings: SettingsStore, name: string, holder: string, ttlMs: number, realNow: () => number = Date.now, self: LeaseProcess = thisProcess) {
  const key = `lease.${name}`;
  /** Until when this holder's last write keeps the lease its own (0: not known to hold it). */
  let heldUntil = 0;
  const valueUntil = (expiresAt: number) => `${holder}|${expiresAt}|${self.pid}@${self.host}`;
  /** Whether the stored lease keeps this holder out: another holder's, unexpired, and its process not known to be gone. */
  const keepsOut = (stored: StoredLease, now: number) => {
    if (stored.owner === holder || !Number.isFinite(stored.expiresAt) || stored.expiresAt <= now) return false;
    const holderGone = stored.host === self.host && stored.pid !== null && stored.pid !== self.pid && !self.isAlive(stored.pid);
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
      if (current !== null && parseLease(current).owner === holder) await settings.compareAndSet(key, current, valueUntil(0));
    },
  };
}
