/**
 * DEC-OPS-03: the configuration FILE (JSON or YAML) as TypeBox schemas. The file is written by people, so
 * most fields are optional with a default (the `default` annotations document them; config.loader.ts fills
 * them in) and no object accepts an unknown property, so that a typo is reported instead of ignored.
 *
 * `errorMessage` on a schema is the plain-English wording the loader shows when that schema's pattern fails,
 * or when no alternative of a union fits. `sensitive` keeps the value out of messages (someone may have
 * written a password in clear where its hash belongs).
 */
import { type Static, type TLiteral, type TSchema, type TUnion, Type } from "@sinclair/typebox";
import { builtinNames, defaultLimits } from "../../core/config/index.ts";
import { emailPatternSource } from "../../core/names/index.ts";
import { timingPresetNames } from "../../core/timing/index.ts";

const closed = { additionalProperties: false } as const;

function literals<const T extends string>(values: readonly T[], options: { default?: T } = {}): TUnion<TLiteral<T>[]> {
  return Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  );
}

/** DEC-DLE-02: account, profile, engine and API key names. */
export const NameSchema = Type.String({
  minLength: 1,
  pattern: "^[A-Za-z0-9_~-]+$",
  errorMessage: "may contain only the characters A-Z a-z 0-9 _ - ~",
});

const TextSchema = Type.String({ minLength: 1 });

export const EmailSchema = Type.String({
  pattern: emailPatternSource,
  errorMessage: "must be an e-mail address",
});

const IdSchema = Type.Integer({ minimum: 1 });

/** DEC-SES-05: only argon2id hashes are stored, as whole PHC strings (base64 without padding), so verifying can read them. */
const HashSchema = Type.String({
  pattern: "^\\$argon2id\\$v=19\\$m=[0-9]+,t=[0-9]+,p=[0-9]+\\$[A-Za-z0-9+/]+\\$[A-Za-z0-9+/]+$",
  errorMessage: 'must be an argon2id hash ("$argon2id$v=19$m=...,t=...,p=...$salt$hash")',
  sensitive: true,
});

/** DEC-GEN-05: the node id is sent as the X-NodeId header, which carries only visible ASCII. */
const NodeIdSchema = Type.String({
  pattern: "^[!-~]{1,128}$",
  errorMessage:
    "must be visible ASCII characters (no spaces or control characters), at most 128, to fit the X-NodeId header",
});

/**
 * DEC-MOM-01: an allowed domain is compared with the Referer's host (lower-cased; a domain allows its
 * subdomains: core/moments/moments.rules.ts refererAllowed), so only a host name, or an IPv6 literal in
 * brackets as the URL parser gives it (core/collect/collect.rules.ts refererHost), can ever match.
 */
const DomainSchema = Type.String({
  pattern: "^(?:[A-Za-z0-9-]+(?:\\.[A-Za-z0-9-]+)*|\\[[0-9A-Fa-f:.]+\\])$",
  errorMessage:
    "must be a host name (letters, digits, hyphens and dots; no scheme, port, path or wildcard; a domain allows its subdomains)",
});

const EnvNameSchema = Type.String({
  pattern: "^[A-Za-z_][A-Za-z0-9_]*$",
  errorMessage: "must be the name of an environment variable (letters, digits and _)",
});

export const SecretSchema = Type.Union(
  [Type.Object({ hash: HashSchema }, closed), Type.Object({ env: EnvNameSchema }, closed)],
  { errorMessage: 'must be either { hash: "$argon2id$..." } or { env: "NAME" }', sensitive: true },
);

/** DEC-SES-04 */
const GrantSchema = Type.Object(
  {
    account: NameSchema,
    profiles: Type.Union([Type.Literal("*"), Type.Array(NameSchema)], {
      errorMessage: 'must be "*" (all profiles) or a list of profile names',
    }),
  },
  closed,
);

const UserSchema = Type.Object(
  {
    email: EmailSchema,
    password: SecretSchema,
    disabled: Type.Optional(Type.Boolean({ default: false })),
    grants: Type.Optional(Type.Array(GrantSchema, { default: [] })),
  },
  closed,
);

/** DEC-AUT-02 */
const ApiKeySchema = Type.Object(
  {
    id: NameSchema,
    user: EmailSchema,
    key: SecretSchema,
  },
  closed,
);

const VisitorIdAttributeSchema = Type.Object(
  {
    id: IdSchema,
    name: TextSchema,
    parameter: TextSchema,
  },
  closed,
);

const OperatorSchema = literals([
  "equals",
  "not_equals",
  "contains",
  "starts_with",
  "exists",
  "not_exists",
  "greater_than",
  "less_than",
]);

const ConditionValueSchema = Type.Union([Type.String(), Type.Number(), Type.Boolean()], {
  errorMessage: "must be a string, a number or a boolean",
});

