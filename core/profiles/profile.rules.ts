/**
 * The visitor profile engine (DEC-PRO-01, DEC-PRO-02): a profile is the fold of a visitor's events, in
 * order, through the profile's attribute enrichments. Merging visitors (stitching, VID-08) is the fold of
 * their events together in order, so the result never depends on which visitors were merged first.
 */
import type {
  AttributeDefinition,
  AudienceDefinition,
  BuiltinName,
  Condition,
  ConditionGroups,
  ConditionValue,
  EnrichmentAction,
  EnrichmentTrigger,
  ProfileConfig,
} from "../config/config.model.ts";
import { readDecimalNumber, readIsoDateTime } from "../values/value-text.rules.ts";
import { type KnownVisitor, readVisitorIdValue } from "../visitors/visitor-id.rules.ts";

/** What the engine reads of an event: when, its order, and its parameters (svc_event among them). */
export interface ProfileEvent {
  readonly at: number;
  readonly seq: number;
  /** Read as own properties only (readParameter): `constructor` or `__proto__` is a parameter only when sent. */
  readonly params: Readonly<Record<string, unknown>>;
  /**
   * DEC-COL-11, VID-02: the attribute and value the event's visitor ID names when it is a known visitor ID
   * of the event's own account/profile (matchKnownVisitorId); absent or null otherwise.
   */
  readonly knownVisitor?: KnownVisitor | null;
}

/** A stored attribute value: numbers, strings, booleans, and dates as epoch milliseconds. */
export type AttributeValue = number | string | boolean;

export interface VisitorProfile {
  readonly firstSeenAt: number;
  readonly lastSeenAt: number;
  /** Start of the current visit. */
  readonly visitStartedAt: number;
  /** Built-ins (DEC-PRO-01): lifetime event count and visit count. */
  readonly eventCount: number;
  readonly visitCount: number;
  /** Attribute id (as a string key) → value, for number, string, boolean and date attributes. */
  readonly values: Readonly<Record<string, AttributeValue>>;
  /** Ids of the badge attributes assigned. */
  readonly badges: readonly number[];
  /** Visitor ID attribute id → captured value (VID-08, DEC-COL-11). */
  readonly visitorIds: Readonly<Record<string, string>>;
  /** Sequence number of the last event applied. */
  readonly lastSeq: number;
}

export interface ProfilePolicy {
  readonly visitTimeoutMs: number;
}

export function profilePolicyFromLimits(limits: { readonly visitTimeoutMinutes: number }): ProfilePolicy {
  return { visitTimeoutMs: limits.visitTimeoutMinutes * 60_000 };
}

/** A parameter's value as text for comparisons; absent, null and empty are "no value". */
function textOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return value === "" ? null : value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/**
 * DEC-PRO-01: an event parameter, only when the event itself carries it. A name that Object.prototype has
 * (`constructor`, `toString`, `__proto__`) is a parameter like any other, absent unless sent.
 */
export function readParameter(params: Readonly<Record<string, unknown>>, name: string): unknown {
  return Object.hasOwn(params, name) ? params[name] : undefined;
}

/**
 * DEC-PRO-01: a finite number, or decimal text that reads as one (readDecimalNumber: `0x10`, `Infinity` and
 * blank text are not numbers): what the numeric operators and actions compare.
 */
export function numberOf(value: unknown): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (typeof value === "string") return readDecimalNumber(value);
  return null;
}

/** DEC-PRO-01 operators, over a value looked up by the condition (a parameter or an attribute). */
export function conditionHolds(condition: Condition, actual: unknown): boolean {
  const text = textOf(actual);
  const expected = condition.value === undefined ? null : String(condition.value);
  switch (condition.operator) {
    case "exists":
      return text !== null;
    case "not_exists":
      return text === null;
    case "equals":
      return text !== null && expected !== null && text === expected;
    case "not_equals":
      return text === null || expected === null || text !== expected;
    case "contains":
      return text !== null && expected !== null && text.includes(expected);
    case "starts_with":
      return text !== null && expected !== null && text.startsWith(expected);
    case "greater_than":
    case "less_than": {
      const left = numberOf(actual);
      const right = numberOf(condition.value);
      if (left === null || right === null) return false;
      return condition.operator === "greater_than" ? left > right : left < right;
    }
  }
}

/** Groups are ANDed inside and ORed across; no group at all always holds. DEC-PRO-01 */
export function groupsHold(groups: ConditionGroups, lookup: (condition: Condition) => unknown): boolean {
  if (groups.length === 0) return true;
  return groups.some((group) => group.every((condition) => conditionHolds(condition, lookup(condition))));
}

/** The largest distance from the epoch, in milliseconds, that a Date can hold (ECMA-262 time values). */
export const maxEpochMs = 8.64e15;

