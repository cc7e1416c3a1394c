import type { NewRevision, RevisionStore, StoredRevision, TenancyStore } from "../../core/ports/index.ts";
import { newestFirst } from "../../core/revisions/index.ts";

function profileKey(account: string, profile: string): string {
  return `${account}\u0000${profile}`;
}

/**
 * The reference RevisionStore: revisions per profile, keyed by id. An insert checks everything before it
 * changes anything, so a revision is stored whole or not at all; copies go in and out.
 */
export class MemoryRevisionStore implements RevisionStore {
  private readonly byProfile = new Map<string, Map<string, NewRevision>>();

  constructor(
    private readonly tenancy: TenancyStore,
    private readonly isClosed: () => boolean = () => false,
  ) {}

  /** Removes every record at once, without awaiting (POST /admin/reset, Stores.eraseAll); answers how many there were. */
  eraseAll(): number {
    if (this.isClosed()) throw new Error("store is closed");
    let count = 0;
    for (const revisions of this.byProfile.values()) count += revisions.size;
    this.byProfile.clear();
    return count;
  }

  async insert(revision: NewRevision): Promise<boolean> {
    if (this.isClosed()) throw new Error("store is closed");
    if (!(await this.tenancy.findProfile(revision.account, revision.profile))) {
      throw new Error(`profile ${revision.account}/${revision.profile} does not exist`);
    }
    const key = profileKey(revision.account, revision.profile);
    const revisions = this.byProfile.get(key) ?? new Map<string, NewRevision>();
    if (revisions.has(revision.revisionId)) return false;
    if (revision.seed !== null && [...revisions.values()].some((stored) => stored.seed === revision.seed)) return false;
    revisions.set(revision.revisionId, structuredClone(revision));
    this.byProfile.set(key, revisions);
    return true;
  }

  async listIds(account: string, profile: string): Promise<string[]> {
    return newestFirst([...(this.byProfile.get(profileKey(account, profile))?.keys() ?? [])]);
  }

  async find(account: string, profile: string, revisionId: string): Promise<StoredRevision | null> {
    const found = this.byProfile.get(profileKey(account, profile))?.get(revisionId);
    return found ? withoutBundle(found) : null;
  }

  async findBySeed(account: string, profile: string, seed: string): Promise<StoredRevision | null> {
    for (const revision of this.byProfile.get(profileKey(account, profile))?.values() ?? []) {
      if (revision.seed === seed) return withoutBundle(revision);
    }
    return null;
  }

  async readBundle(account: string, profile: string, revisionId: string): Promise<Uint8Array | null> {
    const found = this.byProfile.get(profileKey(account, profile))?.get(revisionId);
    return found ? new Uint8Array(found.bundle) : null;
  }

  async latestForTarget(account: string, profile: string, target: string): Promise<string | null> {
    let latest: string | null = null;
    for (const revision of this.byProfile.get(profileKey(account, profile))?.values() ?? []) {
      if (revision.details.targets_published.includes(target) && (latest === null || revision.revisionId > latest))
        latest = revision.revisionId;
    }
    return latest;
  }
}

function withoutBundle(revision: NewRevision): StoredRevision {
  const { bundle: _bundle, ...stored } = revision;
  return structuredClone(stored);
}
