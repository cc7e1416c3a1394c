import type { Limits } from "../config/config.model.ts";
import type { ManagementError } from "../errors/management.errors.ts";
import { StorageUnavailableError } from "../errors/storage-unavailable.ts";
import type { Clock } from "../ports/clock.port.ts";
import type { DataLayerChangeState, DataLayerKey, DataLayerStore, ServedDataLayer } from "../ports/datalayer.store.ts";
import type { EventLoop } from "../ports/event-loop.port.ts";
import type { IdSource } from "../ports/ids.port.ts";
import { err, ok, type Result } from "../result.ts";
import { pickDelay, type TimingPreset } from "../timing/timing.presets.ts";
import { type DataLayerCommand, transitionDataLayer, untouchedDataLayer } from "./datalayer.machine.ts";
import { limitDataLayerList, reportStatus, statusRetentionMs } from "./datalayer.rules.ts";

export interface DataLayerServiceDeps {
  readonly store: DataLayerStore;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly timing: TimingPreset;
  readonly limits: Limits;
  /** How long a change has been retried on a busy data layer (monotonic time, not the virtual clock). */
  readonly eventLoop: EventLoop;
  /** Called once a change is recorded, so the publisher looks for due work at once. */
  readonly onChangeAccepted?: () => void;
}

/**
 * A change that lost to another request on the same data layer is decided again and retried while the others
 * make progress, for at most this long (real time); changes accepted together share a commit, so of N
 * concurrent writers on one data layer the last one tries N times.
 */
const contentionLimitMs = 10_000;
/** Losses in a row with no other change recorded in between (a store refusing the write), before giving up. */
const maxStalledTries = 100;

/**
 * The use-cases of the hosted data layer API (DLE-*): load the data layer, ask core's machine, record the
 * change. Names, access and the body are checked by the caller before (they need no store).
 */
export class DataLayerService {
  private readonly retentionMs: number;

  constructor(private readonly deps: DataLayerServiceDeps) {
    this.retentionMs = statusRetentionMs(deps.limits);
  }

  /** DLE-01, DLE-11, DEC-DLE-01: 201 pending, or 405 1464 when the data layer exists. */
  upload(key: DataLayerKey, body: string): Promise<Result<{ status: "pending" }, ManagementError>> {
    return this.change(key, (at) => ({
      type: "upload",
      body,
      at,
      delayMs: this.delay(this.deps.timing.dataLayerUploadDelayMs),
    }));
  }

  /** DLE-02, DLE-10: 200 pending, or 404 1404 naming the data layer when it does not exist. */
  update(key: DataLayerKey, body: string): Promise<Result<{ status: "pending" }, ManagementError>> {
    return this.change(key, (at) => ({
      type: "update",
      body,
      at,
      delayMs: this.delay(this.deps.timing.dataLayerChangeDelayMs),
    }));
  }

  /** DLE-03, DLE-10: 200 pending, or 404 1404 naming the data layer when it does not exist. */
  remove(key: DataLayerKey): Promise<Result<{ status: "pending" }, ManagementError>> {
    return this.change(key, (at) => ({
      type: "delete",
      at,
      delayMs: this.delay(this.deps.timing.dataLayerChangeDelayMs),
    }));
  }

  /** DLE-04, DLE-08, DLE-09, DEC-DLE-05, DEC-DLE-08: the state of the newest change, kept 30 days. */
  async status(key: DataLayerKey): Promise<Result<{ status: DataLayerChangeState }, ManagementError>> {
    const current = await this.deps.store.read(key);
    const status = reportStatus(current?.newest ?? null, this.deps.clock.now(), this.retentionMs);
    return status.ok ? ok({ status: status.value }) : status;
  }

  /** DLE-05, DLE-12, DEC-DLE-09: the existing data layers by code unit; more than the maximum is 400 1400. */
  async list(account: string, profile: string): Promise<Result<string[], ManagementError>> {
    const max = this.deps.limits.dataLayerListMax;
    return limitDataLayerList(await this.deps.store.listExisting(account, profile, max + 1), max);
  }

  /** DEC-DLE-07: what is served for the data layer, once a change completed; null before, and after a delete completed. */
  served(key: DataLayerKey): Promise<ServedDataLayer | null> {
    return this.deps.store.served(key);
  }

  /**
   * Reads the data layer, lets core decide, and records the change if nothing got in between; when
   * something did (another request on the same dl_id, on any node), reads and decides again.
   */
  private async change(
    key: DataLayerKey,
    command: (at: number) => DataLayerCommand,
  ): Promise<Result<{ status: "pending" }, ManagementError>> {
    const { eventLoop } = this.deps;
    const started = eventLoop.monotonicMs();
    let stalled = 0;
    let seenSeq: number | null = null;
    for (;;) {
      const current = await this.deps.store.read(key);
      const lastSeq = current?.layer.lastSeq ?? 0;
      stalled = lastSeq === seenSeq ? stalled + 1 : 0;
      seenSeq = lastSeq;
      if (stalled >= maxStalledTries || eventLoop.monotonicMs() - started > contentionLimitMs) {
        // Busy rather than broken: 503 with Retry-After, as for a locked store.
        throw new StorageUnavailableError(
          `data layer ${key.account}/${key.profile}/${key.dlId} kept changing; gave up after ${Math.round(eventLoop.monotonicMs() - started)} ms`,
        );
      }
      const state = current
        ? { exists: current.layer.exists, lastSeq, lastDueAt: current.layer.lastDueAt }
        : untouchedDataLayer;
      const decided = transitionDataLayer(key, state, command(this.deps.clock.now()));
      if (!decided.ok) return err(decided.error);
      let recorded = true;
      for (const effect of decided.value.effects) {
        if (effect.type === "record-change")
          recorded = await this.deps.store.append(effect.change, decided.value.next.exists);
      }
      if (recorded) {
        this.deps.onChangeAccepted?.();
        return ok({ status: "pending" });
      }
    }
  }

  private delay(range: { readonly min: number; readonly max: number }): number {
    return pickDelay(range, this.deps.ids.randomUnit());
  }
}
