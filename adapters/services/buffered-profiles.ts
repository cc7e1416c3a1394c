import type { MergeRecord, ProfileSave, ProfileStore } from "../../core/ports/index.ts";
import type { VisitorProfile } from "../../core/profiles/profile.rules.ts";

/**
 * The profile store as one batch of the profile worker sees it: reads of groups and profiles this batch
 * wrote are answered from memory, and the writes go to the store together in one commit at `flush`. Rare
 * operations (joins, member lists, deletions) flush first and then go to the store, so they always see
 * every write before them.
 */
export class BufferedProfileStore implements ProfileStore {
  private readonly canonical = new Map<string, string>();
  private readonly profiles = new Map<string, VisitorProfile>();
  private readonly pending = new Map<string, { account: string; profile: string; canonical: string; data: VisitorProfile; members: Set<string> }>();

  constructor(private readonly inner: ProfileStore) {}

  private key(account: string, profile: string, id: string): string {
    return `${account}\u0000${profile}\u0000${id}`;
  }

  async canonicalOf(account: string, profile: string, visitorId: string): Promise<string | null> {
    return this.canonical.get(this.key(account, profile, visitorId)) ?? this.inner.canonicalOf(account, profile, visitorId);
  }

  async find(account: string, profile: string, canonical: string): Promise<VisitorProfile | null> {
    return this.profiles.get(this.key(account, profile, canonical)) ?? this.inner.find(account, profile, canonical);
  }

  async save(account: string, profile: string, canonical: string, data: VisitorProfile, members: readonly string[]): Promise<void> {
    const groupKey = this.key(account, profile, canonical);
    this.profiles.set(groupKey, data);
    for (const member of [canonical, ...members]) this.canonical.set(this.key(account, profile, member), canonical);
    const entry = this.pending.get(groupKey) ?? { account, profile, canonical, data, members: new Set<string>() };
    entry.data = data;
    for (const member of members) entry.members.add(member);
    this.pending.set(groupKey, entry);
  }

  async saveMany(entries: readonly ProfileSave[]): Promise<void> {
    for (const entry of entries) await this.save(entry.account, entry.profile, entry.canonical, entry.data, entry.members);
  }

  /** Writes every buffered save in one commit. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const entries = [...this.pending.values()].map((entry) => ({ ...entry, members: [...entry.members] }));
    await this.inner.saveMany(entries);
    this.pending.clear();
  }

  /** Forgets what this batch read and wrote (after a join, which changes groups in the store). */
  private async flushAndForget(): Promise<void> {
    await this.flush();
    this.canonical.clear();
    this.profiles.clear();
  }

  async membersOf(account: string, profile: string, canonical: string): Promise<string[]> {
    await this.flush();
    return this.inner.membersOf(account, profile, canonical);
  }

  async merge(account: string, profile: string, into: string, from: readonly string[], data: VisitorProfile, at: number): Promise<void> {
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

  engineEnabledSince(account: string, profile: string, engineId: string): Promise<number | null> {
    return this.inner.engineEnabledSince(account, profile, engineId);
  }

  setEngineEnabledSince(account: string, profile: string, engineId: string, since: number | null): Promise<void> {
    return this.inner.setEngineEnabledSince(account, profile, engineId, since);
  }
}
