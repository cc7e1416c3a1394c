import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStores } from "../../adapters/store-memory/memory.stores.ts";
import { serviceConfigWith } from "../../testing/config/apply-config.ts";
import { webDigests } from "../../testing/fakes.ts";
import { openRevisions } from "../../testing/revisions/revisions.ts";
import { managementError } from "../errors/index.ts";
import type { BundleZipper } from "../ports/index.ts";
import type { ConfiguredRevision, ServiceConfig } from "./config.model.ts";
import { applyConfiguredRevisions } from "./configured-revisions.use-cases.ts";

const text = (value: string) => new TextEncoder().encode(value);

/** The same bytes for the same entries, as the port asks; what a bundle holds does not matter here. */
const jsonZipper: BundleZipper = {
  async zip(entries) {
    return text(JSON.stringify(entries.map((entry) => [entry.name, Array.from(entry.bytes)])));
  },
};

async function openService() {
  const { stores, service } = await openRevisions(createMemoryStores(), jsonZipper, webDigests);
  return { stores, revisions: service };
}

/** The loader gives each target of a profile to one configured revision at most. */
function revision(name: string, target: string, profile = "main"): ConfiguredRevision {
  return {
    account: "acme",
    profile,
    name,
    comment: "",
    createdBy: "demo@example.com",
    targets: [target],
    files: [{ name: "utag.js", text: `/* ${name} */\n` }],
  };
}

function config(revisions: readonly ConfiguredRevision[]): ServiceConfig {
  return serviceConfigWith({ revisions });
}

describe("DEC-OPS-03: the configured revisions applied at start", () => {
  it("publishes each one once: applying the same configuration again publishes none", async () => {
    const { revisions } = await openService();
    const configured = config([revision("Demo", "prod"), revision("Second", "qa")]);

    assert.deepEqual(await applyConfiguredRevisions(revisions, configured), {
      ok: true,
      value: { revisionsPublished: 2 },
    });
    assert.deepEqual(await applyConfiguredRevisions(revisions, configured), {
      ok: true,
      value: { revisionsPublished: 0 },
    });
    assert.equal((await revisions.list("acme", "main")).length, 2);
  });

  it("a revision for a profile the store lacks is an error naming its path in the configuration and the file", async () => {
    const { revisions } = await openService();
    const result = await applyConfiguredRevisions(
      revisions,
      config([revision("Demo", "prod"), revision("Elsewhere", "prod", "missing")]),
      "svc.config.yaml",
    );
    if (result.ok) throw new Error("expected an error");
    assert.deepEqual(result.error.problems, [
      { path: "/revisions/1", message: `cannot be published: ${managementError("profileNotFound").message}` },
    ]);
    assert.equal(result.error.format(), "svc.config.yaml: /revisions/1: cannot be published: Profile was not found");
    assert.equal((await revisions.list("acme", "main")).length, 1);
  });

  it("names the configuration as such when no file is given", async () => {
    const { revisions } = await openService();
    const result = await applyConfiguredRevisions(revisions, config([revision("Elsewhere", "prod", "missing")]));
    if (result.ok) throw new Error("expected an error");
    assert.equal(result.error.source, "configuration");
  });
});
