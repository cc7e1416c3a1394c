import type { CollectedEvent } from "../ports/events.store.ts";
import type { VisitorIdentity } from "../visitors/visitor-id.rules.ts";
import { emptyParams, type CollectRequest } from "./collect.rules.ts";

/**
 * DEC-COL-09, COL-14, COL-16: the event as it is stored. Its data is every parameter of the request (custom
 * parameters included, cache-busters not), with svc_visitor_id replaced by the resolved ID and
 * svc_thirdparty_visitor_id and svc_firstparty_visitor_id added where known.
 */
export function describeCollectedEvent(request: CollectRequest, identity: VisitorIdentity, receivedAt: number): CollectedEvent {
  const data = Object.assign(emptyParams(), request.params);
  data.svc_visitor_id = identity.visitorId;
  if (identity.thirdPartyVisitorId !== null) data.svc_thirdparty_visitor_id = identity.thirdPartyVisitorId;
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
