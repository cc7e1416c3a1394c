import type { BackgroundWorker } from "../ports/background.port.ts";
import type { EventStore } from "../ports/events.store.ts";
import type { SettingsStore } from "../ports/settings.store.ts";
import { profilesCursorKey } from "./profile-folding.worker.ts";

/** How often, in virtual time, retention looks for events to remove when the last look found none. */
const sweepEveryMs = 60_000;

/**
 * Event retention (ours, `limits.eventRetentionDays`): removes the events received more than `retentionMs`
 * ago on the virtual clock, oldest first, collected and imported alike. Only those the profile worker has
 * applied (at or before its cursor), so the visitor profiles built from them stay. Looks at most once a
 * minute of virtual time (at once when the clock went back), and again at once while a look removed some,
 * a bounded batch at a time. Nothing is scheduled: a wait does not wait for next year's expiry.
 */
export function eventRetentionWorker(deps: {
  events: EventStore;
  settings: SettingsStore;
  retentionMs: number;
  batchSize?: number;
}): BackgroundWorker {
  const batchSize = deps.batchSize ?? 5_000;
  let lastSweep = Number.NEGATIVE_INFINITY;
  let removing = false;
  return {
    name: "event-retention",
    batchSize,
    async runDue(now) {
      if (!removing && now >= lastSweep && now - lastSweep < sweepEveryMs) return 0;
      lastSweep = now;
      const applied = Number((await deps.settings.get(profilesCursorKey)) ?? "0");
      const removed = await deps.events.deleteReceivedBefore(now - deps.retentionMs, {
        upToSeq: applied,
        limit: batchSize,
      });
      removing = removed > 0;
      return removed;
    },
    async nextDueAt() {
      return null;
    },
  };
}
