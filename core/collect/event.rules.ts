import type { VisitorIdAttribute } from "../config/config.model.ts";
import type { CollectedEvent } from "../ports/events.store.ts";
import { readVisitorIdValue, type VisitorIdentity } from "../visitors/visitor-id.rules.ts";
import { type CollectRequest, type EventParams, emptyParams } from "./collect.rules.ts";

/** A parameter the stored event gains: the name of a visitor ID attribute's parameter and its value. */
export interface AddedParam {
  readonly parameter: string;
  readonly value: string;
}

/**
 * DEC-COL-11, VID-02, VID-08: a known visitor ID `__<account>_<profile>__<attributeId>_<value>__` sent in
 * svc_visitor_id "sets that visitor ID attribute" even when another source won the precedence (DEC-COL-09:
 * svc_override_tapid or a TAPID entry), so that the profile worker still stitches the visitor
 * (identitiesOfEvent reads the parameters of the visitor ID attributes). The event then carries the value in
 * that attribute's parameter (for example `customer_id`), unless the request sent that parameter itself
 * with a value a visitor ID takes (readVisitorIdValue): what the caller says in so many words is kept as
 * sent. A value no visitor ID takes (a TAB, a boolean) names no one, so the known value replaces it. Nothing is added when the known ID is the resolved
 * one (the worker reads it as the visitor ID: it stitches by it and sets its attribute, profileEventOf and
 * applyEvent), names another account/profile, or names an attribute that is not a visitor ID attribute of
 * the profile: there is no such attribute to set, and neither the moments nor the privacy API could look it up.
 */
export function knownVisitorIdParam(
  request: CollectRequest,
  resolvedVisitorId: string,
  visitorIdAttributes: readonly VisitorIdAttribute[],
): AddedParam | null {
  const { knownVisitorId: known, inputs } = request.visitor;
  // DEC-PRV-05: the resolved ID is the supplied known ID with its value normalised (readRequestVisitor).
  if (known === null || inputs.visitorId === resolvedVisitorId) return null;
  const attribute = visitorIdAttributes.find((candidate) => candidate.id === known.attributeId);
  if (!attribute) return null;
  if (readVisitorIdValue(request.params[attribute.parameter]) !== null) return null;
  return { parameter: attribute.parameter, value: known.value };
}

/**
 * DEC-COL-09, DEC-COL-11, COL-14, COL-16: the event as it is stored. Its data is every parameter of the
 * request (custom parameters included, cache-busters not), with svc_visitor_id replaced by the resolved ID,
 * svc_thirdparty_visitor_id and svc_firstparty_visitor_id added where known (a svc_thirdparty_visitor_id the
 * client sent is dropped: only the service knows the TAPID's), and the visitor ID attribute
 * parameter of a known svc_visitor_id that lost the precedence (knownVisitorIdParam). `visitorIdAttributes`
 * are those of the event's profile (ProfileConfig.visitorIdAttributes); without them, that last step adds nothing.
 */
export function describeCollectedEvent(
  request: CollectRequest,
  identity: VisitorIdentity,
  receivedAt: number,
  visitorIdAttributes: readonly VisitorIdAttribute[] = [],
): CollectedEvent {
  const data: EventParams = Object.assign(emptyParams(), request.params);
  const added = knownVisitorIdParam(request, identity.visitorId, visitorIdAttributes);
  if (added) data[added.parameter] = added.value;
  data.svc_visitor_id = identity.visitorId;
  // The TAPID's ID is the service's to state: one a client sent (with skip, say) is not stored as if it were.
  if (identity.thirdPartyVisitorId !== null) data.svc_thirdparty_visitor_id = identity.thirdPartyVisitorId;
  else delete data.svc_thirdparty_visitor_id;
  if (identity.firstPartyVisitorId !== null) data.svc_firstparty_visitor_id = identity.firstPartyVisitorId;
  return {
    account: request.account,
    profile: request.profile,
    visitorId: identity.visitorId,
    visitorIdSource: identity.source,
    thirdPartyVisitorId: identity.thirdPartyVisitorId,
    firstPartyVisitorId: identity.firstPartyVisitorId,
    event: request.event,
    datasource: request.datasource,
    traceId: request.traceId,
    receivedAt,
    data,
  };
}
