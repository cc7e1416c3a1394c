/**
 * The records the tests put in a store: the store contract suites (adapters/store-contract), the tests of the use
 * cases in the core and those of the adapters alike. Fixtures only, no test in this file; they read the stores
 * only through the ports, so they fill the in-memory store and libSQL's the same.
 */
import type { AttributeDefinition, ProfileConfig, VisitorIdAttribute } from "../core/config/index.ts";
import type {
  ApiKeyRecord,
  CollectedEvent,
  FileStatusRecord,
  PrivacyAuditRecord,
  PrivacyTransaction,
  StoredEvent,
  Stores,
  UserRecord,
} from "../core/ports/index.ts";
import { privacyAuditRecord } from "../core/privacy/index.ts";

/** A collected view of acme/main by the visitor v1. */
export function sampleEvent(
  overrides: Partial<CollectedEvent> = {},
): CollectedEvent & Pick<StoredEvent, "verdict" | "violations"> {
  return {
    account: "acme",
    profile: "main",
    visitorId: "v1",
    visitorIdSource: "visitor_id",
    thirdPartyVisitorId: null,
    firstPartyVisitorId: null,
    event: "view",
    datasource: null,
    traceId: null,
    receivedAt: 1_700_000_000_000,
    data: { svc_account: "acme", svc_visitor_id: "v1" },
    verdict: "none",
    violations: [],
    ...overrides,
  };
}

/** A view of acme/main by `visitorId` with the parameters `data`, received at `receivedAt`. */
export function visitorEvent(
  visitorId: string,
  data: Record<string, unknown> = {},
  receivedAt = 1_000,
): CollectedEvent {
  return sampleEvent({ visitorId, data, receivedAt });
}

/** The number of the last sample file record (each has an id and name of its own). */
let sequence = 0;

/** A file import just received (DOWNLOADING), of a new id and name each call. */
export function sampleFileRecord(overrides: Partial<FileStatusRecord> = {}): FileStatusRecord {
  sequence += 1;
  return {
    id: sequence.toString(16).padStart(24, "0"),
    account: "acme",
    profile: "main",
    name: `purchases_${sequence}.csv`,
    prefix: "purchases",
    createdAt: 1_000,
    nodeId: "node-a",
    file: { size: 0, checksum: "", sourceType: "upload", sourceHost: "host-a", lineCount: 0 },
    status: [{ state: "DOWNLOADING", at: 1_000 }],
    finished: false,
    progress: null,
    ...overrides,
  };
}

/** An import of acme/main's purchases_2.csv that another node is processing, and has not finished. */
export function importInProgress(overrides: Partial<FileStatusRecord> = {}): FileStatusRecord {
  return sampleFileRecord({
    id: "0".repeat(24),
    name: "purchases_2.csv",
    createdAt: 0,
    nodeId: "other-node",
    file: { size: 0, checksum: "", sourceType: "upload", sourceHost: "host", lineCount: 0 },
    status: [{ state: "PROCESSING", at: 0 }],
    ...overrides,
  });
}

/** A pending deletion of ann@example.com (the visitor ID attribute 5120). */
export function sampleTransaction(overrides: Partial<PrivacyTransaction> = {}): PrivacyTransaction {
  return {
    id: "t1",
    account: "acme",
    profile: "main",
    kind: "delete",
    attributeId: 5120,
    valueHash: "hash-of-ann",
    value: "ann@example.com",
    state: "PENDING",
    requestedBy: "demo@example.com",
    createdAt: 1_000,
    runAt: 3_000,
    attempts: 0,
    settledAt: null,
    ...overrides,
  };
}

/** A deletion, due at once, of the visitor whose visitor ID attribute `attributeId` is `value`. */
export function deletionOf(attributeId: number, value: string): PrivacyTransaction {
  return sampleTransaction({ attributeId, value, valueHash: "h", createdAt: 0, runAt: 0 });
}

/** The audit record the service writes (privacyAuditRecord), with the test's defaults for time and detail. */
export function auditFor(
  transaction: PrivacyTransaction,
  action: PrivacyAuditRecord["action"],
  at = transaction.createdAt,
  detail: Record<string, number> = {},
): PrivacyAuditRecord {
  return privacyAuditRecord(transaction, action, at, detail);
}

/** The visitor ID attribute of an e-mail address, as demo.md's acme/main has it. */
export const emailIdAttribute: VisitorIdAttribute = { id: 5120, name: "email_address", parameter: "email_address" };
/** The visitor ID attribute of a customer id, as demo.md's acme/main has it. */
export const customerIdAttribute: VisitorIdAttribute = { id: 5121, name: "customer_id", parameter: "customer_id" };

