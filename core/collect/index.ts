/**
 * Collection: reading an event request (COL-*), describing the event stored, the bot rules, the rate
 * limits of collection (per account, shared by the nodes on one store; a fair share per source, bytes per
 * source), and the use case that collects an event (its group commit, its counters, its journal of the latest
 * outcomes and its copy of the tenants).
 */

export { genericHttpClientUserAgents, matchesVendorBotToken } from "./bot.rules.ts";
export { vendorBotTokens } from "./bot-tokens.ts";
export {
  type CollectRequest,
  type CollectRequestInput,
  type EventParams,
  type JsonValue,
  readCollectRequest,
} from "./collect.rules.ts";
export { type CollectOutcome, CollectService, type CollectServiceDeps } from "./collect.use-cases.ts";
export {
  type BotJournalEntry,
  type CollectedRequest,
  CollectJournal,
  type CollectJournalEntry,
  type CollectJournalOptions,
  type CollectJournalView,
  type CollectOutcomeRecord,
  type JournalListener,
  type RefusedJournalEntry,
  type StoredJournalEntry,
  viewOfJournalEntry,
} from "./collect-journal.ts";
export {
  type CollectCommitsView,
  type CollectRejection,
  type CollectStatsView,
  combineCollectStats,
  type NodeCollectStats,
} from "./collect-stats.ts";
export { type AddedParam, describeCollectedEvent } from "./event.rules.ts";
export { type EventExpectation, EventExpectations } from "./event-wait.use-cases.ts";
export { type GroupCommitStats, GroupCommitWriter } from "./group-commit.ts";
export { sourceOfAddress } from "./rate-limit.rules.ts";
