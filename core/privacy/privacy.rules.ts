/**
 * Validation of the visitor privacy API's parameters (PRV-02..05, DEC-PRV-02) and the transaction answer
 * (PRV-07). Every refusal is 400 1400 with the catalogue's wording.
 */
import type { ProfileConfig } from "../config/config.model.ts";
import { invalidRequestBecause, type ManagementError, quoted } from "../errors/index.ts";
import type { PrivacyTransactionState } from "../ports/privacy.store.ts";
import { err, ok, type Result } from "../result.ts";
import { buildKnownVisitorId, matchKnownVisitorId, normaliseVisitorIdValue } from "../visitors/visitor-id.rules.ts";

/** Which visitor a request names: a visitor ID attribute of the profile and its value. */
export interface VisitorLookup {
  readonly attributeId: number;
  readonly value: string;
}

/** Every refusal is the one 400 1400; `reason` says which (ManagementError.reason), never quoting attributeValue (an e-mail address, say). */
const invalid = (reason: string): Result<never, ManagementError> => err(invalidRequestBecause(reason));

/**
 * PRV-02, PRV-04, PRV-05, DEC-PRV-02, DEC-PRV-05: attributeId must be the numeric id of a visitor ID attribute of the
 * profile, and attributeValue must not be empty. The value (already URL-decoded) is normalised as every
 * visitor-ID value is (normaliseVisitorIdValue: white space removed from its ends, nothing else), so special
 * characters are part of it; a value of white space only is empty.
 */
export function readVisitorLookup(
  config: ProfileConfig,
  attributeId: string | undefined,
  attributeValue: string | undefined,
): Result<VisitorLookup, ManagementError> {
  if (attributeId === undefined) return invalid("attributeId is missing");
  if (!/^\d{1,15}$/.test(attributeId))
    return invalid(`attributeId must be the number of a visitor ID attribute, not ${quoted(attributeId)}`);
  const id = Number(attributeId);
  if (!config.visitorIdAttributes.some((attribute) => attribute.id === id)) {
    const ids = config.visitorIdAttributes.map((attribute) => attribute.id).join(", ");
    return invalid(
      `attribute ${id} is not a visitor ID attribute of this profile (${ids === "" ? "it has none" : `those are ${ids}`})`,
    );
  }
  if (attributeValue === undefined) return invalid("attributeValue is missing");
  const value = normaliseVisitorIdValue(attributeValue);
  if (attributeValue === "") return invalid("attributeValue is empty");
  if (value === "") return invalid("attributeValue is only white space");
  return ok({ attributeId: id, value });
}

/** PRV-03, DEC-PRV-01: prettyName is `true` or `false` (any case); absent means false; anything else is 400 1400. */
export function readPrettyName(raw: string | undefined): Result<boolean, ManagementError> {
  if (raw === undefined) return ok(false);
  const lower = raw.toLowerCase();
  if (lower === "true" || lower === "false") return ok(lower === "true");
  return invalid(`prettyName must be true or false, not ${quoted(raw)}`);
}

/** The parameters of a delete request, which belong in the form body (PRV-05). */
export const deleteParameters = ["attributeId", "attributeValue"] as const;

/** PRV-05, DEC-PRV-02: a delete request that carries its parameters in the query string is 400 1400. */
export function refuseQueryParameters(queryNames: Iterable<string>): Result<void, ManagementError> {
  for (const name of queryNames) {
    if ((deleteParameters as readonly string[]).includes(name))
      return invalid(`${name} belongs in the form body of a deletion, not in the query string`);
  }
  return ok(undefined);
}

/** VID-02, PRV-09: the known visitor ID a lookup names, `__<account>_<profile>__<attributeId>_<value>__`. */
export function knownVisitorIdOf(account: string, profile: string, lookup: VisitorLookup): string {
  return buildKnownVisitorId(account, profile, lookup.attributeId, lookup.value);
}

/** A group a deletion found: the ids of its members and the visitor ID values its profile captured. */
export interface DeletedGroup {
  readonly lookup: VisitorLookup;
  /** Every member id of the group (known visitor IDs and anonymous ones); empty when there is no group. */
  readonly members: readonly string[];
  /** The profile's `visitorIds`: attribute id (as a string key) to value (VID-08). */
  readonly captured: Readonly<Record<string, string>>;
}

/**
 * PRV-09, DEC-PRV-04: every visitor ID attribute value a deleted group is known by, each once: the lookup's,
 * then those its members' known visitor IDs carry (an imported row's visitor is the known ID of its visitor
 * ID column's value), then those its profile captured. Anonymous members carry none. These find the group's
 * rows in the kept copies of imported files, whichever attribute the deletion named.
 */
export function visitorIdsOfGroup(account: string, profile: string, group: DeletedGroup): VisitorLookup[] {
  const found = new Map<string, VisitorLookup>();
  const add = (attributeId: number, value: string) => {
    const key = `${attributeId}\u0000${value}`;
    if (!found.has(key)) found.set(key, { attributeId, value });
  };
  add(group.lookup.attributeId, group.lookup.value);
  for (const member of group.members) {
    const known = matchKnownVisitorId(member, account, profile);
    if (known) add(known.attributeId, known.value);
  }
  for (const [attributeId, value] of Object.entries(group.captured)) {
    if (/^[1-9]\d{0,14}$/.test(attributeId) && value !== "") add(Number(attributeId), value);
  }
  return [...found.values()];
}

/** PRV-07: the transaction answer, `{<id>: PENDING | SUCCESS | FAILED}`. */
export function transactionAnswer(id: string, state: PrivacyTransactionState): Record<string, PrivacyTransactionState> {
  return { [id]: state };
}

/**
 * DEC-PRV-04: what is hashed for a transaction's value hash: the installation's privacy key, then the value.
 * The hash only ever answers "is this the same value" (PRV-06, audit lookups), so a key that only the store
 * knows keeps a list of guessed e-mail addresses from being matched against an exported audit.
 */
export function valueHashInput(key: string, value: string): string {
  return `svc-hub/privacy/v1\u0000${key}\u0000${value}`;
}
