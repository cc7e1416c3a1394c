/**
 * The service configuration as the domain sees it, once a configuration file has been read and validated
 * (the file format and its schema live in adapters/config). Everything here is plain data.
 */
import type { TimingPresetName } from "../timing/timing.presets.ts";

/** A secret given in the configuration: an argon2id hash, or the name of an environment variable holding it in clear. */
export type SecretSource = { readonly hash: string } | { readonly env: string };

/** DEC-SES-04, AUT-03: a grant on one account, for all its profiles or a list of them. */
export interface Grant {
  readonly account: string;
  readonly profiles: "*" | readonly string[];
}

export interface UserConfig {
  readonly email: string;
  readonly password: SecretSource;
  readonly disabled: boolean;
  readonly grants: readonly Grant[];
}

/** DEC-AUT-02: an API key belongs to one user. */
export interface ApiKeyConfig {
  readonly id: string;
  readonly user: string;
  readonly key: SecretSource;
}

/** VID-02, VID-08, PRV-08: a visitor ID attribute, filled from an event parameter of the same purpose. */
export interface VisitorIdAttribute {
  readonly id: number;
  readonly name: string;
  /** The event parameter whose value is captured (for example `email_address`). */
  readonly parameter: string;
}

export type AttributeType = "number" | "string" | "boolean" | "date" | "badge";

export type ConditionOperator =
  | "equals"
  | "not_equals"
  | "contains"
  | "starts_with"
  | "exists"
  | "not_exists"
  | "greater_than"
  | "less_than";

export type ConditionValue = string | number | boolean;

/**
 * DEC-PRO-01: what every profile keeps without configuration, and audiences may test: the lifetime counts
 * of events and visits, the start of the first and of the latest visit (epoch milliseconds), and whether the
 * visitor came back (more than one visit).
 */
export const builtinNames = [
  "lifetime_event_count",
  "lifetime_visit_count",
  "first_visit",
  "last_visit",
  "returning_visitor",
] as const;
export type BuiltinName = (typeof builtinNames)[number];

/**
 * A test of one event parameter (enrichments), or of one visitor attribute or built-in (audiences).
 * DEC-PRO-01
 */
export type Condition =
  | { readonly parameter: string; readonly operator: ConditionOperator; readonly value?: ConditionValue }
  | { readonly attribute: number; readonly operator: ConditionOperator; readonly value?: ConditionValue }
  | { readonly builtin: BuiltinName; readonly operator: ConditionOperator; readonly value?: ConditionValue };

/** Groups are ANDed inside and ORed across; no group at all means always. DEC-PRO-01 */
export type ConditionGroups = readonly (readonly Condition[])[];

export type EnrichmentTrigger = "new_visitor" | "new_visit" | "any_event";

/** What an enrichment does to its attribute. DEC-PRO-01 */
export type EnrichmentAction =
  | { readonly type: "increment"; readonly by: number }
  | { readonly type: "increment_by_parameter"; readonly parameter: string }
  | { readonly type: "set_from_parameter"; readonly parameter: string }
  | { readonly type: "set_value"; readonly value: ConditionValue }
  | { readonly type: "set_event_time" }
  | { readonly type: "assign_badge" }
  | { readonly type: "remove_badge" };

export interface Enrichment {
  readonly when: EnrichmentTrigger;
  readonly conditions: ConditionGroups;
  readonly action: EnrichmentAction;
}

export interface AttributeDefinition {
  readonly id: number;
  readonly name: string;
  readonly type: AttributeType;
  readonly pii: boolean;
  readonly enrichments: readonly Enrichment[];
}

/** An audience: a named condition over visitor attributes. DEC-PRO-01 */
export interface AudienceDefinition {
  readonly id: number;
  readonly name: string;
  readonly conditions: ConditionGroups;
}

/** DEC-MOM-01 */
export interface EngineDefinition {
  readonly id: string;
  readonly name: string;
  readonly enabled: boolean;
  /** Empty: any referer. A domain also allows its subdomains. */
  readonly allowedDomains: readonly string[];
  readonly keys: "names" | "ids";
  readonly audiences: readonly number[];
  readonly badges: readonly number[];
  readonly attributes: readonly number[];
}

export type FileColumnType = "number" | "string" | "boolean" | "date";

/** DEC-FIL-01 */
export interface FileColumn {
  readonly column: string;
  readonly attribute: number;
  readonly type: FileColumnType;
  /** Java-style pattern such as `yyyy-MM-dd HH:mm`, for date columns. */
  readonly dateFormat?: string;
}

/** DEC-FIL-01 */
export interface FileDefinition {
  readonly prefix: string;
  readonly event: string;
  readonly visitorId: { readonly column: string; readonly attribute: number };
  readonly columns: readonly FileColumn[];
}

/** A JSON Schema (draft 2020-12) as written in the configuration: an object, or true / false. */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

