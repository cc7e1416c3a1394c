import type { RevisionDetails } from "../revisions/revision.rules.ts";

/** A published revision as stored: its details, served as they are (REV-03). */
export interface StoredRevision {
  readonly account: string;
  readonly profile: string;
  /** REV-02: `YYYYMMDDHHMM`, unique within the profile. */
  readonly revisionId: string;
  /** Virtual-clock time of the publication, epoch milliseconds. */
  readonly createdAt: number;
  /**
   * The fingerprint of the configured revision this one was published from at start, so that a restart
   * does not publish it again; null for revisions published through the admin API or the command line.
   */
  readonly seed: string | null;
  readonly details: RevisionDetails;
}

/** A revision to store, with its bundle: the zip built once at publish time (DEC-REV-02). */
export interface NewRevision extends StoredRevision {
  readonly bundle: Uint8Array;
}

/** Published revisions and their bundles (REV-01..12, DEC-REV-01..03). */
export interface RevisionStore {
  /**
   * Stores the revision, its targets and its bundle together. Resolves false, storing nothing, when the
   * profile already has a revision with this id or with this seed (another publication won the minute).
   * The profile must exist.
   */
  insert(revision: NewRevision): Promise<boolean>;
  /** REV-01: the profile's revision ids, newest (largest) first. */
  listIds(account: string, profile: string): Promise<string[]>;
  find(account: string, profile: string, revisionId: string): Promise<StoredRevision | null>;
  findBySeed(account: string, profile: string, seed: string): Promise<StoredRevision | null>;
  /** The stored bundle bytes, exactly as built. */
  readBundle(account: string, profile: string, revisionId: string): Promise<Uint8Array | null>;
  /** DEC-REV-03: the newest revision id published to the target, or null. */
  latestForTarget(account: string, profile: string, target: string): Promise<string | null>;
}
