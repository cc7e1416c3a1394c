import type { ConfiguredRevision } from "../config/config.model.ts";
import { type ManagementError, managementError } from "../errors/management.errors.ts";
import type { Clock } from "../ports/clock.port.ts";
import type { Digests } from "../ports/hashing.port.ts";
import type { StoredRevision } from "../ports/revisions.store.ts";
import type { Stores } from "../ports/stores.ts";
import type { BundleZipper } from "../ports/zip.port.ts";
import { err, ok, type Result } from "../result.ts";
import { KeyedTurns } from "../values/keyed-turns.ts";
import { isStorableText } from "../values/storable-text.rules.ts";
import { manifestFileName } from "./bundle-members.rules.ts";
import {
  buildManifest,
  completeDetails,
  decideBundleRequest,
  decideDetailsRequest,
  type PublicationProblem,
  publicationError,
  type RevisionDetails,
  serializeManifest,
  validatePublication,
} from "./revision.rules.ts";
import { formatTimeCreated, nextFreeRevisionId, parseRevisionId } from "./revision-id.rules.ts";

/**
 * The WHATWG UTF-8 encoder, which every host of the core provides (Bun, Deno, Node, browsers) though ES2023
 * does not define it. Declared here with only what the core uses of it, so that the core type-checks without
 * DOM or runtime types (core/tsconfig.json).
 */
declare const TextEncoder: new () => { encode(text: string): Uint8Array };

/** One file of a publication: its member name (the multipart filename, or the file's name in --dir) and bytes. */
export interface PublishedFile {
  readonly name: string;
  readonly bytes: Uint8Array;
}

/** What a publisher sends (DEC-REV-01, DEC-OPS-04). */
export interface PublishRequest {
  readonly name: string;
  readonly comment: string;
  readonly createdBy: string;
  readonly targets: readonly string[];
  readonly files: readonly PublishedFile[];
}

export interface RevisionsServiceDeps {
  readonly stores: Stores;
  readonly clock: Clock;
  /** The SHA-256 of every member, of the manifest and of the bundle (REV-05..08), and of a configured revision. */
  readonly digests: Digests;
  /** DEC-REV-02: writes the bundle, the same bytes for the same members. */
  readonly zipper: BundleZipper;
  /** DEC-REV-02: the member file prefix *(config)*, `utag` by default. */
  readonly filePrefix: string;
}

/** Why a publication was refused: the catalogue error to answer, and every problem found (for the configuration). */
export interface PublishRefusal {
  readonly error: ManagementError;
  readonly problems: readonly PublicationProblem[];
}

/** A publication from the configuration either made a new revision or found the one a previous start made. */
export interface ConfiguredPublication {
  readonly details: RevisionDetails;
  readonly created: boolean;
}

/** How many minutes a publication moves on when other publications keep taking the one it chose. */
const maxPublishAttempts = 50;

/**
 * The revisions use-cases (REV-01..12, DEC-REV-01..03): publish (validate, checksum, manifest, zip once,
 * store), list, details, bundle. Access (1240/1250/1469) is the route's guard; everything after it is here.
 */
export class RevisionsService {
  /** The publications of each profile, one at a time (publishWithSeed). */
  private readonly publishing = new KeyedTurns();

  constructor(private readonly deps: RevisionsServiceDeps) {}

  /** REV-01: revision ids, newest first. */
  async list(account: string, profile: string): Promise<string[]> {
    return this.deps.stores.revisions.listIds(account, profile);
  }

  /** REV-03, REV-10 */
  async details(
    account: string,
    profile: string,
    revisionId: string,
  ): Promise<Result<RevisionDetails, ManagementError>> {
    const found =
      parseRevisionId(revisionId) === null ? null : await this.deps.stores.revisions.find(account, profile, revisionId);
    return decideDetailsRequest(revisionId, found?.details ?? null);
  }

