/**
 * Visitors (VID-*, DEC-COL-*): which visitor ID a request carries, in the order of precedence the interface
 * sets; the TAPID cookie; known visitor IDs; and reading cookies.
 */

export { readCookieValue, readCookieValues } from "./cookies.rules.ts";
export {
  findTapidId,
  maxTapidCookieLength,
  parseTapid,
  planTapidCookie,
  serializeTapid,
  type TapidCookieAction,
  type TapidEntry,
  type TapidPlan,
  type TapidPlanInput,
  tapidCookieName,
  tapidMaxAgeSeconds,
  tapidSetCookie,
} from "./tapid.rules.ts";
export {
  buildKnownVisitorId,
  type IdentifyInput,
  identifyVisitor,
  isUsableVisitorId,
  type KnownVisitor,
  matchKnownVisitorId,
  maxVisitorIdLength,
  normaliseKnownVisitorId,
  normaliseVisitorIdValue,
  type ResolvedVisitorId,
  resolveVisitorId,
  type VisitorIdentity,
  type VisitorIdInputs,
  type VisitorIdRule,
  type VisitorIdSource,
  visitorIdPrecedence,
} from "./visitor-id.rules.ts";