/**
 * MOM-03, DEC-MOM-04, DEC-PRV-01: a date is an integer of epoch milliseconds a Date can hold, or ISO 8601
 * text (readIsoDateTime: zone-less is UTC). A number (or numeric text) that is not one (1.5, 9e20) is not a
 * date; it is not read as date text either. Other text (`Jan 1`, `hello 2020`) is not a date.
 */
function dateOf(value: unknown): number | null {
  const number = numberOf(value);
  if (number !== null) return Number.isInteger(number) && Math.abs(number) <= maxEpochMs ? number : null;
  return typeof value === "string" ? readIsoDateTime(value) : null;
}

/** DEC-PRO-01: true or false in any case (as flags are read, isFlagSet), or 1 or 0, as a number or text. */
function booleanOf(value: unknown): boolean | null {
  if (typeof value === "boolean") return value;
  if (value === 1 || value === "1") return true;
  if (value === 0 || value === "0") return false;
  if (typeof value !== "string") return null;
  const lower = value.toLowerCase();
  return lower === "true" ? true : lower === "false" ? false : null;
}

/** Reads a value as the attribute's type, or null when it cannot be one. */
export function coerceToAttribute(type: AttributeDefinition["type"], value: unknown): AttributeValue | null {
  switch (type) {
    case "number":
      return numberOf(value);
    case "string":
      return textOf(value);
    case "boolean":
      return booleanOf(value);
    case "date":
      return dateOf(value);
    case "badge":
      return null;
  }
}

function triggerFires(when: EnrichmentTrigger, moment: { newVisitor: boolean; newVisit: boolean }): boolean {
  return (
    when === "any_event" || (when === "new_visit" && moment.newVisit) || (when === "new_visitor" && moment.newVisitor)
  );
}

interface Draft {
  values: Record<string, AttributeValue>;
  badges: Set<number>;
  visitorIds: Record<string, string>;
}

/** What conditions over attributes read: a profile's values, badges and visitor ID values. */
interface AttributeState {
  readonly values: Readonly<Record<string, AttributeValue>>;
  readonly badges: ReadonlySet<number>;
  readonly visitorIds: Readonly<Record<string, string>>;
}

/**
 * DEC-PRO-01: an attribute as conditions read it: its value, a badge as true when assigned, a visitor ID
 * attribute as its captured value. Audiences and enrichment conditions both read attributes through it.
 */
function attributeValueOf(state: AttributeState, attributeId: number): unknown {
  const key = String(attributeId);
  return state.values[key] ?? (state.badges.has(attributeId) ? true : undefined) ?? state.visitorIds[key];
}

/**
 * DEC-PRO-01: a counter plus a step. A sum that is not finite (past about 1.8e308) leaves the counter as it
 * was: JSON cannot hold it, and storing it would lose the count.
 */
function incremented(current: AttributeValue | undefined, by: number): number | null {
  const sum = (numberOf(current) ?? 0) + by;
  return Number.isFinite(sum) ? sum : null;
}

function applyAction(
  draft: Draft,
  attribute: AttributeDefinition,
  action: EnrichmentAction,
  event: ProfileEvent,
): void {
  const key = String(attribute.id);
  const set = (value: AttributeValue | null) => {
    if (value !== null) draft.values[key] = value;
  };
  switch (action.type) {
    case "increment":
      set(incremented(draft.values[key], action.by));
      return;
    case "increment_by_parameter": {
      const by = numberOf(readParameter(event.params, action.parameter));
      if (by !== null) set(incremented(draft.values[key], by));
      return;
    }
    case "set_from_parameter":
      set(coerceToAttribute(attribute.type, readParameter(event.params, action.parameter)));
      return;
    case "set_value":
      set(coerceToAttribute(attribute.type, action.value));
      return;
    case "set_event_time":
      set(event.at);
      return;
    case "assign_badge":
      draft.badges.add(attribute.id);
      return;
    case "remove_badge":
      draft.badges.delete(attribute.id);
      return;
  }
}

/**
 * VID-08, DEC-COL-11: the visitor ID attribute values an event sets, in order (a later one wins): the known
 * visitor ID the event is identified by, when it names a visitor ID attribute of the profile, then every
 * visitor ID attribute whose parameter the event carries (what the caller sent in so many words). A value is
 * taken only when readVisitorIdValue takes it, as stitching (identitiesOfEvent) does.
 */
function capturedVisitorIds(event: ProfileEvent, config: ProfileConfig): Array<[string, string]> {
  const captured: Array<[string, string]> = [];
  const known = event.knownVisitor;
  if (known && config.visitorIdAttributes.some((attribute) => attribute.id === known.attributeId)) {
    const value = readVisitorIdValue(known.value);
    if (value !== null) captured.push([String(known.attributeId), value]);
  }
  for (const idAttribute of config.visitorIdAttributes) {
    const value = readVisitorIdValue(readParameter(event.params, idAttribute.parameter));
    if (value !== null) captured.push([String(idAttribute.id), value]);
  }
  return captured;
}

