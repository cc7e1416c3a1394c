/**
 * The configuration: its model (the service, its accounts and profiles, their definitions, and the limits), the
 * problems found in it, and applying it to the store at start (DEC-OPS-03): tenants, users, API keys and the
 * configured revisions.
 */

export { type ApplyConfigDeps, type ApplyConfigReport, applyConfig } from "./apply-config.use-cases.ts";
export {
  type AccountConfig,
  type ApiKeyConfig,
  type AttributeDefinition,
  type AttributeType,
  type AudienceDefinition,
  type BuiltinName,
  builtinNames,
  type Condition,
  type ConditionGroups,
  type ConditionOperator,
  type ConditionValue,
  type ConfiguredRevision,
  type ConfiguredRevisionFile,
  defaultLimits,
  type EngineDefinition,
  type Enrichment,
  type EnrichmentAction,
  type EnrichmentTrigger,
  type FileColumn,
  type FileColumnType,
  type FileDefinition,
  type Grant,
  type JsonSchema,
  type Limits,
  type ProfileConfig,
  type SecretSource,
  type ServiceConfig,
  type TrackingPlanConfig,
  type UserConfig,
  type VisitorIdAttribute,
} from "./config.model.ts";
export { ConfigError, type ConfigProblem } from "./config-error.ts";
export { applyConfiguredRevisions, type ConfiguredRevisionsReport } from "./configured-revisions.use-cases.ts";
