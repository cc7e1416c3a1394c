import type { ProfileConfig } from "../config/config.model.ts";
import { describeError } from "../errors/describe-error.ts";
import type { BackgroundWorker } from "../ports/background.port.ts";
import type { Lease } from "../ports/lease.port.ts";
import type { Logger } from "../ports/logger.port.ts";
import type { Stores } from "../ports/stores.ts";
import { ProfileBatchError, ProfileLeaseLost, type ProfilesService } from "./profiles.use-cases.ts";

/** The settings entry of the last sequence number the profile worker applied (event retention reads it too). */
export const profilesCursorKey = "profiles.cursor";

/**
 * DEC-PRO-03: feeds stored events, in sequence order, to the profile engine. The cursor (the last sequence
 * number applied) is kept in the store, so a restart continues where the last run stopped; `/admin/wait`
 * drains it, so a test can send events and read the profile without sleeping. Among processes sharing a
 * database one applies events at a time (a lease in the store), so no two read the same profile and
 * overwrite each other's update; if it dies, another takes over once the lease expires.
 */
export function profileWorker(deps: {
  stores: Stores;
  profiles: ProfilesService;
  logger: Logger;
  /**
   * This node's profiles lease: with several nodes on one database, only its holder applies events. A batch
   * renews it as it goes and stops once it is lost.
   */
  lease: Lease;
  batchSize?: number;
}): BackgroundWorker {
  const { lease } = deps;
  const batchSize = deps.batchSize ?? 500;
  return {
    name: "profiles",
    batchSize,
    async runDue() {
      if (!(await lease.acquire())) return 0;
      const cursor = Number((await deps.stores.settings.get(profilesCursorKey)) ?? "0");
      const events = await deps.stores.events.query({ afterSeq: cursor, limit: batchSize, order: "asc" });
      if (events.length === 0) return 0;
      // The store's per-visitor index of these events, built here off the commit path (EventStore.indexVisitors),
      // before the batch reads them by visitor (a join's fold).
      await deps.stores.events.indexVisitors((events.at(-1) as { seq: number }).seq);
      const configs = new Map<string, ProfileConfig | null>();
      const configOf = async (event: { account: string; profile: string }) => {
        const key = `${event.account}/${event.profile}`;
        if (!configs.has(key))
          configs.set(key, (await deps.stores.tenancy.findProfile(event.account, event.profile))?.config ?? null);
        return configs.get(key) ?? null;
      };
      try {
        await deps.profiles.applyBatch(events, configOf, { stillHeld: () => lease.acquire() });
      } catch (error) {
        // Another process took the lease over during the batch (it was longer than the lease): it applies
        // these events from the cursor, which is its to move now.
        if (error instanceof ProfileLeaseLost) {
          deps.logger.warn("profile batch stopped: the profiles lease passed to another process", {
            firstSeq: (events[0] as { seq: number }).seq,
          });
          return 0;
        }
        // A store failure stops the batch at one event; those before it are written, and the cursor stays
        // before the failed one, so it is retried.
        const failed = events[error instanceof ProfileBatchError ? error.applied : 0] as { seq: number };
        deps.logger.error("profile update failed", { seq: failed.seq, error: describeError(error) });
        await deps.stores.settings.set(profilesCursorKey, String(failed.seq - 1));
        throw error;
      }
      if (!(await lease.acquire())) return 0;
      await deps.stores.settings.set(profilesCursorKey, String((events.at(-1) as { seq: number }).seq));
      return events.length;
    },
    async nextDueAt() {
      // DEC-OPS-04: events past the cursor are due, whichever process holds the lease: a wait on a process
      // that does not hold it waits for the one that does (and takes over once that one's lease runs out).
      const cursor = Number((await deps.stores.settings.get(profilesCursorKey)) ?? "0");
      const [next] = await deps.stores.events.query({ afterSeq: cursor, limit: 1, order: "asc" });
      return next ? next.receivedAt : null;
    },
  };
}