  /** REV-06, REV-09, REV-11, DEC-REV-03: the stored zip of the newest revision of a target. */
  async bundle(
    account: string,
    profile: string,
    revisionId: string,
    target: string,
  ): Promise<Result<Uint8Array, ManagementError>> {
    const { revisions } = this.deps.stores;
    const wellFormed = parseRevisionId(revisionId) !== null;
    const found = wellFormed ? await revisions.find(account, profile, revisionId) : null;
    // A target no store keeps names none (decisions of our own, "Text that a store cannot keep").
    const latestForTarget =
      found && isStorableText(target) ? await revisions.latestForTarget(account, profile, target) : null;
    const decision = decideBundleRequest({ revisionId, target, revision: found?.details ?? null, latestForTarget });
    if (!decision.ok) return decision;
    const bundle = await revisions.readBundle(account, profile, revisionId);
    return bundle ? ok(bundle) : err(managementError("revisionDetailsNotFound"));
  }

  /**
   * DEC-REV-01, DEC-REV-02: publishes a revision. Unknown account or profile: 404 1240 / 1250; a refused
   * publication: 400 1400 naming its first problem.
   */
  async publish(
    account: string,
    profile: string,
    request: PublishRequest,
  ): Promise<Result<RevisionDetails, PublishRefusal>> {
    const published = await this.publishWithSeed(account, profile, request, null);
    return published.ok ? ok(published.value.details) : published;
  }

  /**
   * demo.md, DEC-OPS-03: publishes a revision of the configuration unless a previous start already did and no
   * other configured version was published onto its targets since. The seed is a fingerprint of everything
   * the configuration says about it, so editing it publishes anew, and so does reverting it to a version
   * published before; a revision published through the API or the CLI is left the latest.
   */
  async publishConfigured(revision: ConfiguredRevision): Promise<Result<ConfiguredPublication, PublishRefusal>> {
    const files = revision.files.map((file) => ({ name: file.name, bytes: new TextEncoder().encode(file.text) }));
    const request: PublishRequest = {
      name: revision.name,
      comment: revision.comment,
      createdBy: revision.createdBy,
      targets: revision.targets,
      files,
    };
    return this.publishWithSeed(
      revision.account,
      revision.profile,
      request,
      await configuredSeed(revision, this.deps.filePrefix, this.deps.digests),
    );
  }

  private async publishWithSeed(
    account: string,
    profile: string,
    request: PublishRequest,
    seed: string | null,
  ): Promise<Result<ConfiguredPublication, PublishRefusal>> {
    const { stores, clock, digests, zipper, filePrefix } = this.deps;
    // A name no store keeps names no account (decisions of our own, "Text that a store cannot keep").
    if (!isStorableText(account) || !(await stores.tenancy.findAccount(account)))
      return err({ error: managementError("accountNotFound"), problems: [] });
    if (!isStorableText(profile) || !(await stores.tenancy.findProfile(account, profile)))
      return err({ error: managementError("profileNotFound"), problems: [] });

    const input = {
      account,
      profile,
      ...request,
      files: request.files.map((file) => ({ name: file.name, size: file.bytes.byteLength })),
    };
    const validated = validatePublication(input, filePrefix);
    if (!validated.ok) return err({ error: publicationError(validated.error), problems: validated.error });
    const publication = validated.value;

    let storedSeed = seed;
    if (seed !== null) {
      const configured = await this.findConfigured(account, profile, seed);
      if (configured.current) return ok({ details: configured.current.details, created: false });
      storedSeed = configured.nextSeed;
    }

    const members = publication.files.map((member) => ({
      name: member.name,
      bytes: request.files[member.index]?.bytes ?? new Uint8Array(0),
    }));
    const memberChecksums = await Promise.all(
      members.map(async (member) => [member.name, await digests.sha256Hex(member.bytes)] as const),
    );
    // One publication of a profile at a time in this process: each then reads the minutes taken before it and
    // takes the next free one at its first attempt (80 at once all read the same minute, and the k-th
    // needed k attempts). Another process's publication at the same minute is the retry's case.
    return this.publishing.run(`${account}/${profile}`, async () => {
      const now = clock.now();
      const taken = new Set(await stores.revisions.listIds(account, profile));
      for (let attempt = 0; attempt < maxPublishAttempts; attempt += 1) {
        const revisionId = nextFreeRevisionId(now, (id) => taken.has(id));
        const manifest = buildManifest({
          revisionId,
          account,
          profile,
          name: publication.name,
          timeCreated: formatTimeCreated(now),
          comment: publication.comment,
          createdBy: publication.createdBy,
          targets: publication.targets,
          memberChecksums,
        });
        const manifestBytes = new TextEncoder().encode(serializeManifest(manifest));
        const bundle = await zipper.zip([...members, { name: manifestFileName, bytes: manifestBytes }]);
        const details = completeDetails(manifest, {
          manifest: await digests.sha256Hex(manifestBytes),
          bundle: await digests.sha256Hex(bundle),
        });
        if (
          await stores.revisions.insert({
            account,
            profile,
            revisionId,
            createdAt: now,
            seed: storedSeed,
            details,
            bundle,
          })
        ) {
          return ok({ details, created: true });
        }
        // Another publication took the minute (or, for a configured revision, another node published it).
        if (storedSeed !== null) {
          const existing = await stores.revisions.findBySeed(account, profile, storedSeed);
          if (existing) return ok({ details: existing.details, created: false });
        }
        // The minutes other processes took meanwhile.
        taken.add(revisionId);
        for (const id of await stores.revisions.listIds(account, profile)) taken.add(id);
      }
      throw new Error(
        `could not find a free revision minute for ${account}/${profile} after ${maxPublishAttempts} attempts`,
      );
    });
  }

