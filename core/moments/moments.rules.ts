/**
 * The visitor-data (moments) answer and its checks: MOM-03..06, MOM-11, MOM-12, DEC-MOM-01/02/04.
 */

import { refererHost } from "../collect/collect.rules.ts";
import type { AttributeDefinition, AttributeType, EngineDefinition, ProfileConfig } from "../config/config.model.ts";
import { type MomentsError, momentsError } from "../errors/moments.errors.ts";
import type { VisitorProfile } from "../profiles/profile.rules.ts";
import { audiencesOf, maxEpochMs } from "../profiles/profile.rules.ts";
import { err, ok, type Result } from "../result.ts";
import { normaliseVisitorIdValue } from "../visitors/visitor-id.rules.ts";

/** MOM-03: all six sections, present even when empty (DEC-MOM-04). */
export interface VisitorData {
  readonly audiences: string[];
  readonly badges: string[];
  readonly metrics: Record<string, number>;
  readonly properties: Record<string, string>;
  readonly flags: Record<string, boolean>;
  readonly dates: Record<string, number>;
}

/** The typed sections shared by the moments answer (MOM-03) and the privacy visitor record (DEC-PRV-01). */
export interface TypedSections {
  readonly metrics: Record<string, number>;
  readonly properties: Record<string, string>;
  readonly flags: Record<string, boolean>;
  readonly dates: Record<string, number>;
}

/**
 * Sets `key` of a section keyed by attribute names or ids as an own property: a name is free text, and
 * `section["__proto__"] = value` would set the object's prototype instead, leaving the value out of the answer.
 */
export function setKeyed<T>(section: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(section, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * MOM-03, DEC-MOM-04, DEC-PRV-01: puts a stored value in the section of its attribute's current type, when
 * it fits that type: metrics a finite number, properties a string, flags a boolean, dates an integer of
 * epoch milliseconds a Date can hold. A value stored before the attribute's type changed (12.5 under an
 * attribute now a date) does not fit and is left out, not converted: the answer never breaks its schema.
 */
export function placeAttributeValue(sections: TypedSections, type: AttributeType, key: string, value: unknown): void {
  switch (type) {
    case "number":
      if (typeof value === "number" && Number.isFinite(value)) setKeyed(sections.metrics, key, value);
      return;
    case "string":
      if (typeof value === "string") setKeyed(sections.properties, key, value);
      return;
    case "boolean":
      if (typeof value === "boolean") setKeyed(sections.flags, key, value);
      return;
    case "date":
      if (typeof value === "number" && Number.isInteger(value) && Math.abs(value) <= maxEpochMs)
        setKeyed(sections.dates, key, value);
      return;
    case "badge":
      return;
  }
}

/** DEC-MOM-01: the UID of an audience is `<account>_<profile>_<audienceId>`. */
export function audienceUid(account: string, profile: string, audienceId: number): string {
  return `${account}_${profile}_${audienceId}`;
}

/**
 * MOM-04, MOM-05, MOM-11, DEC-MOM-01, DEC-MOM-04: what the engine selects of a profile, keyed by names or
 * ids as the engine says; PII attributes never, whatever the selection; a stored value only when it fits
 * its attribute's current type (`placeAttributeValue`).
 */
export function visitorDataFor(input: {
  readonly account: string;
  readonly profileName: string;
  readonly config: ProfileConfig;
  readonly engine: EngineDefinition;
  readonly profile: VisitorProfile;
}): VisitorData {
  const { config, engine, profile } = input;
  const byNames = engine.keys === "names";
  const attributes = new Map(config.attributes.map((attribute) => [attribute.id, attribute]));
  const keyOf = (attribute: AttributeDefinition) => (byNames ? attribute.name : String(attribute.id));
  const data: VisitorData = { audiences: [], badges: [], metrics: {}, properties: {}, flags: {}, dates: {} };

  const memberOf = new Set(audiencesOf(profile, config.audiences));
  for (const audience of config.audiences) {
    if (engine.audiences.includes(audience.id) && memberOf.has(audience.id)) {
      data.audiences.push(byNames ? audience.name : audienceUid(input.account, input.profileName, audience.id));
    }
  }
  for (const badgeId of engine.badges) {
    const badge = attributes.get(badgeId);
    if (badge && badge.type === "badge" && !badge.pii && profile.badges.includes(badgeId))
      data.badges.push(keyOf(badge));
  }
  for (const attributeId of engine.attributes) {
    const attribute = attributes.get(attributeId);
    if (!attribute || attribute.pii) continue;
    placeAttributeValue(data, attribute.type, keyOf(attribute), profile.values[String(attributeId)]);
  }
  return data;
}

/** DEC-MOM-01: an empty list allows any referer; a domain allows itself and its subdomains. */
export function refererAllowed(engine: EngineDefinition, referer: string | null | undefined): boolean {
  if (engine.allowedDomains.length === 0) return true;
  // Read as a browser reads the URL (collection reads its Referer the same way): a hand-written pattern took
  // `http://evil.net\\@example.com/` for example.com.
  const host = referer ? refererHost(referer) : null;
  if (host === null) return false;
  return engine.allowedDomains.some((domain) => {
    const allowed = domain.toLowerCase();
    return host === allowed || host.endsWith(`.${allowed}`);
  });
}

/** MOM-06, MOM-08, DEC-MOM-02: a disabled engine, then a referer outside the allow list, are 403. */
export function checkEngineAccess(
  engine: EngineDefinition,
  referer: string | null | undefined,
): Result<EngineDefinition, MomentsError> {
  if (!engine.enabled) return err(momentsError("engineDisabled"));
  if (!refererAllowed(engine, referer)) return err(momentsError("refererNotAllowed"));
  return ok(engine);
}

/** `true`/`false` (any case) or absent (false); anything else is a bad request (MOM-12). */
export function readFlag(name: string, raw: string | undefined): Result<boolean, MomentsError> {
  if (raw === undefined) return ok(false);
  const lower = raw.toLowerCase();
  if (lower === "true" || lower === "false") return ok(lower === "true");
  return err(momentsError("badRequest", { problem: `${name} must be true or false` }));
}

/** MOM-02, MOM-12, DEC-MOM-02, DEC-PRV-05: the visitor ID attribute and (normalised) value of the attribute form. */
export function readAttributeLookup(
  config: ProfileConfig,
  attributeId: string | undefined,
  attributeValue: string | undefined,
): Result<{ attributeId: number; value: string }, MomentsError> {
  if (attributeId === undefined || attributeId === "")
    return err(momentsError("badRequest", { problem: "attributeId is required" }));
  if (!/^\d+$/.test(attributeId)) return err(momentsError("badRequest", { problem: "attributeId must be numeric" }));
  const id = Number(attributeId);
  if (!config.visitorIdAttributes.some((attribute) => attribute.id === id)) {
    return err(
      momentsError("badRequest", {
        problem: `attributeId ${attributeId} is not a visitor ID attribute of this profile`,
      }),
    );
  }
  // DEC-PRV-05: normalised as every visitor-ID value is; white space only is no value.
  const value = attributeValue === undefined ? "" : normaliseVisitorIdValue(attributeValue);
  if (value === "") return err(momentsError("badRequest", { problem: "attributeValue is required" }));
  return ok({ attributeId: id, value });
}
