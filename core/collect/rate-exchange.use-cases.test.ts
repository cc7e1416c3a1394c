/**
 * COL-15, DEC-COL-07 across nodes: two collection services ("nodes") on one memory store, each exchanging its rate
 * counts through the store's port every `collectRateExchangeMs`, flooded on a virtual clock as a round-robin
 * balancer would flood them. What is measured is what the store holds: the events stored per second.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import { profileWith, seedProfile } from "../../testing/fixtures.ts";
import { defaultLimits } from "../config/config.model.ts";
import type { EventLoop, IdSource, IncomingCollectRequest, Logger, Stores } from "../ports/index.ts";
import { ok } from "../result.ts";
import { CollectService } from "./collect.use-cases.ts";

const limit = defaultLimits.collectEventsPerSecond;
const exchangeMs = defaultLimits.collectRateExchangeMs;
const start = Date.UTC(2024, 0, 2, 3, 4, 5);
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

function idsOf(node: string): IdSource {
  return { randomHex: () => node, randomToken: () => "token", randomUnit: () => 0.5 };
}

/** A GET event for acme/main from `address`, as the HTTP adapter hands it over. */
function eventFrom(address: string): IncomingCollectRequest {
  return {
    method: "GET",
    url: "http://collect.test/event?svc_account=acme&svc_profile=main",
    headers: { get: () => null },
    address,
    readBody: async () => ok(new Uint8Array(0)),
  };
}

interface Flood {
  /** Whole seconds of the flood, from its start. */
  readonly seconds: number;
  /** Events each node is offered per millisecond while it is flooded. */
  readonly perMs: number;
  /** When the second node starts being flooded, in ms after the first (0: both at once). */
  readonly secondNodeFrom?: number;
  /** Whether the nodes share the store's counts (false: each has counts of its own, as before they shared them). */
  readonly shared?: boolean;
}

/**
 * Floods two nodes on one store, millisecond by millisecond of the virtual clock, each exchanging every
 * `exchangeMs` (the second half an interval after the first); answers the events stored in each second.
 */
async function floodTwoNodes(flood: Flood): Promise<number[]> {
  const stores: Stores = createMemoryStores();
  await seedProfile(stores, profileWith());
  let now = start;
  const eventLoop: EventLoop = {
    monotonicMs: () => now - start,
    nextTurn: () => Promise.resolve(),
    sleep: () => Promise.resolve(),
  };
  const nodes = ["a0", "b1"].map(
    (node) =>
      new CollectService({
        stores: flood.shared === false ? { ...stores, rateCounts: createMemoryStores().rateCounts } : stores,
        clock: { now: () => now },
        ids: idsOf(node),
        logger: quiet,
        limits: defaultLimits,
        bots: { isBot: () => false },
        eventLoop,
      }),
  );
  // Ten clients: each may hold a fifth of a node's window (fairShare), and a node is sent at least five of them,
  // so the clients' shares never hold a node back.
  const clients = Array.from({ length: 10 }, (_, index) => `192.0.2.${index + 1}`);
  let sent = 0;
  for (let elapsed = 0; elapsed < flood.seconds * 1000; elapsed += 1) {
    now = start + elapsed;
    for (const [index, node] of nodes.entries()) {
      if ((elapsed + (index * exchangeMs) / 2) % exchangeMs === 0) await node.exchangeRates();
      if (index === 1 && elapsed < (flood.secondNodeFrom ?? 0)) continue;
      for (let event = 0; event < flood.perMs; event += 1) {
        // Round robin: every client reaches every node.
        await node.collect(eventFrom(clients[sent % clients.length] as string));
        sent += 1;
      }
    }
  }
  const stored = await stores.events.query({ account: "acme", limit: 100_000 });
  const perSecond = Array.from({ length: flood.seconds }, () => 0);
  for (const event of stored) {
    const second = Math.floor((event.receivedAt - start) / 1000);
    perSecond[second] = (perSecond[second] ?? 0) + 1;
  }
  return perSecond;
}

function assertWithinTenPercent(counts: readonly number[], what: string): void {
  for (const count of counts)
    assert.ok(
      count >= limit * 0.9 && count <= limit * 1.1,
      `${what}: ${counts.join(", ")} events stored per second; each must be within 10% of ${limit}`,
    );
}

describe("the collection rate limit shared by nodes on one store (COL-15, DEC-COL-07)", () => {
  it("[COL-15, DEC-COL-07] two nodes flooded at ten times the limit for 4 s store the limit per second between them, within 10%, once they have exchanged", async () => {
    const perSecond = await floodTwoNodes({ seconds: 4, perMs: 1 });
    // The first second also holds what the nodes admitted before each read the other's counts: a node's count is
    // read two intervals after it was made at most, so at most two intervals of one event a millisecond.
    assert.ok((perSecond[0] as number) <= limit + 2 * exchangeMs, `${perSecond[0]} stored in the first second`);
    assertWithinTenPercent(perSecond.slice(1), "after the first second");
  });

  it("[COL-15, DEC-COL-07] a node that joins a flood in progress takes its part without passing the limit: every second within 10%", async () => {
    const perSecond = await floodTwoNodes({ seconds: 4, perMs: 1, secondNodeFrom: 1_500 });
    assertWithinTenPercent(perSecond, "the second node joining at 1.5 s");
  });

  it("[COL-15, DEC-COL-07] three times the limit offered, in bursts of three events a millisecond: every second after the first within 10%", async () => {
    const perSecond = await floodTwoNodes({ seconds: 3, perMs: 3, secondNodeFrom: 10 });
    assertWithinTenPercent(perSecond.slice(1), "after the first second");
  });

  it("without counts shared each node keeps a limit of its own: the two store twice the limit (what sharing prevents)", async () => {
    const perSecond = await floodTwoNodes({ seconds: 3, perMs: 1, shared: false });
    assert.deepEqual(perSecond, [2 * limit, 2 * limit, 2 * limit]);
  });
});
