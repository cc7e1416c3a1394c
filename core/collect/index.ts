/**
 * Collection: reading an event request (COL-*), describing the event stored, the bot rules, and the rate
 * limits of collection (per account, a fair share per source, bytes per source).
 */

export { genericHttpClientUserAgents, matchesVendorBotToken } from "./bot.rules.ts";
export { vendorBotTokens } from "./bot-tokens.ts";
export {
  type CollectRequest,
  type CollectRequestInput,
  type EventParams,
  emptyParams,
  type JsonValue,
  parseEventBody,
  readCollectRequest,
  refererHost,
} from "./collect.rules.ts";
export { type AddedParam, describeCollectedEvent, knownVisitorIdParam } from "./event.rules.ts";
export {
  type Admission,
  activeSourceMs,
  admitEvent,
  type ByteAdmission,
  type ByteBucket,
  emptyRateWindow,
  fairShare,
  type RateWindow,
  rateWindowMs,
  recentWindow,
  recordAdmission,
  sourceOfAddress,
  takeBytes,
  windowCount,
} from "./rate-limit.rules.ts";
export {
  CollectRateLimiter,
  type CollectRateSettings,
  type RateDecision,
  type RateRequest,
} from "./rate-limiter.ts";
