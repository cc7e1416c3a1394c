/**
 * The console's views of a visitor and of one event (issue 32): a profile named by its configuration, what one
 * event changed in it, and how an event's visitor ID was chosen, read back from what the event stored.
 */
import type { StoredJournalEntry } from "../collect/collect-journal.ts";
import type { AttributeType, BuiltinName, ProfileConfig } from "../config/config.model.ts";
import { builtinNames } from "../config/config.model.ts";
import type { StoredEvent } from "../ports/events.store.ts";
import { audiencesOf, builtinValueOf, type VisitorProfile } from "../profiles/profile.rules.ts";
import {
  explainVisitorId,
  isFlagSet,
  type VisitorIdDecision,
  type VisitorIdInputs,
  type VisitorIdSource,
} from "../visitors/visitor-id.rules.ts";

/** A visitor profile as the console shows it: times in ISO 8601, attributes, badges and audiences by name. */
export interface ProfileView {
  readonly firstSeen: string;
  readonly lastSeen: string;
  readonly eventCount: number;
  readonly visitCount: number;
  /** The configured attributes (not badges) that hold a value, in configuration order; dates in epoch ms. */
  readonly attributes: ReadonlyArray<{
    readonly id: number;
    readonly name: string;
    readonly type: AttributeType;
    readonly pii: boolean;
    readonly value: number | string | boolean;
  }>;
  readonly badges: ReadonlyArray<{ readonly id: number; readonly name: string }>;
  readonly audiences: ReadonlyArray<{ readonly id: number; readonly name: string }>;
  readonly visitorIds: ReadonlyArray<{ readonly id: number; readonly name: string; readonly value: string }>;
}

export type ProfileChangeKind = "attribute" | "badge" | "audience" | "visitorIdAttribute" | "builtin";

/** One thing an event changed in its visitor's profile: null is no value; a badge or an audience is true or false. */
export interface ProfileChange {
  readonly kind: ProfileChangeKind;
  readonly id: number | string;
  readonly name: string;
  readonly from: number | string | boolean | null;
  readonly to: number | string | boolean | null;
}

/** DEC-PRO-01: the built-ins, by the names the console shows. */
export const builtinLabels: Readonly<Record<BuiltinName, string>> = {
  lifetime_event_count: "Lifetime event count",
  lifetime_visit_count: "Lifetime visit count",
  first_visit: "First visit",
  last_visit: "Last visit",
  returning_visitor: "Returning visitor",
};

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** A name of the configuration, or the id as text when the configuration no longer has it. */
function nameIn(named: ReadonlyArray<{ readonly id: number; readonly name: string }>, id: number): string {
  return named.find((item) => item.id === id)?.name ?? String(id);
}

/** DEC-PRO-01, MOM-03: a profile with its attributes, badges, audiences and visitor ID values named by `config`. */
export function viewOfProfile(profile: VisitorProfile, config: ProfileConfig): ProfileView {
  const attributes: Array<ProfileView["attributes"][number]> = [];
  for (const attribute of config.attributes) {
    const value = profile.values[String(attribute.id)];
    if (attribute.type === "badge" || value === undefined) continue;
    attributes.push({ id: attribute.id, name: attribute.name, type: attribute.type, pii: attribute.pii, value });
  }
  const memberOf = new Set(audiencesOf(profile, config.audiences));
  return {
    firstSeen: iso(profile.firstSeenAt),
    lastSeen: iso(profile.lastSeenAt),
    eventCount: profile.eventCount,
    visitCount: profile.visitCount,
    attributes,
    badges: profile.badges.map((id) => ({ id, name: nameIn(config.attributes, id) })),
    audiences: config.audiences
      .filter((audience) => memberOf.has(audience.id))
      .map((audience) => ({ id: audience.id, name: audience.name })),
    visitorIds: Object.entries(profile.visitorIds).map(([key, value]) => ({
      id: Number(key),
      name: nameIn(config.visitorIdAttributes, Number(key)),
      value,
    })),
  };
}

/**
 * DEC-PRO-01, VID-08: what changed from `before` (null: the visitor's first event) to `after`, as named by
 * `config`: visitor ID values, attributes, badges, audiences and built-ins, in that order.
 */
