/**
 * Stitching (VID-08, DEC-COL-11, PRV-09): an event that names a known identity (a known visitor ID, or a
 * custom parameter mapped to a visitor ID attribute) joins its visitor to that identity's visitor. Joined
 * visitors form one group under one canonical id; the group's profile is the fold of all its events.
 */
import type { ProfileConfig } from "../config/config.model.ts";
import { buildKnownVisitorId, matchKnownVisitorId, readVisitorIdValue } from "../visitors/visitor-id.rules.ts";
import { readParameter } from "./profile.rules.ts";

export interface KnownIdentity {
  /** `__<account>_<profile>__<attributeId>_<value>__` (VID-02). */
  readonly key: string;
  readonly attributeId: number;
  readonly value: string;
}

/**
 * The known identities an event names: its own visitor id when it is a known id of this account and
 * profile (keyed by its normalised form, DEC-PRV-05, so an event stored with a padded value joins the same
 * identity), then every visitor ID attribute (in configuration order) whose parameter the event carries with
 * a value readVisitorIdValue takes (the values applyEvent captures).
 */
export function identitiesOfEvent(
  event: { readonly visitorId: string; readonly params: Readonly<Record<string, unknown>> },
  account: string,
  profile: string,
  config: ProfileConfig,
): KnownIdentity[] {
  const found: KnownIdentity[] = [];
  const known = matchKnownVisitorId(event.visitorId, account, profile);
  if (known)
    found.push({
      key: buildKnownVisitorId(account, profile, known.attributeId, known.value),
      attributeId: known.attributeId,
      value: known.value,
    });
  for (const attribute of config.visitorIdAttributes) {
    const value = readVisitorIdValue(readParameter(event.params, attribute.parameter));
    if (value === null) continue;
    const key = buildKnownVisitorId(account, profile, attribute.id, value);
    if (!found.some((identity) => identity.key === key)) found.push({ key, attributeId: attribute.id, value });
  }
  return found;
}

export function isKnownVisitorKey(visitorId: string, account: string, profile: string): boolean {
  return matchKnownVisitorId(visitorId, account, profile) !== null;
}

export interface GroupSummary {
  readonly canonical: string;
  readonly known: boolean;
  readonly firstSeenAt: number;
}

/**
 * The canonical id of two groups joined: a known visitor over an anonymous one (the anonymous visitor is
 * merged into the known one, VID-08); between two of a kind, the one seen first, then the smaller id, so the
 * choice does not depend on the order of joining.
 */
export function chooseCanonical(a: GroupSummary, b: GroupSummary): string {
  if (a.known !== b.known) return a.known ? a.canonical : b.canonical;
  if (a.firstSeenAt !== b.firstSeenAt) return a.firstSeenAt < b.firstSeenAt ? a.canonical : b.canonical;
  // biome-ignore lint/complexity/useMathMinMax: compares strings, which Math.min would turn into NaN
  return a.canonical < b.canonical ? a.canonical : b.canonical;
}
