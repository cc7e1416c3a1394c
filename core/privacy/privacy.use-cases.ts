import { invalidRequestBecause, type ManagementError, managementError } from "../errors/index.ts";
import type { Clock } from "../ports/clock.port.ts";
import type { Digests } from "../ports/hashing.port.ts";
import type { IdSource } from "../ports/ids.port.ts";
import type { ImportedFileEraser, ImportedFilesErasure } from "../ports/imported-files.port.ts";
import type {
  PrivacyAuditAction,
  PrivacyAuditRecord,
  PrivacyTransaction,
  PrivacyTransactionState,
} from "../ports/privacy.store.ts";
import type { Stores } from "../ports/stores.ts";
import type { ProfilePolicy } from "../profiles/profile.rules.ts";
import { err, ok, type Result } from "../result.ts";
import type { TimingPreset } from "../timing/timing.presets.ts";
import { isStorableText } from "../values/storable-text.rules.ts";
import { isLookupVisitorId, normaliseVisitorIdValue } from "../visitors/visitor-id.rules.ts";
import { type PrivacyTransition, privacyTransactionLifecycle, transitionPrivacy } from "./privacy.machine.ts";
import {
  knownVisitorIdOf,
  readPrettyName,
  readVisitorLookup,
  transactionAnswer,
  type VisitorLookup,
  valueHashInput,
  visitorIdsOfGroup,
} from "./privacy.rules.ts";
import { type VisitorRecordAnswer, visitorRecordAnswer } from "./visitor-record.rules.ts";

export interface PrivacyServiceDeps {
  readonly stores: Stores;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly digests: Digests;
  readonly timing: TimingPreset;
  /** DEC-PRO-02: the visit timeout, for `live`. */
  readonly policy: ProfilePolicy;
  /**
   * Called once a new deletion is recorded, with what it deletes (the value normalised), so the worker looks for
   * due work and the node's journals (the collection journal, the request journal) forget the value.
   */
  readonly onDeletionRequested?: (deletion: {
    readonly account: string;
    readonly profile: string;
    readonly value: string;
  }) => void;
}

/** What a request names: the account and profile of its path, its parameters, and who asked. */
export interface PrivacyRequest {
  readonly account: string;
  readonly profile: string;
  readonly attributeId: string | undefined;
  readonly attributeValue: string | undefined;
  /** The e-mail of the user whose token made the call (kept in the transaction and the audit). */
  readonly requestedBy: string;
}

/** The settings key of the installation's key for value hashes (made at first use, the same on every node). */
const valueHashKeySetting = "privacy.valueHashKey";

/**
 * The use-cases of the visitor privacy API (PRV-02..07, PRV-12, DEC-PRV-01..04): validate, ask core's
 * transaction machine, record the transaction (and its audit record) in the store, answer. The account and
 * profile are checked (and exist) before, by the route.
 */
export class PrivacyService {
  private hashKey: Promise<string> | null = null;

  constructor(private readonly deps: PrivacyServiceDeps) {}

  /** PRV-11: the visitor ID attributes of the profile, numeric id (as text) to name. */
  async visitorIdAttributes(account: string, profile: string): Promise<Record<string, string>> {
    const found = await this.deps.stores.tenancy.findProfile(account, profile);
    return Object.fromEntries(
      (found?.config.visitorIdAttributes ?? []).map((attribute) => [String(attribute.id), attribute.name]),
    );
  }

  /**
   * PRV-02, PRV-03, PRV-04, PRV-12, DEC-PRV-01, DEC-PRV-03: the visitor record, in a transaction recorded
   * as SUCCESS at once; a visitor that is not found is 404 1404 with the transaction id.
   */
  async getVisitor(
    request: PrivacyRequest & { readonly prettyName: string | undefined },
  ): Promise<Result<VisitorRecordAnswer, ManagementError>> {
    const config = await this.profileConfig(request);
    if (!config.ok) return config;
    const lookup = readVisitorLookup(config.value, request.attributeId, request.attributeValue);
    if (!lookup.ok) return lookup;
    const prettyName = readPrettyName(request.prettyName);
    if (!prettyName.ok) return prettyName;

    const { account, profile } = request;
    const profiles = this.deps.stores.profiles;
    // No visitor has a value that collection and import refuse (a NUL, which no store keeps, among them): such
    // a value is not looked up. Visitors kept before the limit in bytes stay readable (isLookupVisitorId).
    const canonical = isLookupVisitorId(lookup.value.value)
      ? await profiles.canonicalOf(account, profile, knownVisitorIdOf(account, profile, lookup.value))
      : null;
    const found = canonical ? await profiles.find(account, profile, canonical) : null;

    const now = this.deps.clock.now();
    const decided = this.decide(null, { type: "visitor-read", at: now });
    const transaction = await this.newTransaction(request, lookup.value, "get", decided, now);
    await this.deps.stores.privacy.recordRead(transaction, this.auditRecord(transaction, "visitor-read", now));

    if (!found) return err({ ...managementError("visitorNotFound"), extra: { transaction_id: transaction.id } });
    return ok(
      visitorRecordAnswer({
        transactionId: transaction.id,
        account,
        profileName: profile,
        config: config.value,
        profile: found,
        prettyName: prettyName.value,
        now,
        policy: this.deps.policy,
      }),
    );
  }

