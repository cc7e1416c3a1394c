import type { TenancyStore } from "../../core/ports/index.ts";

export type ProfileLookup = (account: string, profile: string) => boolean;

/**
 * COL-05, DEC-COL-02: which account/profile pairs exist, read from the store once (the configuration has
 * been applied to it before the app serves) and then answered from memory, so the hot path does no I/O
 * for it. `refresh()` makes the next lookup read the store again.
 */
export class TenantDirectory {
  private current: ProfileLookup | null = null;
  private loading: Promise<ProfileLookup> | null = null;

  constructor(private readonly tenancy: TenancyStore) {}

  async lookup(): Promise<ProfileLookup> {
    if (this.current) return this.current;
    this.loading ??= this.load().then(
      (lookup) => (this.current = lookup),
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

  private async load(): Promise<ProfileLookup> {
    const profiles = new Map<string, ReadonlySet<string>>();
    for (const account of await this.tenancy.listAccounts()) {
      const names = (await this.tenancy.listProfiles(account.name)).map((profile) => profile.config.name);
      profiles.set(account.name, new Set(names));
    }
    return (account, profile) => profiles.get(account)?.has(profile) ?? false;
  }
}