/**
 * DEC-PRO-01, DEC-PRO-02: the profile after one more event (null: the visitor's first event). The event's
 * visitor ID values are captured first, so its enrichment conditions over a visitor ID attribute see them.
 */
export function applyEvent(
  profile: VisitorProfile | null,
  event: ProfileEvent,
  config: ProfileConfig,
  policy: ProfilePolicy,
): VisitorProfile {
  const newVisitor = profile === null;
  const newVisit = newVisitor || event.at - profile.lastSeenAt >= policy.visitTimeoutMs;
  const draft: Draft = {
    values: { ...(profile?.values ?? {}) },
    badges: new Set(profile?.badges ?? []),
    visitorIds: { ...(profile?.visitorIds ?? {}), ...Object.fromEntries(capturedVisitorIds(event, config)) },
  };
  // Conditions over attributes read them as they stood before this event's enrichments (with the visitor ID
  // values it brings), so that the order of the attributes in the configuration changes nothing.
  let before: AttributeState | null = null;
  const lookup = (condition: Condition) => {
    if ("parameter" in condition) return readParameter(event.params, condition.parameter);
    if (!("attribute" in condition)) return undefined;
    before ??= { values: profile?.values ?? {}, badges: new Set(profile?.badges ?? []), visitorIds: draft.visitorIds };
    return attributeValueOf(before, condition.attribute);
  };
  for (const attribute of config.attributes) {
    for (const enrichment of attribute.enrichments) {
      if (triggerFires(enrichment.when, { newVisitor, newVisit }) && groupsHold(enrichment.conditions, lookup)) {
        applyAction(draft, attribute, enrichment.action, event);
      }
    }
  }
  return {
    firstSeenAt: profile ? Math.min(profile.firstSeenAt, event.at) : event.at,
    lastSeenAt: profile ? Math.max(profile.lastSeenAt, event.at) : event.at,
    visitStartedAt: newVisit ? event.at : (profile as VisitorProfile).visitStartedAt,
    eventCount: (profile?.eventCount ?? 0) + 1,
    visitCount: (profile?.visitCount ?? 0) + (newVisit ? 1 : 0),
    values: draft.values,
    badges: [...draft.badges].sort((a, b) => a - b),
    visitorIds: draft.visitorIds,
    lastSeq: Math.max(profile?.lastSeq ?? 0, event.seq),
  };
}

/**
 * Events in the order that decides a profile: the order they were stored in (sequence numbers), which is
 * the order the worker applies them in, so a profile rebuilt after stitching equals the one built event by
 * event.
 */
export function compareEvents(a: ProfileEvent, b: ProfileEvent): number {
  return a.seq - b.seq;
}

/** DEC-PRO-03: the profile of a visitor (or of merged visitors) from all their events, folded in order. */
export function buildProfile(
  events: readonly ProfileEvent[],
  config: ProfileConfig,
  policy: ProfilePolicy,
): VisitorProfile | null {
  return [...events]
    .sort(compareEvents)
    .reduce<VisitorProfile | null>((profile, event) => applyEvent(profile, event, config, policy), null);
}

/** Whether the visit of the profile is still open at `now` (DEC-PRV-01 `live`, DEC-PRO-02). */
export function isVisitOpen(profile: VisitorProfile, now: number, policy: ProfilePolicy): boolean {
  return now - profile.lastSeenAt < policy.visitTimeoutMs;
}

/**
 * Audiences the profile belongs to: conditions over its attributes (attributeValueOf: badges read as true,
 * visitor ID attributes as their captured values). DEC-PRO-01, VID-08
 */
export function audiencesOf(profile: VisitorProfile, audiences: readonly AudienceDefinition[]): number[] {
  const state: AttributeState = {
    values: profile.values,
    badges: new Set(profile.badges),
    visitorIds: profile.visitorIds,
  };
  const attributeValue = (condition: Condition): unknown =>
    "attribute" in condition
      ? attributeValueOf(state, condition.attribute)
      : "builtin" in condition
        ? builtinValueOf(profile, condition.builtin)
        : undefined;
  return audiences.filter((audience) => groupsHold(audience.conditions, attributeValue)).map((audience) => audience.id);
}

/** DEC-PRO-01: a built-in of the profile, as audiences test it (dates in epoch milliseconds). */
export function builtinValueOf(profile: VisitorProfile, name: BuiltinName): number | boolean {
  switch (name) {
    case "lifetime_event_count":
      return profile.eventCount;
    case "lifetime_visit_count":
      return profile.visitCount;
    case "first_visit":
      return profile.firstSeenAt;
    case "last_visit":
      return profile.visitStartedAt;
    case "returning_visitor":
      return profile.visitCount > 1;
  }
}

/** The value of a condition as configured (re-exported for callers that build conditions). */
export type { ConditionValue };
