/**
 * Publishing a revision and answering for it (REV-01..12, DEC-REV-01..03): what a publication must hold,
 * the details and manifest shapes, and which bundle may be served. Checksums are computed by the caller
 * (hashing is a port), so everything here stays pure.
 */
import { type ManagementError, managementError } from "../errors/index.ts";
import { fitsCombinedLength, isAllowedName } from "../names/names.rules.ts";
import { err, ok, type Result } from "../result.ts";
import { characterCount } from "../values/characters.ts";
import {
  type BundleMemberName,
  bundleFileName,
  classifyMemberName,
  compareMembers,
  manifestFileName,
} from "./bundle-members.rules.ts";
import { parseRevisionId } from "./revision-id.rules.ts";

/** REV-03: the revision object, as the details call answers it (field names as the contract spells them). */
export interface RevisionDetails {
  readonly revision_id: string;
  readonly account: string;
  readonly profile: string;
  readonly name: string;
  readonly time_created: string;
  /** REV-05: target -> file name -> SHA-256 hex. */
  readonly checksums: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly comment: string;
  readonly created_by: string;
  readonly targets_published: readonly string[];
}

/** What a publisher sends (DEC-REV-01, DEC-OPS-04); file contents stay with the caller, only sizes come here. */
export interface PublicationInput {
  readonly account: string;
  readonly profile: string;
  readonly name: string;
  readonly comment: string;
  readonly createdBy: string;
  readonly targets: readonly string[];
  readonly files: readonly { readonly name: string; readonly size: number }[];
}

/** A publication that passed every check; `files` are in bundle order, each with its index in the input. */
export interface Publication {
  readonly name: string;
  readonly comment: string;
  readonly createdBy: string;
  readonly targets: readonly string[];
  readonly files: readonly (BundleMemberName & { readonly index: number })[];
}

export type PublicationField = "name" | "comment" | "createdBy" | "targets" | "files";

/** One reason a publication is refused: which field (and item), and what is wrong, in words. */
export interface PublicationProblem {
  readonly field: PublicationField;
  /** The item of `targets` or `files` the problem is about. */
  readonly index?: number;
  /** What the problem is about, as an API message names it: `name`, `target "a b"`, `file name "../x.js"`. */
  readonly subject: string;
  readonly problem: string;
}

export interface PublicationLimits {
  readonly maxNameLength: number;
  readonly maxCommentLength: number;
  /** The details repeat every member's checksum per target: 1,000 files for 2,000 targets made 49 MB. */
  readonly maxTargets: number;
  readonly maxFiles: number;
  readonly maxFileBytes: number;
}

export const defaultPublicationLimits: PublicationLimits = {
  maxNameLength: 256,
  maxCommentLength: 4096,
  maxTargets: 100,
  maxFiles: 1000,
  maxFileBytes: 10 * 1024 * 1024,
};

const emailShape = /^[^\s@]+@[^\s@]+\.[^\s@.]+$/;

/**
 * A target that would shadow the details call: `.../revisions/{id}/details` always means the details, so a
 * target of that name could never be downloaded.
 */
const reservedTargets = new Set(["details"]);

/**
 * DEC-REV-01, DEC-REV-02: checks a publication and puts its files in bundle order. Every problem is
 * reported, in the order of the fields; the main loader is required; a target follows DEC-DLE-02.
 */
export function validatePublication(
  input: PublicationInput,
  prefix: string,
  limits: PublicationLimits = defaultPublicationLimits,
): Result<Publication, PublicationProblem[]> {
  const problems: PublicationProblem[] = [];
  const report = (field: PublicationField, subject: string, problem: string, index?: number) =>
    problems.push(index === undefined ? { field, subject, problem } : { field, index, subject, problem });

  const name = input.name.trim();
  // Characters (code points), as the message says, not UTF-16 units.
  if (name.length === 0) report("name", "name", "must not be empty");
  else if (characterCount(name) > limits.maxNameLength)
    report("name", "name", `must be at most ${limits.maxNameLength} characters`);
  if (characterCount(input.comment) > limits.maxCommentLength)
    report("comment", "comment", `must be at most ${limits.maxCommentLength} characters`);
  if (!emailShape.test(input.createdBy)) report("createdBy", "created_by", "must be an e-mail address");

  if (input.targets.length === 0) report("targets", "targets", "must name at least one target");
  else if (input.targets.length > limits.maxTargets)
    report("targets", "targets", `must name at most ${limits.maxTargets} targets`);
  const targets = new Set<string>();
  input.targets.forEach((target, index) => {
    const subject = `target ${JSON.stringify(target)}`;
    if (!isAllowedName(target)) report("targets", subject, "may contain only the characters A-Z a-z 0-9 _ - ~", index);
    else if (reservedTargets.has(target))
      report("targets", subject, "is reserved: .../revisions/{revision_id}/details is the details call", index);
    else if (!fitsCombinedLength(input.account, input.profile, target))
      report(
        "targets",
        subject,
        "is too long: account, profile and target together must be at most 250 characters",
        index,
      );
    else if (targets.has(target)) report("targets", subject, "is given twice", index);
    targets.add(target);
  });

  if (input.files.length > limits.maxFiles) report("files", "files", `must be at most ${limits.maxFiles}`);
  const members: (BundleMemberName & { index: number })[] = [];
  const seen = new Set<string>();
  for (const [index, file] of input.files.entries()) {
    const subject = `file name ${JSON.stringify(file.name)}`;
    const member = classifyMemberName(file.name, prefix);
    if (!member.ok) report("files", subject, member.error, index);
    else if (seen.has(file.name)) report("files", subject, "is given twice", index);
    else if (file.size > limits.maxFileBytes)
      report("files", subject, `is larger than ${limits.maxFileBytes} bytes`, index);
    else {
      seen.add(file.name);
      members.push({ ...member.value, index });
    }
  }
  if (
    !members.some((member) => member.kind === "loader") &&
    !problems.some((p) => p.field === "files" && p.index !== undefined)
  ) {
    report("files", "files", `must include the main loader ${prefix}.js`);
  }

  if (problems.length > 0) return err(problems);
  return ok({
    name,
    comment: input.comment,
    createdBy: input.createdBy,
    targets: [...input.targets],
    files: members.sort(compareMembers),
  });
}