/** The known visitor ID of acme/main for the e-mail address `value` (attribute 5120). */
export const knownEmailId = (value: string) => `__acme_main__5120_${value}__`;

/**
 * demo.md's acme/main attributes, in part: Lifetime event count (5201), Last event name (5202) and the Buyer
 * badge (5205, assigned by a purchase).
 */
export const buyerAttributes: readonly AttributeDefinition[] = [
  {
    id: 5201,
    name: "Lifetime event count",
    type: "number",
    pii: false,
    enrichments: [{ when: "any_event", conditions: [], action: { type: "increment", by: 1 } }],
  },
  {
    id: 5202,
    name: "Last event name",
    type: "string",
    pii: false,
    enrichments: [
      { when: "any_event", conditions: [], action: { type: "set_from_parameter", parameter: "svc_event" } },
    ],
  },
  {
    id: 5205,
    name: "Buyer",
    type: "badge",
    pii: false,
    enrichments: [
      {
        when: "any_event",
        conditions: [[{ parameter: "svc_event", operator: "equals", value: "purchase" }]],
        action: { type: "assign_badge" },
      },
    ],
  },
];

/** A profile ("main" unless `parts` names another) with nothing configured but `parts`. */
export function profileWith(parts: Partial<ProfileConfig> = {}): ProfileConfig {
  return {
    name: "main",
    visitorIdAttributes: [],
    attributes: [],
    audiences: [],
    engines: [],
    fileDefinitions: [],
    ...parts,
  };
}

/** A number attribute counting every event of the visitor, as demo.md's acme/main has it. */
export const eventCountAttribute: AttributeDefinition = {
  id: 5201,
  name: "Lifetime event count",
  type: "number",
  pii: false,
  enrichments: [{ when: "any_event", conditions: [], action: { type: "increment", by: 1 } }],
};

/** The account acme with the profile `config`, created at `at`. */
export async function seedProfile(stores: Stores, config: ProfileConfig, at = 0): Promise<void> {
  await stores.tenancy.ensureAccount("acme", at);
  await stores.tenancy.putProfile("acme", config, at);
}

/** A profile using every kind of definition and every variant inside them. */
export function fullProfileConfig(name = "main"): ProfileConfig {
  return {
    name,
    visitorIdAttributes: [
      { id: 5120, name: "Email", parameter: "email_address" },
      { id: 5110, name: "CRM id", parameter: "customer_id" },
    ],
    attributes: [
      {
        id: 7,
        name: "Lifetime orders",
        type: "number",
        pii: false,
        enrichments: [
          {
            when: "any_event",
            conditions: [[{ parameter: "tealium_event", operator: "equals", value: "purchase" }]],
            action: { type: "increment", by: 1 },
          },
          {
            when: "any_event",
            conditions: [],
            action: { type: "increment_by_parameter", parameter: "order_count" },
          },
        ],
      },
      {
        id: 3,
        name: "Favourite colour",
        type: "string",
        pii: true,
        enrichments: [
          {
            when: "new_visit",
            conditions: [
              [
                { parameter: "colour", operator: "exists" },
                { parameter: "colour", operator: "not_equals", value: "" },
              ],
              [{ parameter: "page", operator: "starts_with", value: "/shop" }],
            ],
            action: { type: "set_from_parameter", parameter: "colour" },
          },
          { when: "new_visitor", conditions: [], action: { type: "set_value", value: "unknown" } },
        ],
      },
      {
        id: 12,
        name: "Subscriber",
        type: "boolean",
        pii: false,
        enrichments: [{ when: "any_event", conditions: [], action: { type: "set_value", value: true } }],
      },
      {
        id: 20,
        name: "Last seen",
        type: "date",
        pii: false,
        enrichments: [{ when: "any_event", conditions: [], action: { type: "set_event_time" } }],
      },
      {
        id: 30,
        name: "Big spender",
        type: "badge",
        pii: false,
        enrichments: [
          {
            when: "any_event",
            conditions: [[{ attribute: 7, operator: "greater_than", value: 10 }]],
            action: { type: "assign_badge" },
          },
          {
            when: "any_event",
            conditions: [[{ attribute: 7, operator: "less_than", value: 2.5 }]],
            action: { type: "remove_badge" },
          },
        ],
      },
    ],
    audiences: [
      {
        id: 2,
        name: "Loyal",
        conditions: [[{ attribute: 7, operator: "greater_than", value: 3 }], [{ attribute: 30, operator: "exists" }]],
      },
      { id: 1, name: "Everyone", conditions: [] },
    ],
    engines: [
      {
        id: "web",
        name: "Website",
        enabled: true,
        allowedDomains: ["example.com", "shop.example.org"],
        keys: "names",
        audiences: [2, 1],
        badges: [30],
        attributes: [7, 3],
      },
      {
        id: "app",
        name: "App",
        enabled: false,
        allowedDomains: [],
        keys: "ids",
        audiences: [],
        badges: [],
        attributes: [],
      },
    ],
    fileDefinitions: [
      {
        prefix: "orders",
        event: "offline_purchase",
        visitorId: { column: "email", attribute: 5120 },
        columns: [
          { column: "total", attribute: 7, type: "number" },
          { column: "ordered_at", attribute: 20, type: "date", dateFormat: "yyyy-MM-dd HH:mm" },
          { column: "subscriber", attribute: 12, type: "boolean" },
        ],
      },
      { prefix: "crm", event: "crm_sync", visitorId: { column: "id", attribute: 5110 }, columns: [] },
    ],
  };
}

