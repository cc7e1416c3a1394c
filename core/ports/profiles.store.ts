import type { VisitorProfile } from "../profiles/profile.rules.ts";

/** One stitching: a group of visitors joined into another (VID-08, PRV-09). */
export interface MergeRecord {
  /** The canonical id that disappeared into `into`. */
  readonly from: string;
  readonly into: string;
  readonly at: number;
}

/** One group's profile and members, as `save` takes them. */
export interface ProfileSave {
  readonly account: string;
  readonly profile: string;
  readonly canonical: string;
  readonly data: VisitorProfile;
  /** Ids to make members of the group; the canonical id always is one. */
  readonly members: readonly string[];
  /**
   * Set by a caller that has just read the group from the store: the canonical id is recorded as a member
   * already, so its member record need not be written again. Most events are of a returning visitor, whose
   * profile changes while its membership does not; skipping that write saved about a sixth of the profile
   * worker's time (bench/FINDINGS.md). A hint only: a store may write the record anyway.
   */
  readonly canonicalRecorded?: boolean;
}

/** A visitor's group and profile, and since when an engine has been enabled (DEC-MOM-04; null: disabled or never). */
export interface FoundForEngine {
  readonly canonical: string;
  readonly data: VisitorProfile;
  readonly engineEnabledSince: number | null;
}

/**
 * Visitor profiles (DEC-PRO-03) per account and profile. A profile belongs to a group of visitor ids (its
 * members: anonymous ids and known ids) under one canonical id; any member finds it with one indexed read.
 */
export interface ProfileStore {
  /** The canonical id of the group a visitor id belongs to, or null when it is in none. */
  canonicalOf(account: string, profile: string, visitorId: string): Promise<string | null>;
  /** `canonicalOf` of several ids with one read: ids in no group are absent from the answer. */
  canonicalsOf(account: string, profile: string, visitorIds: readonly string[]): Promise<Map<string, string>>;
  /** Every member id of a group (the canonical id among them). */
  membersOf(account: string, profile: string, canonical: string): Promise<string[]>;
  find(account: string, profile: string, canonical: string): Promise<VisitorProfile | null>;
  /** The group of a visitor id and its profile, with one read; null when it has none. */
  findByMember(
    account: string,
    profile: string,
    visitorId: string,
  ): Promise<{ canonical: string; data: VisitorProfile } | null>;
  /**
   * A moments lookup's reads: `findByMember` with the `engineEnabledSince` of `engineId`, in one read where the
   * store can (one read instead of two took about a third off a lookup's reads, bench/FINDINGS.md). Null when
   * the visitor id is in no group.
   */
  findForEngine(account: string, profile: string, visitorId: string, engineId: string): Promise<FoundForEngine | null>;
  /** `find` of several groups with one read: groups without a profile are absent from the answer. */
  findMany(account: string, profile: string, canonicals: readonly string[]): Promise<Map<string, VisitorProfile>>;
  /** Writes a group's profile and makes every id of `members` a member of it. */
  save(
    account: string,
    profile: string,
    canonical: string,
    data: VisitorProfile,
    members: readonly string[],
  ): Promise<void>;
  /** Several `save`s in one commit (the profile worker writes a whole batch of events at once). */
  saveMany(entries: readonly ProfileSave[]): Promise<void>;
  /**
   * Joins the groups `from` (canonical ids) into `into` in one commit: their members become members of
   * `into`, their profiles are removed, `data` is the joined profile, and each join is recorded.
   */
  merge(
    account: string,
    profile: string,
    into: string,
    from: readonly string[],
    data: VisitorProfile,
    at: number,
  ): Promise<void>;
  /** The joins that made a group, oldest first. */
  mergesInto(account: string, profile: string, canonical: string): Promise<MergeRecord[]>;
  /**
   * PRV-09, DEC-PRV-04: removes a group in one commit: its profile, every member id and the records of the
   * joins that made it. Answers how many member ids were removed (0 when there was no such group).
   */
  deleteGroup(account: string, profile: string, canonical: string): Promise<number>;
  /**
   * DEC-PRV-05: takes a deleted value (normalised) out of every profile of the account and profile, as
   * eraseValueFromProfile decides, in one commit: the profiles' text attributes that held it are removed.
   * The groups known by it (a captured visitor ID value holds it) are not changed here: their canonical ids
   * are answered, for the caller to remove with their events (deleteGroup).
   */
  eraseValue(
    account: string,
    profile: string,
    erased: string,
  ): Promise<{ readonly edited: number; readonly groups: readonly string[] }>;
  /** DEC-MOM-04: since when an engine has been enabled (null: disabled or never). */
  engineEnabledSince(account: string, profile: string, engineId: string): Promise<number | null>;
  setEngineEnabledSince(account: string, profile: string, engineId: string, since: number | null): Promise<void>;
}