  /**
   * PRV-05, PRV-06, PRV-10, LIM-05, DEC-PRV-04: a pending deletion, due after the timing preset's delay; while
   * one is pending for the same account, profile, attribute and value, that one is answered (the store
   * decides this atomically, so concurrent requests on any node agree).
   */
  async requestDeletion(request: PrivacyRequest): Promise<Result<{ transactionId: string }, ManagementError>> {
    const config = await this.profileConfig(request);
    if (!config.ok) return config;
    const lookup = readVisitorLookup(config.value, request.attributeId, request.attributeValue);
    if (!lookup.ok) return lookup;
    // A pending deletion keeps its value, which no store keeps holding a NUL (decisions of our own, "Text that a
    // store cannot keep"); no visitor ID holds one either.
    if (!isStorableText(lookup.value.value)) return err(invalidRequestBecause("attributeValue holds U+0000"));

    const now = this.deps.clock.now();
    const requested = { type: "deletion-requested", at: now, delayMs: this.deps.timing.visitorDeleteDelayMs } as const;
    const decided = this.decide(null, requested);
    const transaction = await this.newTransaction(request, lookup.value, "delete", decided, now);
    const kept = await this.deps.stores.privacy.requestDeletion(
      transaction,
      this.auditRecord(transaction, "deletion-requested", now),
    );
    if (kept.created) {
      this.deps.onDeletionRequested?.({
        account: request.account,
        profile: request.profile,
        value: lookup.value.value,
      });
    } else {
      // The table's second row: PENDING + an identical request stays PENDING and answers the same id.
      const again = this.decide(privacyTransactionLifecycle(kept.transaction), requested);
      if (!again.effects.some((effect) => effect.type === "reuse-pending"))
        throw new Error("a pending deletion was not reused");
    }
    return ok({ transactionId: kept.transaction.id });
  }

  /** PRV-07, DEC-PRV-03: `{<id>: state}`; an id unknown in this account and profile is 404 1404. */
  async transactionState(
    account: string,
    profile: string,
    id: string,
  ): Promise<Result<Record<string, PrivacyTransactionState>, ManagementError>> {
    const found = isStorableText(id) ? await this.deps.stores.privacy.find(account, profile, id) : null;
    if (!found) return err(managementError("transactionNotFound"));
    return ok(transactionAnswer(found.id, found.state));
  }

  private async profileConfig(request: PrivacyRequest) {
    const { account, profile } = request;
    const record =
      isStorableText(account) && isStorableText(profile)
        ? await this.deps.stores.tenancy.findProfile(account, profile)
        : null;
    return record ? ok(record.config) : err(managementError("profileNotFound"));
  }

  private decide(...args: Parameters<typeof transitionPrivacy>): PrivacyTransition {
    const decided = transitionPrivacy(...args);
    if (!decided.ok) throw new Error(`privacy transaction: ${args[1].type} does not apply here`);
    return decided.value;
  }

  private async newTransaction(
    request: PrivacyRequest,
    lookup: VisitorLookup,
    kind: "get" | "delete",
    decided: PrivacyTransition,
    now: number,
  ): Promise<PrivacyTransaction> {
    const { next } = decided;
    return {
      id: this.deps.ids.randomHex(16),
      account: request.account,
      profile: request.profile,
      kind,
      attributeId: lookup.attributeId,
      valueHash: await this.valueHash(lookup.value),
      // DEC-PRV-04: only a pending deletion keeps the value, which it needs to find the visitor.
      value: next.state === "PENDING" ? lookup.value : null,
      state: next.state,
      requestedBy: request.requestedBy,
      createdAt: now,
      runAt: next.state === "PENDING" ? next.runAt : null,
      attempts: next.attempts,
      settledAt: next.state === "PENDING" ? null : next.settledAt,
    };
  }