export function sampleUser(email: string, overrides: Partial<UserRecord> = {}): UserRecord {
  return {
    email,
    passwordHash: "$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$aGFzaA",
    passwordSeed: "env:ADMIN_PASSWORD",
    disabled: false,
    grants: [
      { account: "acme", profiles: "*" },
      { account: "globex", profiles: ["main", "dev"] },
    ],
    tokenGeneration: null,
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_000_000,
    ...overrides,
  };
}

export function sampleApiKey(id: string, userEmail: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id,
    userEmail,
    keyHash: "$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$a2V5",
    keySeed: null,
    createdAt: 1_700_000_000_000,
    revokedAt: null,
    ...overrides,
  };
}

/** One record of every kind the stores keep, and settings of every kind the service writes. */
export async function fillEveryStore(stores: Stores): Promise<void> {
  await stores.tenancy.ensureAccount("acme", 1_000);
  await stores.tenancy.putProfile("acme", fullProfileConfig("main"), 1_000);
  await stores.tenancy.putProfile("acme", fullProfileConfig("dev"), 1_000);
  await stores.tenancy.putUser(sampleUser("ops@example.com"));
  await stores.tenancy.putApiKey(sampleApiKey("key-1", "ops@example.com"));
  await stores.sessions.create(
    {
      id: "s1",
      userEmail: "ops@example.com",
      cookieHash: "c".repeat(64),
      utkHash: "u".repeat(64),
      createdAt: 1_000,
      lastSeenAt: 1_000,
    },
    50,
  );
  ensure(await stores.lockouts.compareAndSet("password", "ops@example.com", null, '{"failures":[1000]}', 9_000));
  await stores.events.append([sampleEvent({ visitorId: "v1" }), sampleEvent({ visitorId: "v2" })]);
  await stores.profiles.save(
    "acme",
    "main",
    "v1",
    {
      firstSeenAt: 1_000,
      lastSeenAt: 1_000,
      visitStartedAt: 1_000,
      eventCount: 1,
      visitCount: 1,
      values: {},
      badges: [],
      visitorIds: {},
      lastSeq: 1,
    },
    ["v1", "v2"],
  );
  await stores.profiles.setEngineEnabledSince("acme", "main", "engine-1", 1_000);
  const key = { account: "acme", profile: "main", dlId: "homepage" };
  const change = {
    key,
    seq: 1,
    kind: "upload",
    body: "{}",
    state: "pending",
    acceptedAt: 1_000,
    dueAt: 2_000,
    runAt: 2_000,
    attempts: 0,
    settledAt: null,
  } as const;
  ensure(await stores.dataLayers.append(change, true));
  const details = {
    revision_id: "202501021953",
    account: "acme",
    profile: "main",
    name: "r",
    time_created: "Thu 2025.01.02 19:53 GMT",
    checksums: {},
    comment: "",
    created_by: "a@example.com",
    targets_published: ["prod"],
  };
  ensure(
    await stores.revisions.insert({
      account: "acme",
      profile: "main",
      revisionId: "202501021953",
      createdAt: 1_000,
      seed: null,
      details,
      bundle: new Uint8Array([1, 2]),
    }),
  );
  const transaction = sampleTransaction();
  await stores.privacy.requestDeletion(transaction, auditFor(transaction, "deletion-requested"));
  const file = sampleFileRecord();
  ensure(await stores.files.create(file));
  for (const [name, value] of [
    ["admin.token", "kept-token"],
    ["lease.profiles", "node|1"],
    ["clock.offsetMs", "86400000"],
    ["auth.jwtSecret", "secret"],
    ["profiles.cursor", "2"],
  ]) {
    await stores.settings.set(name as string, value as string);
  }
}

/** A fixture's step that must succeed on an empty store: a failure throws (the test using it fails). */
function ensure(done: boolean): void {
  if (!done) throw new Error("a fixture's write was refused by an empty store");
}
