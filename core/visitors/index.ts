/**
 * Visitors (VID-*, DEC-COL-*): which visitor ID a request carries, in the order of precedence the interface
 * sets; the TAPID cookie; known visitor IDs; and reading cookies.
 */

export { type CollectCookies, readCookieValue } from "./cookies.rules.ts";
export {
  identifyVisitor,
  type KnownVisitor,
  normaliseVisitorIdValue,
  type PrecedenceRow,
  type RequestVisitor,
  type ResolvedVisitorId,
  type VisitorIdDecision,
  type VisitorIdentity,
  type VisitorIdInputs,
  type VisitorIdRule,
  type VisitorIdSource,
} from "./visitor-id.rules.ts";
