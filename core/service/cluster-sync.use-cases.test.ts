import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import { countingIds, hostEventLoop } from "../../testing/fakes.ts";
import type { SettingsStore } from "../ports/index.ts";
import { ClusterSync, clusterNodePrefix, clusterPublishedPrefix } from "./cluster-sync.use-cases.ts";

const followEveryMs = 20;

/** A node on `settings`: what it applied of the shared state is counted, and it publishes `published`. */
function nodeOn(settings: SettingsStore, nodeId: string, published: () => string | null = () => null) {
  const node = {
    applied: 0,
    sync: new ClusterSync({
      settings,
      nodeId,
      ids: countingIds(),
      eventLoop: hostEventLoop,
      applyShared: async () => {
        node.applied += 1;
      },
      publish: published,
      followEveryMs,
    }),
    /** Looks every followEveryMs, as the service does, until stopped. */
    looking(): () => void {
      const timer = setInterval(() => void node.sync.follow(), followEveryMs);
      return () => clearInterval(timer);
    },
  };
  return node;
}

describe("ClusterSync: a change to the shared state answers once every node has applied it", () => {
  it("alone on the store, the change answers at once and the node applies it itself", async () => {
    const { settings } = createMemoryStores();
    const a = nodeOn(settings, "a");
    await a.sync.follow();
    const started = performance.now();
    assert.equal(await a.sync.changeShared(async () => "moved"), "moved");
    assert.ok(performance.now() - started < followEveryMs * 2);
    assert.equal(a.applied, 2);
  });

  it("with another node looking, the change answers only after that node applied it", async () => {
    const { settings } = createMemoryStores();
    const [a, b] = [nodeOn(settings, "a"), nodeOn(settings, "b")];
    await a.sync.follow();
    await b.sync.follow();
    const stop = b.looking();
    try {
      let appliedByBAtChange = -1;
      await a.sync.changeShared(async () => {
        appliedByBAtChange = b.applied;
      });
      assert.ok(b.applied > appliedByBAtChange, "b looked after the change and before the answer");
    } finally {
      stop();
    }
  });

  it("a node that stopped looking is given up after three looks, and its records removed", async () => {
    const { settings } = createMemoryStores();
    const [a, gone] = [nodeOn(settings, "a"), nodeOn(settings, "gone", () => '{"accepted":5}')];
    await a.sync.follow();
    await gone.sync.follow();
    assert.deepEqual(await settings.keysStartingWith(clusterPublishedPrefix), [`${clusterPublishedPrefix}gone`]);
    const started = performance.now();
    await a.sync.changeShared(async () => undefined);
    const waited = performance.now() - started;
    assert.ok(waited >= followEveryMs * 3 && waited < 2000, `waited ${waited} ms`);
    assert.deepEqual(await settings.keysStartingWith(clusterNodePrefix), [`${clusterNodePrefix}a`]);
    assert.deepEqual(await settings.keysStartingWith(clusterPublishedPrefix), []);
  });

  it("a node whose record a reset erased is still waited for: the nodes are read before the change", async () => {
    const { settings } = createMemoryStores();
    const [a, b] = [nodeOn(settings, "a"), nodeOn(settings, "b")];
    await a.sync.follow();
    await b.sync.follow();
    const stop = b.looking();
    try {
      let appliedByBAtChange = -1;
      await a.sync.changeShared(async () => {
        await settings.deleteIf(`${clusterNodePrefix}b`, (await settings.get(`${clusterNodePrefix}b`)) ?? "");
        appliedByBAtChange = b.applied;
      });
      assert.ok(b.applied > appliedByBAtChange);
    } finally {
      stop();
    }
  });

  it("published: what each node published at its last look, this node's as it is now", async () => {
    const { settings } = createMemoryStores();
    let ownCount = 1;
    const a = nodeOn(settings, "a", () => `{"accepted":${ownCount}}`);
    const b = nodeOn(settings, "b", () => '{"accepted":7}');
    await a.sync.follow();
    await b.sync.follow();
    ownCount = 2;
    assert.deepEqual(
      Object.fromEntries(await a.sync.published()),
      Object.fromEntries([
        ["a", '{"accepted":2}'],
        ["b", '{"accepted":7}'],
      ]),
    );
  });

  it("alone on the store, a look writes nothing once the node's record is there, and writes it again after a reset", async () => {
    const { settings } = createMemoryStores();
    let writes = 0;
    const counted: SettingsStore = {
      ...settings,
      get: (key) => settings.get(key),
      keysStartingWith: (prefix) => settings.keysStartingWith(prefix),
      deleteIf: (key, value) => settings.deleteIf(key, value),
      set: async (key, value) => {
        writes += 1;
        await settings.set(key, value);
      },
    };
    const a = nodeOn(counted, "a", () => '{"accepted":1}');
    await a.sync.follow();
    await a.sync.follow();
    await a.sync.follow();
    assert.equal(writes, 1);
    assert.deepEqual(await settings.keysStartingWith(clusterPublishedPrefix), []);
    await settings.deleteIf(`${clusterNodePrefix}a`, (await settings.get(`${clusterNodePrefix}a`)) ?? "");
    await a.sync.follow();
    assert.equal(writes, 2);
    // Another node appears: every look writes again, and publishes.
    await nodeOn(settings, "b").sync.follow();
    await a.sync.follow();
    assert.deepEqual(await settings.keysStartingWith(clusterPublishedPrefix), [`${clusterPublishedPrefix}a`]);
  });
});
