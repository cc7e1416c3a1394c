import type { TenancyStore } from "../../core/ports/index.ts";

export type ProfileLookup = (account: string, profile: string) => boolean;

/**
 * COL-05, DEC-COL-02: which account/profile pairs exist, read from the store and answered from memory, so
 * the hot path does no I/O for it. The answer is read again in the background once it is older than
 * `maxAgeMs`, so a profile another node's configuration added is known here soon without a restart.
 * `refresh()` makes the next lookup read the store again.
 */
export class TenantDirectory {
  private current: ProfileLookup | null = null;
  private loading: Promise<ProfileLookup> | null = null;
  private loadedAt = 0;

  constructor(
    private readonly tenancy: TenancyStore,
    private readonly maxAgeMs = 10_000,
    private readonly realNow: () => number = Date.now,
  ) {}

  async lookup(): Promise<ProfileLookup> {
    if (this.current) {
      if (!this.loading && this.realNow() - this.loadedAt > this.maxAgeMs) this.reloadInBackground();
      return this.current;
    }
    this.loading ??= this.load().then(
      (lookup) => {
        this.current = lookup;
        this.loading = null;
        return lookup;
      },
      (error: unknown) => {
        this.loading = null; // a store that was down is asked again by the next request
        throw error;
      },
    );
    return this.loading;
  }

  refresh(): void {
    this.current = null;
    this.loading = null;
  }

  /** Keeps answering from the current copy while a fresh one is read; a failed read is tried again later. */
  private reloadInBackground(): void {
    this.loading = this.load().then(
      (lookup) => {
        this.current = lookup;
        this.loading = null;
        return lookup;
      },
      () => {
        this.loading = null;
        this.loadedAt = this.realNow();
        return this.current as ProfileLookup;
      },
    );
  }

  private async load(): Promise<ProfileLookup> {
    this.loadedAt = this.realNow();
    const profiles = new Map<string, ReadonlySet<string>>();
    for (const account of await this.tenancy.listAccounts()) {
      const names = (await this.tenancy.listProfiles(account.name)).map((profile) => profile.config.name);
      profiles.set(account.name, new Set(names));
    }
    return (account, profile) => profiles.get(account)?.has(profile) ?? false;
  }
}