  private auditRecord(transaction: PrivacyTransaction, action: PrivacyAuditAction, at: number): PrivacyAuditRecord {
    return privacyAuditRecord(transaction, action, at, {});
  }

  /** DEC-PRV-04: a keyed SHA-256 of the value; the key is made once per installation and kept in the store. */
  private async valueHash(value: string): Promise<string> {
    this.hashKey ??= this.deps.stores.settings.setIfAbsent(valueHashKeySetting, this.deps.ids.randomHex(32));
    let key: string;
    try {
      key = await this.hashKey;
    } catch (error) {
      this.hashKey = null;
      throw error;
    }
    return this.deps.digests.sha256Hex(valueHashInput(key, value));
  }
}

/** DEC-PRV-04: the audit record of a transaction: its attribute id and value hash, never the value. */
export function privacyAuditRecord(
  transaction: PrivacyTransaction,
  action: PrivacyAuditAction,
  at: number,
  detail: Record<string, number>,
): PrivacyAuditRecord {
  return {
    transactionId: transaction.id,
    account: transaction.account,
    profile: transaction.profile,
    action,
    attributeId: transaction.attributeId,
    valueHash: transaction.valueHash,
    requestedBy: transaction.requestedBy,
    at,
    detail,
  };
}

/** What a deletion removed, for the audit. */
export interface ErasureCounts extends Record<string, number> {
  readonly visitorIds: number;
  readonly events: number;
  readonly profiles: number;
  /** DEC-PRV-05: events of other visitors rewritten without the deleted value. */
  readonly eventsRewritten: number;
  /** DEC-PRV-05: profiles of other visitors rewritten without the deleted value. */
  readonly profilesRewritten: number;
}

/**
 * A deletion that must wait: an import of its account/profile has not finished (on another node, or one
 * whose holder died and whose lease has not expired yet). Erasing now would leave the rows the import has
 * still to read, and it would write the visitor back after the deletion said SUCCESS.
 */
export class ImportsStillRunning extends Error {
  override readonly name = "ImportsStillRunning";
  constructor(readonly files: readonly string[]) {
    super(`imports not finished: ${files.join(", ")}`);
  }
}

/** Throws ImportsStillRunning while an import of the transaction's account/profile has not finished. */
export async function checkNoImportRunning(stores: Stores, transaction: PrivacyTransaction): Promise<void> {
  const running = (await stores.files.unfinished()).filter(
    (record) => record.account === transaction.account && record.profile === transaction.profile,
  );
  if (running.length > 0) throw new ImportsStillRunning(running.map((record) => record.name));
}

/** A group of stitched visitors a deletion removes, as found before anything of it is removed. */
interface FoundGroup {
  readonly canonical: string;
  readonly members: readonly string[];
  /** The group profile's captured visitor ID values (VID-08). */
  readonly captured: Readonly<Record<string, string>>;
}

/** What a deletion names, as found before anything of it is removed. */
interface FoundVisitors {
  readonly account: string;
  readonly profile: string;
  readonly lookup: VisitorLookup;
  /**
   * The ids the value is a visitor ID of (DEC-PRV-05: the value names its visitor whichever visitor ID
   * attribute holds it): its known visitor ID under every visitor ID attribute of the profile (the deletion's
   * own first), and the value itself, which an anonymous visitor may have as its id.
   */
  readonly ids: readonly string[];
  readonly groups: readonly FoundGroup[];
}

async function findGroupsOf(
  stores: Stores,
  account: string,
  profile: string,
  ids: readonly string[],
): Promise<FoundGroup[]> {
  const canonicals = [...new Set((await stores.profiles.canonicalsOf(account, profile, ids)).values())];
  const found: FoundGroup[] = [];
  for (const canonical of canonicals) {
    const members = await stores.profiles.membersOf(account, profile, canonical);
    const captured = (await stores.profiles.find(account, profile, canonical))?.visitorIds ?? {};
    found.push({ canonical, members, captured });
  }
  return found;
}

