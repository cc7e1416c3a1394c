/**
 * Visitors (VID-*, DEC-COL-*): which visitor ID a request carries, in the order of precedence the interface
 * sets; the TAPID cookie; known visitor IDs; and reading cookies.
 */

export { readCookieValue } from "./cookies.rules.ts";
export {
  type IdentifyInput,
  identifyVisitor,
  type KnownVisitor,
  normaliseVisitorIdValue,
  type PrecedenceRow,
  type ResolvedVisitorId,
  type VisitorIdDecision,
  type VisitorIdentity,
  type VisitorIdInputs,
  type VisitorIdRule,
  type VisitorIdSource,
} from "./visitor-id.rules.ts";
