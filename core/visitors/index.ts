/**
 * Visitors (VID-*, DEC-COL-*): which visitor ID a request carries, in the order of precedence the interface
 * sets; the TAPID cookie; known visitor IDs; and reading cookies.
 */

export { parseCookies, type RequestCookies, readCookieValue } from "./cookies.rules.ts";
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
  explainVisitorId,
  identifyVisitor,
  isLookupVisitorId,
  isUsableVisitorId,
  type KnownVisitor,
  matchKnownVisitorId,
  maxVisitorIdLength,
  newVisitorIdClauses,
  normaliseKnownVisitorId,
  normaliseVisitorIdValue,
  type PrecedenceRow,
  type RequestVisitor,
  type ResolvedVisitorId,
  readRequestVisitor,
  resolveVisitorId,
  type VisitorIdDecision,
  type VisitorIdentity,
  type VisitorIdInputs,
  type VisitorIdRule,
  type VisitorIdSource,
  visitorIdPrecedence,
} from "./visitor-id.rules.ts";