/** The catalogue error for the first problem: 400 1400 `Invalid <subject>: <problem>.` (admin bad input). */
export function publicationError(problems: readonly PublicationProblem[]): ManagementError {
  const first = problems[0];
  return managementError("invalidParameter", {
    parameter: first?.subject ?? "request",
    problem: first?.problem ?? "not valid",
  });
}

export interface ManifestInput {
  readonly revisionId: string;
  readonly account: string;
  readonly profile: string;
  readonly name: string;
  readonly timeCreated: string;
  readonly comment: string;
  readonly createdBy: string;
  readonly targets: readonly string[];
  /** [member name, SHA-256 hex] in bundle order. */
  readonly memberChecksums: readonly (readonly [string, string])[];
}

/**
 * REV-07, DEC-REV-02: manifest.json is the details object without the `bundle.zip` and `manifest.json`
 * entries; every target holds the same member checksums, since one bundle serves them all.
 */
export function buildManifest(input: ManifestInput): RevisionDetails {
  const members = Object.fromEntries(input.memberChecksums);
  return {
    revision_id: input.revisionId,
    account: input.account,
    profile: input.profile,
    name: input.name,
    time_created: input.timeCreated,
    checksums: Object.fromEntries(input.targets.map((target) => [target, { ...members }])),
    comment: input.comment,
    created_by: input.createdBy,
    targets_published: [...input.targets],
  };
}

/** REV-07: the bytes of manifest.json, as text (two-space JSON and a final newline; fixed key order). */
export function serializeManifest(manifest: RevisionDetails): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** REV-05, DEC-REV-02: the details: the manifest with the SHA-256 of manifest.json and bundle.zip in every target. */
export function completeDetails(
  manifest: RevisionDetails,
  checksums: { readonly manifest: string; readonly bundle: string },
): RevisionDetails {
  const withBundle = (members: Readonly<Record<string, string>>) => ({
    [manifestFileName]: checksums.manifest,
    [bundleFileName]: checksums.bundle,
    ...members,
  });
  return {
    ...manifest,
    checksums: Object.fromEntries(
      Object.entries(manifest.checksums).map(([target, members]) => [target, withBundle(members)]),
    ),
  };
}

/** REV-07: the manifest a details object implies (the details minus the two entries), to check a bundle against. */
export function manifestOfDetails(details: RevisionDetails): RevisionDetails {
  const withoutBundle = (members: Readonly<Record<string, string>>) =>
    Object.fromEntries(
      Object.entries(members).filter(([name]) => name !== manifestFileName && name !== bundleFileName),
    );
  return {
    ...details,
    checksums: Object.fromEntries(
      Object.entries(details.checksums).map(([target, members]) => [target, withoutBundle(members)]),
    ),
  };
}

/** REV-10, DEC-REV-03: details exist only for a well-formed id the profile has. */
export function decideDetailsRequest(
  revisionId: string,
  found: RevisionDetails | null,
): Result<RevisionDetails, ManagementError> {
  if (parseRevisionId(revisionId) === null || found === null) return err(managementError("revisionDetailsNotFound"));
  return ok(found);
}

/**
 * REV-09, REV-10, REV-11, DEC-REV-03: a bundle is served for a revision that exists, on a target it was
 * published to, when it is the newest revision published to that target. An unknown or malformed id, or
 * a target not in targets_published: 404 1260; an older revision of the target: 400 1270.
 */
export function decideBundleRequest(request: {
  readonly revisionId: string;
  readonly target: string;
  readonly revision: Pick<RevisionDetails, "targets_published"> | null;
  /** The newest revision id published to the target, or null when there is none. */
  readonly latestForTarget: string | null;
}): Result<void, ManagementError> {
  if (parseRevisionId(request.revisionId) === null || request.revision === null)
    return err(managementError("revisionDetailsNotFound"));
  if (!request.revision.targets_published.includes(request.target))
    return err(managementError("revisionDetailsNotFound"));
  if (request.latestForTarget !== request.revisionId) return err(managementError("revisionNotLatest"));
  return ok(undefined);
}
