import type { VisitorIdAttribute } from "../config/config.model.ts";
import type { TenancyStore } from "../ports/index.ts";

export type ProfileLookup = (account: string, profile: string) => boolean;

/** What collection reads of the tenants' configuration, from one read of the store. */
export interface TenantSnapshot {
  /** COL-05, DEC-COL-02 */
  readonly isKnownProfile: ProfileLookup;
  /** DEC-COL-11: the profile's visitor ID attributes (none for an unknown profile). */
  readonly visitorIdAttributesOf: (account: string, profile: string) => readonly VisitorIdAttribute[];
}

/**
 * COL-05, DEC-COL-02, DEC-COL-11: which account/profile pairs exist and their visitor ID attributes, read
 * from the store and answered from memory, so the hot path does no I/O for them. The copy is read again in
 * the background once it is older than `maxAgeMs`, so a profile another node's configuration added or
 * changed is known here soon without a restart. `refresh()` makes the next snapshot read the store again.
 * The copy's age is real time (`monotonicMs`: the EventLoop port's), not the virtual clock, which a test may
 * move by days at once.
 */
export class TenantDirectory {
  private current: TenantSnapshot | null = null;
  private loading: Promise<TenantSnapshot> | null = null;
  private loadedAt = 0;
  /** Counts `refresh` calls: a read begun before one must not become the copy. */
  private generation = 0;

  constructor(
    private readonly tenancy: TenancyStore,
    private readonly monotonicMs: () => number,
    private readonly maxAgeMs = 10_000,
  ) {}

  async snapshot(): Promise<TenantSnapshot> {
    if (this.current) {
      if (!this.loading && this.monotonicMs() - this.loadedAt > this.maxAgeMs) this.reloadInBackground();
      return this.current;
    }
    const generation = this.generation;
    this.loading ??= this.load().then(
      (snapshot) => {
        if (generation === this.generation) {
          this.current = snapshot;
          this.loading = null;
        }
        return snapshot;
      },
      (error: unknown) => {
        if (generation === this.generation) this.loading = null; // a store that was down is asked again by the next request
        throw error;
      },
    );
    return this.loading;
  }

  refresh(): void {
    this.generation += 1;
    this.current = null;
    this.loading = null;
  }

  /** Keeps answering from the current copy while a fresh one is read; a failed read is tried again later. */
  private reloadInBackground(): void {
    const generation = this.generation;
    this.loading = this.load().then(
      (snapshot) => {
        if (generation === this.generation) {
          this.current = snapshot;
          this.loading = null;
        }
        return snapshot;
      },
      () => {
        if (generation === this.generation) {
          this.loading = null;
          this.loadedAt = this.monotonicMs();
        }
        return this.current as TenantSnapshot;
      },
    );
  }

  private async load(): Promise<TenantSnapshot> {
    this.loadedAt = this.monotonicMs();
    const profiles = new Map<string, ReadonlyMap<string, readonly VisitorIdAttribute[]>>();
    for (const account of await this.tenancy.listAccounts()) {
      const records = await this.tenancy.listProfiles(account.name);
      profiles.set(
        account.name,
        new Map(records.map((record) => [record.config.name, record.config.visitorIdAttributes])),
      );
    }
    return {
      isKnownProfile: (account, profile) => profiles.get(account)?.has(profile) ?? false,
      visitorIdAttributesOf: (account, profile) => profiles.get(account)?.get(profile) ?? [],
    };
  }
}