/** DEC-PRO-01: enrichments test event parameters. */
const ParameterConditionSchema = Type.Object(
  { parameter: TextSchema, operator: OperatorSchema, value: Type.Optional(ConditionValueSchema) },
  closed,
);

/** DEC-PRO-01: audiences test visitor attributes. */
const AttributeConditionSchema = Type.Object(
  { attribute: IdSchema, operator: OperatorSchema, value: Type.Optional(ConditionValueSchema) },
  closed,
);

/**
 * DEC-PRO-01: an enrichment tests the event's parameters, or the visitor's attributes as they stand when the
 * event arrives (a badge as true when assigned, a visitor ID attribute as its captured value).
 */
const EnrichmentConditionSchema = Type.Union([ParameterConditionSchema, AttributeConditionSchema], {
  errorMessage: "must be {parameter, operator, value} or {attribute, operator, value}",
});

/** DEC-PRO-01: audiences may also test the built-ins every profile keeps. */
const AudienceConditionSchema = Type.Union(
  [
    AttributeConditionSchema,
    Type.Object(
      { builtin: literals(builtinNames), operator: OperatorSchema, value: Type.Optional(ConditionValueSchema) },
      closed,
    ),
  ],
  {
    errorMessage: `must be {attribute, operator, value} or {builtin, operator, value}, builtin one of: ${builtinNames.join(", ")}`,
  },
);

/** Groups are ANDed inside and ORed across; no group at all means always. */
function conditionGroups<T extends TSchema>(condition: T) {
  return Type.Optional(Type.Array(Type.Array(condition, { minItems: 1 }), { default: [] }));
}

const ActionSchema = Type.Union(
  [
    Type.Object({ type: Type.Literal("increment"), by: Type.Number() }, closed),
    Type.Object({ type: Type.Literal("increment_by_parameter"), parameter: TextSchema }, closed),
    Type.Object({ type: Type.Literal("set_from_parameter"), parameter: TextSchema }, closed),
    Type.Object({ type: Type.Literal("set_value"), value: ConditionValueSchema }, closed),
    Type.Object({ type: Type.Literal("set_event_time") }, closed),
    Type.Object({ type: Type.Literal("assign_badge") }, closed),
    Type.Object({ type: Type.Literal("remove_badge") }, closed),
  ],
  { errorMessage: "must be an action object with a type" },
);

const EnrichmentSchema = Type.Object(
  {
    when: literals(["new_visitor", "new_visit", "any_event"]),
    conditions: conditionGroups(EnrichmentConditionSchema),
    action: ActionSchema,
  },
  closed,
);

const AttributeSchema = Type.Object(
  {
    id: IdSchema,
    name: TextSchema,
    type: literals(["number", "string", "boolean", "date", "badge"]),
    pii: Type.Optional(Type.Boolean({ default: false })),
    enrichments: Type.Optional(Type.Array(EnrichmentSchema, { default: [] })),
  },
  closed,
);

const AudienceSchema = Type.Object(
  {
    id: IdSchema,
    name: TextSchema,
    conditions: conditionGroups(AudienceConditionSchema),
  },
  closed,
);

/** DEC-MOM-01 */
const EngineSchema = Type.Object(
  {
    id: NameSchema,
    name: Type.Optional(Type.String({ minLength: 1, description: "defaults to the id" })),
    enabled: Type.Optional(Type.Boolean({ default: true })),
    allowedDomains: Type.Optional(Type.Array(DomainSchema, { default: [] })),
    keys: Type.Optional(literals(["names", "ids"], { default: "names" })),
    audiences: Type.Optional(Type.Array(IdSchema, { default: [] })),
    badges: Type.Optional(Type.Array(IdSchema, { default: [] })),
    attributes: Type.Optional(Type.Array(IdSchema, { default: [] })),
  },
  closed,
);

/** DEC-FIL-01 */
const FileDefinitionSchema = Type.Object(
  {
    prefix: Type.String({
      minLength: 1,
      maxLength: 150,
      pattern: "^[A-Za-z0-9_~-]+$",
      errorMessage: "may contain only the characters A-Z a-z 0-9 _ - ~",
    }),
    event: Type.Optional(Type.String({ minLength: 1, default: "imported" })),
    visitorId: Type.Object({ column: TextSchema, attribute: IdSchema }, closed),
    columns: Type.Optional(
      Type.Array(
        Type.Object(
          {
            column: TextSchema,
            attribute: IdSchema,
            type: literals(["number", "string", "boolean", "date"]),
            dateFormat: Type.Optional(TextSchema),
          },
          closed,
        ),
        { default: [] },
      ),
    ),
  },
  closed,
);

/** A JSON Schema (draft 2020-12): ajv checks it when the configuration is loaded (tracking-plans.ts). */
const JsonSchemaSchema = Type.Union([Type.Object({}), Type.Boolean()], {
  errorMessage: "must be a JSON Schema: an object, or true or false",
});

