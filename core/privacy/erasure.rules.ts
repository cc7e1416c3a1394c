/**
 * DEC-PRV-05: a deletion erases every attribute value equal, after normalisation, to the deleted value, even
 * where it was not taken as a visitor ID. What an "attribute value" is here:
 * - in a stored event, a parameter (as /admin/events shows it) that is text, or an object or array holding
 *   such text at any depth: the whole parameter is removed. Numbers, booleans and parameter names are not
 *   attribute values (a number is no e-mail address; a deleted value "77" leaves an `amount` of 77 alone).
 *   svc_event, svc_datasource and svc_trace_id removed this way empty their columns too; svc_account and
 *   svc_profile name the tenant, not the visitor, and stay (the event's columns hold them). An event whose own
 *   visitor IDs (svc_visitor_id, svc_thirdparty_visitor_id, svc_firstparty_visitor_id) hold the value is the
 *   data subject's (a visitor whose ID is the e-mail address): it is removed whole, with its visitor's group;
 *   a violation of the tracking plan whose offending value holds it loses that value (its parameter, rule and
 *   message, which the plan wrote, stay);
 * - in a visitor profile, a text attribute value, or the JSON of an object or array holding it (an attribute
 *   set from such a parameter): the attribute is removed, the rest of the profile stays; a
 *   captured visitor ID value that holds it names the data subject: that whole group is removed;
 * - in the kept copy of an imported file, a row with a field that holds it is removed.
 * Equality is of the normalised texts (normaliseVisitorIdValue), case kept: "Pad@example.com" is another value.
 */
import type { CollectedRequest, CollectJournalEntry } from "../collect/collect-journal.ts";
import { readQueryString } from "../collect/query-string.rules.ts";
import type { StoredEvent, Violation } from "../ports/events.store.ts";
import type { VisitorProfile } from "../profiles/profile.rules.ts";
import type { JournaledRequestText } from "../testing-tools/index.ts";
import { matchKnownVisitorId, normaliseVisitorIdValue } from "../visitors/visitor-id.rules.ts";

/**
 * DEC-PRV-05: whether a text is the erased value once normalised. `erased` is itself normalised
 * (readVisitorLookup) and never empty: an empty one erases nothing, not every empty text.
 */
export function isErasedValue(text: string, erased: string): boolean {
  return erased !== "" && text.length >= erased.length && normaliseVisitorIdValue(text) === erased;
}

/** DEC-PRV-05: whether a stored value is, or holds at any depth of its arrays and objects, text that is the erased value. */
export function holdsErasedValue(value: unknown, erased: string): boolean {
  if (typeof value === "string") return isErasedValue(value, erased);
  if (Array.isArray(value)) return value.some((item) => holdsErasedValue(item, erased));
  if (value !== null && typeof value === "object")
    return Object.values(value).some((item) => holdsErasedValue(item, erased));
  return false;
}

/**
 * DEC-PRV-05: whether a text attribute of a profile holds the erased value: it is the value, or it is the JSON
 * of an object or array holding it at any depth (an attribute set from a parameter that was one keeps that
 * parameter's JSON, so the value the event held lives on in it).
 */
export function textHoldsErasedValue(text: string, erased: string): boolean {
  if (isErasedValue(text, erased)) return true;
  const first = text.trimStart()[0];
  if ((first !== "[" && first !== "{") || !text.includes(erasureNeedle(erased))) return false;
  try {
    return holdsErasedValue(JSON.parse(text), erased);
  } catch {
    return false;
  }
}

/**
 * What a store looks for in the JSON text it keeps, to find the records that may hold the erased value
 * without parsing every one: the value as JSON.stringify writes it inside a string. Every text holding the
 * value (with white space around it or not) holds this in its JSON; a record that holds it may still not
 * hold the value (in a longer text, a parameter name), which the rules below then decide.
 */
export function erasureNeedle(erased: string): string {
  return JSON.stringify(erased).slice(1, -1);
}

/** The parameters that name the event's tenant (its account and profile columns): never the visitor's values. */
const tenantParameters = new Set(["svc_account", "svc_profile"]);

/** The columns of an event that mirror one of its parameters, and are emptied with it. */
const mirroredColumns = { svc_event: "event", svc_datasource: "datasource", svc_trace_id: "traceId" } as const;

/** What erasing a value does to one stored event. */
export type EventErasure =
  | { readonly kind: "keep" }
  /** The event's own visitor IDs hold the value: it is the data subject's, removed with its visitor by the caller. */
  | { readonly kind: "subject" }
  | {
      readonly kind: "edit";
      readonly data: Readonly<Record<string, unknown>>;
      readonly event: string | null;
      readonly datasource: string | null;
      readonly traceId: string | null;
      readonly violations: readonly Violation[];
    };

