import type { MergeRecord, ProfileSave, ProfileStore } from "../ports/index.ts";
import type { VisitorProfile } from "./profile.rules.ts";
import { ProfileStoreOfSingleReads } from "./profile-store-reads.ts";

/**
 * The profile store as one batch of the profile worker sees it: the groups and profiles of the batch's
 * visitors are read together up front (`prefetch`), reads of what the batch read or wrote are answered
 * from memory, and the writes go to the store together in one commit at `flush`. Rare operations (joins,
 * member lists, deletions) flush first and then go to the store, so they always see every write before
 * them; joins and deletions also forget what was read, since they change groups in the store. A member
 * record the store is known to hold already (read, or written by an earlier flush of the batch) is not
 * written again.
 */
export class BufferedProfileStore extends ProfileStoreOfSingleReads implements ProfileStore {
  /** What is known of a member id: its group, or null when it is known to be in none. */
  private readonly canonical = new Map<string, string | null>();
  /** What is known of a group: its profile, or null when it is known to have none. */
  private readonly profiles = new Map<string, VisitorProfile | null>();
  /** The group of each member id as the store records it (read or written by this batch): unlike `canonical`, not moved by buffered saves. */
  private readonly recorded = new Map<string, string | null>();
  private readonly pending = new Map<
    string,
    { account: string; profile: string; canonical: string; data: VisitorProfile; members: Set<string> }
  >();

  constructor(private readonly inner: ProfileStore) {
    super();
  }

  private key(account: string, profile: string, id: string): string {
    return `${account}\u0000${profile}\u0000${id}`;
  }

  /** Reads the groups of `visitorIds` and the profiles of those groups, two reads for the lot. */
  async prefetch(account: string, profile: string, visitorIds: readonly string[]): Promise<void> {
    const unknownIds = [...new Set(visitorIds)].filter((id) => !this.canonical.has(this.key(account, profile, id)));
    if (unknownIds.length === 0) return;
    const groups = await this.inner.canonicalsOf(account, profile, unknownIds);
    for (const id of unknownIds) {
      const key = this.key(account, profile, id);
      this.canonical.set(key, groups.get(id) ?? null);
      this.recorded.set(key, groups.get(id) ?? null);
    }
    const unknownGroups = [...new Set(groups.values())].filter(
      (canonical) => !this.profiles.has(this.key(account, profile, canonical)),
    );
    if (unknownGroups.length === 0) return;
    const found = await this.inner.findMany(account, profile, unknownGroups);
    for (const canonical of unknownGroups)
      this.profiles.set(this.key(account, profile, canonical), found.get(canonical) ?? null);
  }

  async canonicalOf(account: string, profile: string, visitorId: string): Promise<string | null> {
    const known = this.canonical.get(this.key(account, profile, visitorId));
    return known !== undefined ? known : this.inner.canonicalOf(account, profile, visitorId);
  }

  override async canonicalsOf(
    account: string,
    profile: string,
    visitorIds: readonly string[],
  ): Promise<Map<string, string>> {
    await this.prefetch(account, profile, visitorIds);
    return super.canonicalsOf(account, profile, visitorIds);
  }

  async find(account: string, profile: string, canonical: string): Promise<VisitorProfile | null> {
    const known = this.profiles.get(this.key(account, profile, canonical));
    return known !== undefined ? known : this.inner.find(account, profile, canonical);
  }

  async save(
    account: string,
    profile: string,
    canonical: string,
    data: VisitorProfile,
    members: readonly string[],
  ): Promise<void> {
    const groupKey = this.key(account, profile, canonical);
    this.profiles.set(groupKey, data);
    for (const member of [canonical, ...members]) this.canonical.set(this.key(account, profile, member), canonical);
    const entry = this.pending.get(groupKey) ?? { account, profile, canonical, data, members: new Set<string>() };
    entry.data = data;
    for (const member of members) entry.members.add(member);
    this.pending.set(groupKey, entry);
  }

  /** Writes every buffered save in one commit, with only the member records the store does not hold yet. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const isRecorded = (account: string, profile: string, id: string, canonical: string) =>
      this.recorded.get(this.key(account, profile, id)) === canonical;
    const entries: ProfileSave[] = [...this.pending.values()].map(({ account, profile, canonical, data, members }) => ({
      account,
      profile,
      canonical,
      data,
      members: [...members].filter((id) => id !== canonical && !isRecorded(account, profile, id, canonical)),
      canonicalRecorded: isRecorded(account, profile, canonical, canonical),
    }));
    await this.inner.saveMany(entries);
    this.pending.clear();
    for (const entry of entries)
      for (const id of [entry.canonical, ...entry.members])
        this.recorded.set(this.key(entry.account, entry.profile, id), entry.canonical);
  }

  /** Forgets what this batch read and wrote (after a join, which changes groups in the store). */
  private async flushAndForget(): Promise<void> {
    await this.flush();
    this.canonical.clear();
    this.profiles.clear();
    this.recorded.clear();
  }

  async membersOf(account: string, profile: string, canonical: string): Promise<string[]> {
    await this.flush();
    return this.inner.membersOf(account, profile, canonical);
  }

  async merge(
    account: string,
    profile: string,
    into: string,
    from: readonly string[],
    data: VisitorProfile,
    at: number,
  ): Promise<void> {
    await this.flushAndForget();
    await this.inner.merge(account, profile, into, from, data, at);
  }

  async mergesInto(account: string, profile: string, canonical: string): Promise<MergeRecord[]> {
    await this.flush();
    return this.inner.mergesInto(account, profile, canonical);
  }

  async deleteGroup(account: string, profile: string, canonical: string): Promise<number> {
    await this.flushAndForget();
    return this.inner.deleteGroup(account, profile, canonical);
  }

  async eraseValue(
    account: string,
    profile: string,
    erased: string,
  ): Promise<{ readonly edited: number; readonly groups: readonly string[] }> {
    await this.flushAndForget();
    return this.inner.eraseValue(account, profile, erased);
  }

  engineEnabledSince(account: string, profile: string, engineId: string): Promise<number | null> {
    return this.inner.engineEnabledSince(account, profile, engineId);
  }

  setEngineEnabledSince(account: string, profile: string, engineId: string, since: number | null): Promise<void> {
    return this.inner.setEngineEnabledSince(account, profile, engineId, since);
  }
}