/**
 * Issue 43: a profile's tracking plan. Each event is judged by the schema of its name (svc_event) and the one
 * for all events, against its parameters as stored (docs/decisions.md, "The tracking plan").
 */
export interface TrackingPlanConfig {
  /** A schema per event name. */
  readonly events: Readonly<Record<string, JsonSchema>>;
  /** A schema every event of the profile must fit, named or not; absent: none. */
  readonly allEvents?: JsonSchema;
}

/** Everything configured for one profile. */
export interface ProfileConfig {
  readonly name: string;
  readonly visitorIdAttributes: readonly VisitorIdAttribute[];
  readonly attributes: readonly AttributeDefinition[];
  readonly audiences: readonly AudienceDefinition[];
  readonly engines: readonly EngineDefinition[];
  readonly fileDefinitions: readonly FileDefinition[];
  /** Absent: the profile's events are not judged (their verdict is `none`). */
  readonly trackingPlan?: TrackingPlanConfig;
}

export interface AccountConfig {
  readonly name: string;
  readonly profiles: readonly ProfileConfig[];
}

/** Numbers the decisions mark *(config)*; the defaults are what the conformance suite expects. */
export interface Limits {
  /** DEC-SES-01 */
  readonly lockoutAttempts: number;
  readonly lockoutMinutes: number;
  /** DEC-SES-02 */
  readonly sessionIdleMinutes: number;
  readonly sessionAbsoluteHours: number;
  /**
   * The live sessions one user may hold; a login beyond it ends the user's oldest session (so that logging in
   * in a loop cannot grow the store without end).
   */
  readonly maxSessionsPerUser: number;
  /** DEC-COL-07 */
  readonly collectEventsPerSecond: number;
  /** Ours, beside DEC-COL-07: the bytes of events one source may send per second (a bucket of this size). */
  readonly collectBytesPerSourcePerSecond: number;
  /**
   * Ours, for DEC-COL-07 across nodes: how often, in milliseconds of real time, a node collecting events gives the
   * store its counts and reads the other nodes' (core/collect/rate-exchange.use-cases.ts says why 40).
   */
  readonly collectRateExchangeMs: number;
  /** Ours: how long collected and imported events are kept, in days of the virtual clock. */
  readonly eventRetentionDays: number;
  /** DEC-PRO-02 */
  readonly visitTimeoutMinutes: number;
  /** DEC-DLE-08, LIM-02 */
  readonly statusRetentionDays: number;
  /** DEC-DLE-04 */
  readonly maxBodyBytes: number;
  /** DEC-DLE-09, LIM-01 */
  readonly dataLayerListMax: number;
  /** DEC-FIL-03: the largest document one imported row may make ("Max BSON size"), in bytes. */
  readonly maxImportRecordBytes: number;
  /** DEC-OPS-04: the largest file the admin upload takes, in bytes (drop folder files have no limit). */
  readonly maxUploadBytes: number;
}

export const defaultLimits: Limits = {
  lockoutAttempts: 5,
  lockoutMinutes: 10,
  sessionIdleMinutes: 30,
  sessionAbsoluteHours: 12,
  maxSessionsPerUser: 50,
  collectEventsPerSecond: 100,
  collectBytesPerSourcePerSecond: 8 * 1_048_576,
  collectRateExchangeMs: 40,
  eventRetentionDays: 396,
  visitTimeoutMinutes: 30,
  statusRetentionDays: 30,
  maxBodyBytes: 1_048_576,
  dataLayerListMax: 1000,
  maxImportRecordBytes: 16 * 1024 * 1024,
  maxUploadBytes: 4 * 1024 * 1024 * 1024,
};

/** One file of a configured revision, given as text in the configuration. */
export interface ConfiguredRevisionFile {
  readonly name: string;
  readonly text: string;
}

/**
 * DEC-REV-01, demo.md: a revision the configuration publishes at start, once: a restart, or a second node,
 * finds it published and does not publish it again.
 */
export interface ConfiguredRevision {
  readonly account: string;
  readonly profile: string;
  readonly name: string;
  readonly comment: string;
  readonly createdBy: string;
  readonly targets: readonly string[];
  readonly files: readonly ConfiguredRevisionFile[];
}

export interface ServiceConfig {
  /** DEC-GEN-05: the node id; absent means host name plus process id. */
  readonly nodeId?: string;
  readonly timing: TimingPresetName;
  readonly limits: Limits;
  readonly accounts: readonly AccountConfig[];
  readonly users: readonly UserConfig[];
  readonly apiKeys: readonly ApiKeyConfig[];
  /** DEC-REV-02: the file prefix of revision bundle members (`utag.js`, `utag.<n>.js`, `utag.sync.js`). */
  readonly revisionFilePrefix: string;
  /** Revisions published at start when the store does not have them yet. */
  readonly revisions: readonly ConfiguredRevision[];
}