export function diffProfiles(
  before: VisitorProfile | null,
  after: VisitorProfile,
  config: ProfileConfig,
): ProfileChange[] {
  const changes: ProfileChange[] = [];
  const note = (kind: ProfileChangeKind, id: number | string, name: string, from: unknown, to: unknown) => {
    const was = (from ?? null) as ProfileChange["from"];
    const is = (to ?? null) as ProfileChange["to"];
    if (was !== is) changes.push({ kind, id, name, from: was, to: is });
  };
  for (const attribute of config.visitorIdAttributes) {
    const key = String(attribute.id);
    note("visitorIdAttribute", attribute.id, attribute.name, before?.visitorIds[key], after.visitorIds[key]);
  }
  for (const attribute of config.attributes) {
    if (attribute.type === "badge") {
      const had = before?.badges.includes(attribute.id) ?? false;
      note("badge", attribute.id, attribute.name, had, after.badges.includes(attribute.id));
    } else {
      const key = String(attribute.id);
      note("attribute", attribute.id, attribute.name, before?.values[key], after.values[key]);
    }
  }
  const wasIn = new Set(before ? audiencesOf(before, config.audiences) : []);
  const isIn = new Set(audiencesOf(after, config.audiences));
  for (const audience of config.audiences)
    note("audience", audience.id, audience.name, wasIn.has(audience.id), isIn.has(audience.id));
  for (const name of builtinNames)
    note(
      "builtin",
      name,
      builtinLabels[name],
      before ? builtinValueOf(before, name) : null,
      builtinValueOf(after, name),
    );
  return changes;
}

/** A visitor ID parameter as stored (text, as readCollectRequest leaves it), or null. */
function storedId(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

/**
 * DEC-COL-09, COL-14: how a stored event's visitor ID was chosen, rebuilt from what the event keeps. It keeps
 * the winner (visitorId, visitorIdSource), the first-party ID and the flags (svc_skip_…, svc_delete_…, kept
 * as custom parameters), but not the TAPID it was sent, nor an svc_visitor_id that lost (the stored
 * svc_visitor_id is the resolved one). So a row above the winner read nothing (a TAPID read nothing only when
 * neither flag was set), a row below it is unknown (`known: false`) unless the event keeps its input, and the
 * answer's TAPID cookie is not known (null).
 */
export function decisionOfStoredEvent(event: StoredEvent): VisitorIdDecision {
  const source: VisitorIdSource = event.visitorIdSource;
  const chosen = (row: VisitorIdSource) => (row === source ? event.visitorId : null);
  const inputs: VisitorIdInputs = {
    override: chosen("override"),
    tapid: chosen("tapid"),
    visitorId: chosen("visitor_id"),
    firstParty: event.firstPartyVisitorId ?? storedId(event.data.svc_firstparty_visitor_id),
    skipTapid: isFlagSet(event.data.svc_skip_3rd_party_vid_cookies),
    deleteTapid: isFlagSet(event.data.svc_delete_3rd_party_vid_cookies),
  };
  const decision = explainVisitorId(inputs, { visitorId: event.visitorId, source }, null);
  const winner = decision.precedence.findIndex((row) => row.chosen);
  const tapidIgnored = inputs.skipTapid || inputs.deleteTapid;
  return {
    ...decision,
    precedence: decision.precedence.map((row, index) => {
      if (row.source === "first_party" || row.source === "new" || index === winner) return row;
      // Above the winner a row had no value, which is known, but for a TAPID that a flag had it ignore.
      if (index < winner) return row.source === "tapid" && tapidIgnored ? { ...row, known: false } : row;
      return { ...row, known: false };
    }),
  };
}

/**
 * Whether two JSON values are the same: numbers, strings, booleans and null by value, arrays item by item,
 * objects by their own keys in any order (a store may give them back in another order).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && sameJson(left[key], right[key]));
}

/**
 * Whether a journal entry is the record of a stored event: the same account, profile, visitor, time received,
 * trace id, event name and data. The journal knows no sequence number (it records before the store's answer is
 * read back), so this is how an event finds the decision seen when it was collected.
 */
export function isJournalEntryOf(entry: StoredJournalEntry, event: StoredEvent): boolean {
  return (
    entry.at === event.receivedAt &&
    entry.visitorId === event.visitorId &&
    entry.account === event.account &&
    entry.profile === event.profile &&
    entry.traceId === event.traceId &&
    entry.event === event.event &&
    sameJson(entry.data, event.data)
  );
}