/** Issue 43: the schemas a profile's events are judged by (docs/configuration.md, "Tracking plan"). */
const TrackingPlanSchema = Type.Object(
  {
    /** The schema every event of the profile must fit, named or not. */
    allEvents: Type.Optional(JsonSchemaSchema),
    events: Type.Optional(
      Type.Record(Type.String({ minLength: 1 }), JsonSchemaSchema, {
        default: {},
        description: "A JSON Schema (draft 2020-12) per event name (svc_event), for the event's parameters as stored",
      }),
    ),
  },
  closed,
);

const ProfileSchema = Type.Object(
  {
    name: NameSchema,
    visitorIdAttributes: Type.Optional(Type.Array(VisitorIdAttributeSchema, { default: [] })),
    attributes: Type.Optional(Type.Array(AttributeSchema, { default: [] })),
    audiences: Type.Optional(Type.Array(AudienceSchema, { default: [] })),
    engines: Type.Optional(Type.Array(EngineSchema, { default: [] })),
    fileDefinitions: Type.Optional(Type.Array(FileDefinitionSchema, { default: [] })),
    trackingPlan: Type.Optional(TrackingPlanSchema),
  },
  closed,
);

const AccountSchema = Type.Object(
  {
    name: NameSchema,
    profiles: Type.Optional(Type.Array(ProfileSchema, { default: [] })),
  },
  closed,
);

/** DEC-REV-02: the prefix of bundle member names. */
const RevisionFilePrefixSchema = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: "^[A-Za-z0-9_~-]+$",
  default: "utag",
  errorMessage: "may contain only the characters A-Z a-z 0-9 _ - ~",
});

/** DEC-REV-01, demo.md: a revision published at start (once); each file's member name and its text. */
const RevisionSchema = Type.Object(
  {
    account: NameSchema,
    profile: NameSchema,
    name: TextSchema,
    comment: Type.Optional(Type.String({ default: "" })),
    createdBy: EmailSchema,
    targets: Type.Array(NameSchema, { minItems: 1 }),
    files: Type.Array(Type.Object({ name: TextSchema, text: Type.String() }, closed), { minItems: 1 }),
  },
  closed,
);

const positive = (value: number) => Type.Optional(Type.Integer({ minimum: 1, default: value }));

/** Each limit may be given alone; the others keep core's defaults. */
const LimitsSchema = Type.Object(
  {
    lockoutAttempts: positive(defaultLimits.lockoutAttempts),
    lockoutMinutes: positive(defaultLimits.lockoutMinutes),
    sessionIdleMinutes: positive(defaultLimits.sessionIdleMinutes),
    sessionAbsoluteHours: positive(defaultLimits.sessionAbsoluteHours),
    maxSessionsPerUser: positive(defaultLimits.maxSessionsPerUser),
    collectEventsPerSecond: positive(defaultLimits.collectEventsPerSecond),
    collectBytesPerSourcePerSecond: positive(defaultLimits.collectBytesPerSourcePerSecond),
    collectRateExchangeMs: positive(defaultLimits.collectRateExchangeMs),
    eventRetentionDays: positive(defaultLimits.eventRetentionDays),
    visitTimeoutMinutes: positive(defaultLimits.visitTimeoutMinutes),
    statusRetentionDays: positive(defaultLimits.statusRetentionDays),
    maxBodyBytes: positive(defaultLimits.maxBodyBytes),
    dataLayerListMax: positive(defaultLimits.dataLayerListMax),
    maxImportRecordBytes: positive(defaultLimits.maxImportRecordBytes),
    maxUploadBytes: positive(defaultLimits.maxUploadBytes),
  },
  closed,
);

export const ConfigFileSchema = Type.Object(
  {
    /** Lets an editor find a JSON Schema for completion; ignored by the service. */
    $schema: Type.Optional(Type.String()),
    /** DEC-GEN-05 */
    nodeId: Type.Optional(NodeIdSchema),
    /** DEC-OPS-02 */
    timing: Type.Optional(literals(timingPresetNames, { default: "fast" })),
    limits: Type.Optional(LimitsSchema),
    accounts: Type.Optional(Type.Array(AccountSchema, { default: [] })),
    users: Type.Optional(Type.Array(UserSchema, { default: [] })),
    apiKeys: Type.Optional(Type.Array(ApiKeySchema, { default: [] })),
    /** DEC-REV-02 */
    revisionFilePrefix: Type.Optional(RevisionFilePrefixSchema),
    /** DEC-REV-01 */
    revisions: Type.Optional(Type.Array(RevisionSchema, { default: [] })),
  },
  closed,
);

export type ConfigFile = Static<typeof ConfigFileSchema>;
export type ProfileFile = Static<typeof ProfileSchema>;
export type RevisionFile = Static<typeof RevisionSchema>;
