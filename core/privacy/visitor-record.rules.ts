/**
 * The visitor record of the privacy API's get-visitor (PRV-02, PRV-03, DEC-PRV-01): everything the profile
 * holds about the data subject, PII included, keyed by attribute ids or by names.
 */
import type { AttributeDefinition, ProfileConfig } from "../config/config.model.ts";
import { audienceUid, placeAttributeValue, setKeyed } from "../moments/moments.rules.ts";
import { audiencesOf, isVisitOpen, type ProfilePolicy, type VisitorProfile } from "../profiles/profile.rules.ts";

/** DEC-PRV-01: the seven sections, each present even when empty. */
export interface VisitorRecord {
  readonly metrics: Record<string, number>;
  readonly dates: Record<string, number>;
  readonly properties: Record<string, string>;
  readonly flags: Record<string, boolean>;
  readonly badges: string[];
  readonly audiences: string[];
  /** Visitor ID attribute (id or name) → the value captured for it. */
  readonly secondary_ids: Record<string, string>;
}

/** DEC-PRV-01: the answer of get-visitor; both spellings of the transaction id carry the same value. */
export interface VisitorRecordAnswer {
  readonly transaction_id: string;
  readonly transactionId: string;
  readonly live: boolean;
  readonly visitor: VisitorRecord;
}

/**
 * PRV-03, DEC-PRV-01: with prettyName false, attributes, badges and secondary ids are keyed by their ids and
 * audiences are UIDs `<account>_<profile>_<id>`; with true, by their names. Dates are epoch milliseconds.
 * A stored value that does not fit its attribute's current type is left out (`placeAttributeValue`).
 * Unlike the moments API (MOM-11), PII attributes are included: this is the data subject's own record.
 */
export function buildVisitorRecord(input: {
  readonly account: string;
  readonly profileName: string;
  readonly config: ProfileConfig;
  readonly profile: VisitorProfile;
  readonly prettyName: boolean;
}): VisitorRecord {
  const { config, profile, prettyName } = input;
  const keyOf = (attribute: { readonly id: number; readonly name: string }) =>
    prettyName ? attribute.name : String(attribute.id);
  const record: VisitorRecord = {
    metrics: {},
    dates: {},
    properties: {},
    flags: {},
    badges: [],
    audiences: [],
    secondary_ids: {},
  };

  for (const attribute of config.attributes) {
    placeValue(record, attribute, keyOf(attribute), profile);
  }
  const memberOf = new Set(audiencesOf(profile, config.audiences));
  for (const audience of config.audiences) {
    if (memberOf.has(audience.id))
      record.audiences.push(prettyName ? audience.name : audienceUid(input.account, input.profileName, audience.id));
  }
  for (const idAttribute of config.visitorIdAttributes) {
    const value = profile.visitorIds[String(idAttribute.id)];
    if (value !== undefined) setKeyed(record.secondary_ids, keyOf(idAttribute), value);
  }
  return record;
}

function placeValue(record: VisitorRecord, attribute: AttributeDefinition, key: string, profile: VisitorProfile): void {
  if (attribute.type === "badge") {
    if (profile.badges.includes(attribute.id)) record.badges.push(key);
    return;
  }
  placeAttributeValue(record, attribute.type, key, profile.values[String(attribute.id)]);
}

/** DEC-PRV-01: the whole answer; `live` while the visitor's visit is open at `now` (DEC-PRO-02). */
export function visitorRecordAnswer(input: {
  readonly transactionId: string;
  readonly account: string;
  readonly profileName: string;
  readonly config: ProfileConfig;
  readonly profile: VisitorProfile;
  readonly prettyName: boolean;
  readonly now: number;
  readonly policy: ProfilePolicy;
}): VisitorRecordAnswer {
  return {
    transaction_id: input.transactionId,
    transactionId: input.transactionId,
    live: isVisitOpen(input.profile, input.now, input.policy),
    visitor: buildVisitorRecord(input),
  };
}
