/**
 * A host of the core that is not svc-hub's server: the core's use cases given the in-memory store and the few
 * things only a runtime has (its event loop), with no HTTP framework and no database. It configures a tenant,
 * uploads a data layer and publishes it, collects an event, folds it into the visitor's profile and reads the
 * visitor back, as svc-hub's own routes and background workers do.
 *
 * It imports only types, so that it runs wherever it is handed a core: the Deno and Bun test (core/host.test.ts)
 * hand it the TypeScript sources, the Node test (tools/node-host.test.ts) the compiled package.
 */

import type * as Core from "../core/index.ts";
import type { config, moments, ports } from "../core/index.ts";

export interface Host {
  readonly core: typeof Core;
  readonly createStores: () => ports.Stores;
  readonly eventLoop: ports.EventLoop;
}

export interface HostReport {
  readonly uploaded: string;
  readonly published: string;
  readonly served: string | null;
  readonly collected: { readonly stored: boolean; readonly events: number };
  readonly visitor: moments.VisitorData | null;
}

const profile: config.ProfileConfig = {
  name: "main",
  visitorIdAttributes: [],
  attributes: [
    {
      id: 3,
      name: "Favourite colour",
      type: "string",
      pii: false,
      enrichments: [{ when: "any_event", conditions: [], action: { type: "set_from_parameter", parameter: "colour" } }],
    },
  ],
  audiences: [{ id: 1, name: "Everyone", conditions: [] }],
  engines: [
    {
      id: "web",
      name: "Website",
      enabled: true,
      allowedDomains: [],
      keys: "names",
      audiences: [1],
      badges: [],
      attributes: [3],
    },
  ],
  fileDefinitions: [],
};

export async function runHostScenario(host: Host): Promise<HostReport> {
  const { core, eventLoop } = host;
  const stores = host.createStores();
  let now = Date.UTC(2026, 0, 1);
  const clock = { now: () => now };
  let drawn = 0;
  const ids: ports.IdSource = {
    randomHex: (bytes) => (++drawn).toString(16).padStart(bytes * 2, "0"),
    randomToken: (bytes) => (++drawn).toString(36).padStart(bytes, "0"),
    randomUnit: () => 0.5,
  };
  const logger: ports.Logger = { debug() {}, info() {}, warn() {}, error() {} };
  const alwaysHeld: ports.Lease = { acquire: async () => true, release: async () => {}, end: async () => {} };

  await stores.tenancy.ensureAccount("acme", now);
  await stores.tenancy.putProfile("acme", profile, now);
  await core.profiles.syncEngineStates(
    stores,
    {
      timing: "fast",
      limits: core.config.defaultLimits,
      accounts: [{ name: "acme", profiles: [profile] }],
      users: [],
      apiKeys: [],
      revisionFilePrefix: "utag",
      revisions: [],
    },
    now,
  );

  const dataLayers = new core.datalayer.DataLayerService({
    store: stores.dataLayers,
    clock,
    ids,
    timing: core.timing.timingPresets.fast,
    limits: core.config.defaultLimits,
    eventLoop,
  });
  const key = { account: "acme", profile: "main", dlId: "cart" };
  const upload = await dataLayers.upload(key, '{"currency":"EUR"}');
  const publisher = core.datalayer.dataLayerPublisher({ store: stores.dataLayers, logger });
  now = (await publisher.nextDueAt()) ?? now;
  await publisher.runDue(now);
  const status = await dataLayers.status(key);

  const collection = new core.collect.CollectService({
    stores,
    clock,
    ids,
    logger,
    limits: core.config.defaultLimits,
    bots: { isBot: () => false },
    eventLoop,
  });
  const collected = await collection.collect({
    method: "GET",
    url: "/event?svc_account=acme&svc_profile=main&svc_visitor_id=visitor-1&colour=teal",
    headers: { get: () => null },
    address: "192.0.2.1",
    readBody: async () => core.ok(new Uint8Array(0)),
  });
  await collection.settled();

  const profiles = new core.profiles.ProfilesService({
    stores,
    policy: core.profiles.profilePolicyFromLimits(core.config.defaultLimits),
    eventLoop,
  });
  await core.profiles.profileWorker({ stores, profiles, logger, lease: alwaysHeld }).runDue(now);
  const visitor = await new core.moments.MomentsService({ stores }).lookup({
    account: "acme",
    profile: "main",
    engineId: "web",
    visitorId: "visitor-1",
    referer: null,
    cookieHeader: null,
  });

  return {
    uploaded: upload.ok ? upload.value.status : upload.error.message,
    published: status.ok ? status.value.status : status.error.message,
    served: (await dataLayers.served(key))?.body ?? null,
    collected: {
      stored: collected.ok && collected.value.stored,
      events: (await stores.events.query({ limit: 10, order: "asc" })).length,
    },
    visitor: visitor.ok ? visitor.value : null,
  };
}

/** What every host reports: the same answers svc-hub's own routes give. */
export const expectedHostReport: HostReport = {
  uploaded: "pending",
  published: "completed",
  served: '{"currency":"EUR"}',
  collected: { stored: true, events: 1 },
  visitor: {
    audiences: ["Everyone"],
    badges: [],
    metrics: {},
    properties: { "Favourite colour": "teal" },
    flags: {},
    dates: {},
  },
};