/** DEC-PRV-05: an event with the erased value taken out (see the file's comment): kept as it is, the data subject's, or edited. */
export function eraseValueFromEvent(
  event: Pick<
    StoredEvent,
    "visitorId" | "thirdPartyVisitorId" | "firstPartyVisitorId" | "event" | "datasource" | "traceId" | "data"
  > & { readonly violations?: readonly Violation[] },
  erased: string,
): EventErasure {
  const visitorIds = [event.visitorId, event.thirdPartyVisitorId, event.firstPartyVisitorId];
  if (visitorIds.some((id) => id !== null && isErasedValue(id, erased))) return { kind: "subject" };
  // Kept as entries: an assignment to a plain object would take a parameter named `__proto__` for the object's
  // prototype and drop it; Object.fromEntries makes it a parameter like any other.
  const kept: Array<[string, unknown]> = [];
  const columns = { event: event.event, datasource: event.datasource, traceId: event.traceId };
  let changed = false;
  for (const [name, value] of Object.entries(event.data)) {
    if (!tenantParameters.has(name) && holdsErasedValue(value, erased)) {
      changed = true;
      if (Object.hasOwn(mirroredColumns, name)) columns[mirroredColumns[name as keyof typeof mirroredColumns]] = null;
    } else {
      kept.push([name, value]);
    }
  }
  // A column that holds the value without its parameter (an event stored before its parameter was kept).
  for (const column of ["event", "datasource", "traceId"] as const) {
    const text = columns[column];
    if (text !== null && isErasedValue(text, erased)) {
      columns[column] = null;
      changed = true;
    }
  }
  if (!changed) return { kind: "keep" };
  // A violation's value is a part of the parameters: it holds the value only where they did.
  const violations = (event.violations ?? []).map((violation) => {
    if (!holdsErasedValue(violation.value, erased)) return violation;
    const { value: _erased, ...rest } = violation;
    return rest;
  });
  return { kind: "edit", data: Object.fromEntries(kept), ...columns, violations };
}

/** What erasing a value does to one visitor profile. */
export type ProfileErasure =
  | { readonly kind: "keep" }
  | { readonly kind: "remove-group" }
  | { readonly kind: "edit"; readonly data: VisitorProfile };

/**
 * DEC-PRV-05: a profile with the erased value taken out: its group removed whole when a captured visitor ID
 * value holds it (the group is known by the value: the data subject), else its text attributes that hold it
 * removed, else kept as it is.
 */
export function eraseValueFromProfile(profile: VisitorProfile, erased: string): ProfileErasure {
  if (Object.values(profile.visitorIds).some((value) => isErasedValue(value, erased))) return { kind: "remove-group" };
  const values = Object.entries(profile.values).filter(
    ([, value]) => !(typeof value === "string" && textHoldsErasedValue(value, erased)),
  );
  if (values.length === Object.keys(profile.values).length) return { kind: "keep" };
  return { kind: "edit", data: { ...profile, values: Object.fromEntries(values) } };
}

/**
 * The request as received holds the value: a parameter of its query string or of its Referer's is the value, or
 * its body (JSON) holds it. Its cookies are read in the visitor-ID decision, which is searched apart.
 */
function requestHoldsErasedValue(request: CollectedRequest, erased: string): boolean {
  const pairs = [...readQueryString(`?${request.query}`).pairs, ...readQueryString(request.referer ?? "").pairs];
  if (pairs.some(([, value]) => isErasedValue(value, erased))) return true;
  return request.body !== null && textHoldsErasedValue(request.body, erased);
}

/**
 * DEC-PRV-05 for the collection journal (the console's live feed): whether an entry of this account and
 * profile holds the erased value anywhere it keeps text of the request: its visitor ID (the value itself, or a
 * known visitor ID naming it), a parameter, an input of its visitor-ID decision, its event name, trace id or
 * User-Agent, the request as received. The journal forgets such entries when the deletion is requested.
 */
export function journalEntryHoldsErasedValue(
  entry: CollectJournalEntry,
  account: string,
  profile: string,
  erased: string,
): boolean {
  if (erased === "" || entry.account !== account || entry.profile !== profile) return false;
  const texts = [entry.event, entry.traceId, entry.userAgent];
  if (texts.some((text) => text !== null && isErasedValue(text, erased))) return true;
  if (entry.outcome !== "stored") return false;
  if (
    isErasedValue(entry.visitorId, erased) ||
    matchKnownVisitorId(entry.visitorId, account, profile)?.value === erased
  )
    return true;
  if (holdsErasedValue(entry.data, erased)) return true;
  if (requestHoldsErasedValue(entry.request, erased)) return true;
  return entry.decision.precedence.some(
    (row) =>
      row.value !== null &&
      (isErasedValue(row.value, erased) || matchKnownVisitorId(row.value, account, profile)?.value === erased),
  );
}

/**
 * DEC-PRV-05 for the request journal (the toolkit's `GET /admin/requests`): whether a request of this account
 * holds the erased value anywhere it keeps text: a parameter of its query (the pixel's `email_address`, a
 * lookup's `attributeValue`), a segment of its path (a moments lookup's visitor), a header's value or a cookie's,
 * a form body's field, or its body's or its answer's text; as the value itself or the JSON of an object or array
 * holding it. The journal forgets such requests when the deletion is requested.
 */
export function journaledRequestHoldsErasedValue(
  request: JournaledRequestText,
  account: string,
  erased: string,
): boolean {
  if (erased === "" || request.account !== account) return false;
  return (
    request.parameters.some(([, value]) => textHoldsErasedValue(value, erased)) ||
    request.texts.some((text) => textHoldsErasedValue(text, erased))
  );
}
