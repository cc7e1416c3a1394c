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

/** `settings` with its writes counted (`counted.writes`). */
function countingWrites(settings: SettingsStore): SettingsStore & { readonly writes: number } {
  let writes = 0;
  return {
    ...settings,
    get: (key) => settings.get(key),
    keysStartingWith: (prefix) => settings.keysStartingWith(prefix),
    deleteIf: (key, value) => settings.deleteIf(key, value),
    set: async (key, value) => {
      writes += 1;
      await settings.set(key, value);
    },
    get writes() {
      return writes;
    },
  };
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
    const counted = countingWrites(settings);
    const a = nodeOn(counted, "a", () => '{"accepted":1}');
    await a.sync.follow();
    await a.sync.follow();
    await a.sync.follow();
    assert.equal(counted.writes, 1);
    assert.deepEqual(await settings.keysStartingWith(clusterPublishedPrefix), []);
    await settings.deleteIf(`${clusterNodePrefix}a`, (await settings.get(`${clusterNodePrefix}a`)) ?? "");
    await a.sync.follow();
    assert.equal(counted.writes, 2);
    // Another node appears: every look writes again, and publishes.
    await nodeOn(settings, "b").sync.follow();
    await a.sync.follow();
    assert.deepEqual(await settings.keysStartingWith(clusterPublishedPrefix), [`${clusterPublishedPrefix}a`]);
  });

  it("the record a stopped node left (a restart, a kill) is removed once it has not moved for twenty looks, and then the node alone writes nothing", async () => {
    const { settings } = createMemoryStores();
    // The process before a restart: it looked, then stopped without leaving.
    await nodeOn(settings, "before-restart", () => '{"accepted":3}').sync.follow();
    await nodeOn(settings, "other-before-restart").sync.follow();
    const counted = countingWrites(settings);
    const a = nodeOn(counted, "a", () => '{"accepted":1}');
    await a.sync.follow();
    assert.ok(counted.writes > 0, "not alone yet: the look writes");
    const stop = a.looking();
    try {
      const started = performance.now();
      while ((await settings.keysStartingWith(clusterNodePrefix)).length > 1) {
        assert.ok(performance.now() - started < 5000, "the stopped nodes' records are still there");
        await new Promise((resolve) => setTimeout(resolve, followEveryMs));
      }
      assert.ok(
        performance.now() - started >= followEveryMs * 15,
        "not removed before its record stopped moving long enough",
      );
      assert.deepEqual(await settings.keysStartingWith(clusterPublishedPrefix), [`${clusterPublishedPrefix}a`]);
      await new Promise((resolve) => setTimeout(resolve, followEveryMs * 3));
      const writesAlone = counted.writes;
      await new Promise((resolve) => setTimeout(resolve, followEveryMs * 5));
      assert.equal(counted.writes, writesAlone, "alone again: its looks write nothing");
    } finally {
      stop();
    }
    assert.deepEqual(
      (await settings.keysStartingWith(clusterPublishedPrefix)).filter((key) => !key.endsWith(".a")),
      [],
      "what the stopped node published went with it",
    );
  });

  it("nodes that keep looking are never taken as stopped by each other's looks", async () => {
    const { settings } = createMemoryStores();
    const [a, b] = [nodeOn(settings, "a"), nodeOn(settings, "b")];
    await a.sync.follow();
    await b.sync.follow();
    const stops = [a.looking(), b.looking()];
    try {
      await new Promise((resolve) => setTimeout(resolve, followEveryMs * 30));
      assert.deepEqual(await settings.keysStartingWith(clusterNodePrefix), [
        `${clusterNodePrefix}a`,
        `${clusterNodePrefix}b`,
      ]);
    } finally {
      for (const stop of stops) stop();
    }
  });

  it("a node that leaves removes its records, so the next process on the store is alone at once", async () => {
    const { settings } = createMemoryStores();
    const [a, b] = [nodeOn(settings, "a", () => '{"accepted":1}'), nodeOn(settings, "b", () => '{"accepted":2}')];
    await a.sync.follow();
    await b.sync.follow();
    await a.sync.follow();
    await a.sync.leave();
    assert.deepEqual(await settings.keysStartingWith(clusterNodePrefix), [`${clusterNodePrefix}b`]);
    assert.deepEqual(await settings.keysStartingWith(clusterPublishedPrefix), [`${clusterPublishedPrefix}b`]);
  });
});
