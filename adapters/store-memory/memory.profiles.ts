import type { MergeRecord, ProfileStore } from "../../core/ports/index.ts";
import { eraseValueFromProfile } from "../../core/privacy/index.ts";
import { ProfileStoreOfSingleReads, type VisitorProfile } from "../../core/profiles/index.ts";

/** The reference ProfileStore: groups of visitor ids per account/profile, each with one profile. */
export class MemoryProfileStore extends ProfileStoreOfSingleReads implements ProfileStore {
  /** `${account}\u0000${profile}\u0000${member}` → canonical id. */
  private readonly canonical = new Map<string, string>();
  private readonly profiles = new Map<string, VisitorProfile>();
  private readonly merges: Array<MergeRecord & { account: string; profile: string }> = [];
  private readonly engines = new Map<string, number | null>();

  constructor(private readonly isClosed: () => boolean = () => false) {
    super();
  }

  private key(account: string, profile: string, id: string): string {
    return `${account}\u0000${profile}\u0000${id}`;
  }

  private check(): void {
    if (this.isClosed()) throw new Error("store is closed");
  }

  /** Removes every record at once, without awaiting (POST /admin/reset, Stores.eraseAll); answers how many profiles there were. */
  eraseAll(): number {
    this.check();
    const count = this.profiles.size;
    this.canonical.clear();
    this.profiles.clear();
    this.merges.length = 0;
    this.engines.clear();
    return count;
  }

  async canonicalOf(account: string, profile: string, visitorId: string): Promise<string | null> {
    this.check();
    return this.canonical.get(this.key(account, profile, visitorId)) ?? null;
  }

  async membersOf(account: string, profile: string, canonical: string): Promise<string[]> {
    this.check();
    const prefix = this.key(account, profile, "");
    return [...this.canonical]
      .filter(([key, value]) => key.startsWith(prefix) && value === canonical)
      .map(([key]) => key.slice(prefix.length))
      .sort();
  }

  async find(account: string, profile: string, canonical: string): Promise<VisitorProfile | null> {
    this.check();
    const found = this.profiles.get(this.key(account, profile, canonical));
    return found ? structuredClone(found) : null;
  }

  async save(
    account: string,
    profile: string,
    canonical: string,
    data: VisitorProfile,
    members: readonly string[],
  ): Promise<void> {
    this.check();
    this.profiles.set(this.key(account, profile, canonical), structuredClone(data));
    for (const member of new Set([canonical, ...members]))
      this.canonical.set(this.key(account, profile, member), canonical);
  }

  async merge(
    account: string,
    profile: string,
    into: string,
    from: readonly string[],
    data: VisitorProfile,
    at: number,
  ): Promise<void> {
    this.check();
    const joined = new Set(from.filter((id) => id !== into));
    for (const [key, value] of this.canonical) {
      if (key.startsWith(this.key(account, profile, "")) && joined.has(value)) this.canonical.set(key, into);
    }
    for (const id of joined) {
      this.profiles.delete(this.key(account, profile, id));
      this.canonical.set(this.key(account, profile, id), into);
      this.merges.push({ account, profile, from: id, into, at });
    }
    this.canonical.set(this.key(account, profile, into), into);
    this.profiles.set(this.key(account, profile, into), structuredClone(data));
    // Joins recorded into a group that is now joined itself follow it.
    for (const record of this.merges)
      if (record.account === account && record.profile === profile && joined.has(record.into))
        Object.assign(record, { into });
  }

  async mergesInto(account: string, profile: string, canonical: string): Promise<MergeRecord[]> {
    this.check();
    return this.merges
      .filter((record) => record.account === account && record.profile === profile && record.into === canonical)
      .map(({ from, into, at }) => ({ from, into, at }));
  }

  async deleteGroup(account: string, profile: string, canonical: string): Promise<number> {
    this.check();
    const prefix = this.key(account, profile, "");
    const members = [...this.canonical]
      .filter(([key, value]) => key.startsWith(prefix) && value === canonical)
      .map(([key]) => key);
    for (const key of members) this.canonical.delete(key);
    this.profiles.delete(this.key(account, profile, canonical));
    const memberIds = new Set(members.map((key) => key.slice(prefix.length)));
    const kept = this.merges.filter(
      (record) =>
        !(
          record.account === account &&
          record.profile === profile &&
          (record.into === canonical || memberIds.has(record.from))
        ),
    );
    this.merges.splice(0, this.merges.length, ...kept);
    return members.length;
  }

  async eraseValue(account: string, profile: string, erased: string): Promise<{ edited: number; groups: string[] }> {
    this.check();
    const prefix = this.key(account, profile, "");
    const groups: string[] = [];
    let edited = 0;
    for (const [key, data] of this.profiles) {
      if (!key.startsWith(prefix)) continue;
      const erasure = eraseValueFromProfile(data, erased);
      if (erasure.kind === "remove-group") groups.push(key.slice(prefix.length));
      if (erasure.kind === "edit") {
        this.profiles.set(key, erasure.data);
        edited += 1;
      }
    }
    return { edited, groups: groups.sort() };
  }

  async engineEnabledSince(account: string, profile: string, engineId: string): Promise<number | null> {
    this.check();
    return this.engines.get(this.key(account, profile, engineId)) ?? null;
  }

  async setEngineEnabledSince(account: string, profile: string, engineId: string, since: number | null): Promise<void> {
    this.check();
    this.engines.set(this.key(account, profile, engineId), since);
  }
}