async function findVisitors(stores: Stores, transaction: PrivacyTransaction): Promise<FoundVisitors> {
  if (transaction.value === null) throw new Error(`deletion ${transaction.id} has no value to look the visitor up by`);
  const { account, profile } = transaction;
  // A deletion recorded before DEC-PRV-05 may keep its value as it was sent.
  const lookup = {
    attributeId: transaction.attributeId,
    value: normaliseVisitorIdValue(transaction.value) || transaction.value,
  };
  const config = (await stores.tenancy.findProfile(account, profile))?.config;
  const attributeIds = [
    ...new Set([lookup.attributeId, ...(config?.visitorIdAttributes ?? []).map((attribute) => attribute.id)]),
  ];
  const ids = [
    ...attributeIds.map((attributeId) => knownVisitorIdOf(account, profile, { attributeId, value: lookup.value })),
    lookup.value,
  ];
  return { account, profile, lookup, ids, groups: await findGroupsOf(stores, account, profile, ids) };
}

/**
 * Every event of every id and member, then each group itself (its profile, members and merge records, one
 * commit per group), then the events of `lastIds`: whatever a try that stops halfway left is found again by
 * the next (the groups by the ids that name them, `lastIds` by the value their events hold).
 */
async function removeVisitors(
  stores: Stores,
  account: string,
  profile: string,
  ids: readonly string[],
  groups: readonly FoundGroup[],
  lastIds: readonly string[] = [],
) {
  const last = new Set(lastIds);
  const first = [...new Set([...ids, ...groups.flatMap((group) => group.members)])].filter((id) => !last.has(id));
  let events = await stores.events.deleteVisitors(account, profile, first);
  let visitorIds = 0;
  for (const group of groups) visitorIds += await stores.profiles.deleteGroup(account, profile, group.canonical);
  if (last.size > 0) events += await stores.events.deleteVisitors(account, profile, [...last]);
  return { visitorIds, events, profiles: groups.length };
}

/** What erasing a visitor works on: the stores, and the kept copies of imported files. */
export interface VisitorErasureDeps {
  readonly stores: Stores;
  readonly importedFiles: ImportedFileEraser;
}

/**
 * PRV-09, DEC-PRV-04, DEC-PRV-05: removes the visitor a pending deletion names: the groups its value names
 * under any visitor ID attribute (every stitched visitor: the ids that replaced it and that it replaced), and
 * an anonymous visitor whose id is the value; every event of every member id (collected and imported alike),
 * the groups' profiles (what engines serve), members and merge records; the groups' rows in the kept copies
 * of imported files: every row imported under any visitor ID value of a group (its members' known visitor
 * IDs and its profile's captured values), not only under the attribute and value the deletion named.
 *
 * DEC-PRV-05, then, the value wherever else it is (see erasure.rules.ts): kept file rows holding it in a text
 * field are removed, other visitors' events and profiles are rewritten without it, and the visitors it
 * identifies without naming them as above (an event whose own visitor ID holds it with white space around
 * it, a group that captured such a padded copy before values were normalised) are removed with their groups.
 *
 * The files go first, while the named groups are still stored, then their events, then the groups. A try
 * that fails or crashes before a group's commit leaves it as it was, and the next try (the transaction stays
 * PENDING, with its value, until it is settled) finds it again with every value; the rewrites and the
 * visitors the value identifies are found by the value itself, in the store, as long as any of it is left.
 * So resuming needs no copy of the values anywhere but the store, and running it twice removes nothing more
 * and fails nothing.
 */
export async function eraseVisitor(
  deps: VisitorErasureDeps,
  transaction: PrivacyTransaction,
): Promise<ErasureCounts & ImportedFilesErasure> {
  const { stores } = deps;
  await checkNoImportRunning(stores, transaction);
  const found = await findVisitors(stores, transaction);
  const { account, profile, lookup } = found;
  const visitorIds = found.groups.flatMap((group) =>
    visitorIdsOfGroup(account, profile, { lookup, members: group.members, captured: group.captured }),
  );
  const files = await deps.importedFiles.eraseVisitor(transaction, visitorIds);
  const named = await removeVisitors(stores, account, profile, found.ids, found.groups);

  const inEvents = await stores.events.eraseValue(account, profile, lookup.value);
  const inProfiles = await stores.profiles.eraseValue(account, profile, lookup.value);
  const identified = await findGroupsOf(stores, account, profile, inEvents.visitorIds);
  for (const canonical of inProfiles.groups) {
    if (identified.some((group) => group.canonical === canonical)) continue;
    identified.push({ canonical, members: await stores.profiles.membersOf(account, profile, canonical), captured: {} });
  }
  const others = await removeVisitors(stores, account, profile, [], identified, inEvents.visitorIds);
  return {
    visitorIds: named.visitorIds + others.visitorIds,
    events: named.events + others.events,
    profiles: named.profiles + others.profiles,
    eventsRewritten: inEvents.rewritten,
    profilesRewritten: inProfiles.edited,
    ...files,
  };
}
