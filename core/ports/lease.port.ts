/**
 * A lease: at most one holder at a time among the processes sharing the stores, for work that must run in one
 * place (the profile folding applies events in order; two runners would lose updates). Real time, not the
 * virtual clock: a lease is about processes, not about the service's notion of now.
 */
export interface Lease {
  /** Takes or renews the lease; false while another live holder has it. */
  acquire(): Promise<boolean>;
  /** Gives the lease up (on shutdown), so that another process takes over at once instead of after it expires. */
  release(): Promise<void>;
  /** Gives the lease up for good once the work it guards is done, removing its record. */
  end(): Promise<void>;
}

/**
 * Makes the lease `name` for `holder`, kept for `ttlMs` after each renewal. It is the setting `lease.<name>`
 * of the store, so the leases of a kind can be listed (SettingsStore.keysStartingWith).
 */
export type LeaseFactory = (name: string, holder: string, ttlMs: number) => Lease;
