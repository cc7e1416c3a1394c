import type { FoundForEngine, ProfileSave, ProfileStore } from "../ports/index.ts";
import type { VisitorProfile } from "./profile.rules.ts";

/**
 * A ProfileStore whose reads of several ids, lookups and batch saves are made of its single ones: for stores
 * where two reads cost no more than one (in memory, or a batch's buffer in front of a store). The buffered
 * profiles of the profile worker and the memory store build on it, each a whole ProfileStore.
 */
export abstract class ProfileStoreOfSingleReads
  implements Pick<ProfileStore, "canonicalsOf" | "findByMember" | "findForEngine" | "findMany" | "saveMany">
{
  abstract canonicalOf(account: string, profile: string, visitorId: string): Promise<string | null>;
  abstract find(account: string, profile: string, canonical: string): Promise<VisitorProfile | null>;
  abstract save(...save: Parameters<ProfileStore["save"]>): Promise<void>;
  abstract engineEnabledSince(account: string, profile: string, engineId: string): Promise<number | null>;

  async canonicalsOf(account: string, profile: string, visitorIds: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const id of visitorIds) {
      const canonical = await this.canonicalOf(account, profile, id);
      if (canonical !== null) found.set(id, canonical);
    }
    return found;
  }

  /** `canonicalOf` then `find`. */
  async findByMember(
    account: string,
    profile: string,
    visitorId: string,
  ): Promise<{ canonical: string; data: VisitorProfile } | null> {
    const canonical = await this.canonicalOf(account, profile, visitorId);
    const data = canonical === null ? null : await this.find(account, profile, canonical);
    return canonical !== null && data ? { canonical, data } : null;
  }

  /** `findByMember` and `engineEnabledSince`. */
  async findForEngine(
    account: string,
    profile: string,
    visitorId: string,
    engineId: string,
  ): Promise<FoundForEngine | null> {
    const [found, engineEnabledSince] = await Promise.all([
      this.findByMember(account, profile, visitorId),
      this.engineEnabledSince(account, profile, engineId),
    ]);
    return found ? { ...found, engineEnabledSince } : null;
  }

  async findMany(
    account: string,
    profile: string,
    canonicals: readonly string[],
  ): Promise<Map<string, VisitorProfile>> {
    const found = new Map<string, VisitorProfile>();
    for (const canonical of canonicals) {
      const data = await this.find(account, profile, canonical);
      if (data) found.set(canonical, data);
    }
    return found;
  }

  async saveMany(entries: readonly ProfileSave[]): Promise<void> {
    for (const entry of entries)
      await this.save(entry.account, entry.profile, entry.canonical, entry.data, entry.members);
  }
}