  /**
   * The newest publication of a configured revision, and whether it is still the newest revision of each of
   * its targets (then there is nothing to publish). The store keeps a seed once per profile, so publishing
   * the same configuration again stores it as its next generation (`<seed>#2`, `#3`, ...): the same for every
   * node, so that two nodes starting together still publish it once.
   */
  private async findConfigured(
    account: string,
    profile: string,
    seed: string,
  ): Promise<{ current: StoredRevision | null; nextSeed: string }> {
    const { revisions } = this.deps.stores;
    let newest: StoredRevision | null = null;
    let generation = 1;
    for (;;) {
      const found = await revisions.findBySeed(account, profile, seedOfGeneration(seed, generation));
      if (!found) break;
      newest = found;
      generation += 1;
    }
    const nextSeed = seedOfGeneration(seed, generation);
    if (!newest) return { current: null, nextSeed };
    // Another configured version published onto one of its targets later (the file was edited, then
    // reverted): this one is published again. Revisions without a seed (the API, the CLI) do not count.
    const targets = new Set(newest.details.targets_published);
    for (const revisionId of await revisions.listIds(account, profile)) {
      if (revisionId <= newest.revisionId) continue;
      const later = await revisions.find(account, profile, revisionId);
      if (
        later?.seed &&
        baseSeed(later.seed) !== seed &&
        later.details.targets_published.some((target) => targets.has(target))
      )
        return { current: null, nextSeed };
    }
    return { current: newest, nextSeed };
  }
}

/** The seed of a configured revision whatever the publication (`<seed>#<n>` is its n-th). */
function baseSeed(stored: string): string {
  const hash = stored.indexOf("#");
  return hash < 0 ? stored : stored.slice(0, hash);
}

/** The seed stored with the n-th publication of one configured revision: the first keeps the plain seed. */
function seedOfGeneration(seed: string, generation: number): string {
  return generation === 1 ? seed : `${seed}#${generation}`;
}

/** The fingerprint of a configured revision: its place, words, targets, prefix and every file's name and SHA-256. */
export async function configuredSeed(
  revision: ConfiguredRevision,
  filePrefix: string,
  digests: Digests,
): Promise<string> {
  const canonical = JSON.stringify([
    revision.account,
    revision.profile,
    revision.name,
    revision.comment,
    revision.createdBy,
    revision.targets,
    filePrefix,
    await Promise.all(revision.files.map(async (file) => [file.name, await digests.sha256Hex(file.text)])),
  ]);
  return `config:${await digests.sha256Hex(canonical)}`;
}
