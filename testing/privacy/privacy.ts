/**
 * The scene of the tests of erasing a visitor, in the core (core/privacy/privacy.use-cases.test.ts, with an
 * eraser of the kept files that records what it is handed) and in the adapters (adapters/fs, with the kept files
 * on disk): ann@example.com, stitched with the customer id C-77 by the events of anon-1.
 */
import assert from "node:assert/strict";
import type { FileDefinition, ProfileConfig } from "../../core/config/index.ts";
import type { CollectedEvent, Stores } from "../../core/ports/index.ts";
import {
  customerIdAttribute,
  emailIdAttribute,
  knownEmailId,
  profileWith,
  seedProfile,
  visitorEvent,
} from "../fixtures.ts";
import { foldAll, foldingWorker } from "../profiles/profiles.ts";

export const annKnownId = knownEmailId("ann@example.com");
export const customerKnownId = "__acme_main__5121_C-77__";

/** acme/main, its visitors known by e-mail address (5120) or customer id (5121), importing `fileDefinitions`. */
export function erasureProfile(fileDefinitions: FileDefinition[] = []): ProfileConfig {
  return profileWith({ visitorIdAttributes: [emailIdAttribute, customerIdAttribute], fileDefinitions });
}

/** Purchases imported by e-mail address: the files whose kept copies an erasure rewrites. */
export const purchasesByEmail: FileDefinition = {
  prefix: "purchases",
  event: "purchase",
  visitorId: { column: "email", attribute: 5120 },
  columns: [{ column: "amount", attribute: 1, type: "number" }],
};

/** anon-1 names ann's e-mail address, then the customer id C-77: the two join one group. */
export function annStitchedWithCustomer(): CollectedEvent[] {
  return [
    visitorEvent("anon-1", { email_address: "ann@example.com" }),
    visitorEvent("anon-1", { customer_id: "C-77" }),
  ];
}

/**
 * `stores` with acme/main as `config` and `events` folded into profiles, among them ann's group stitched with
 * C-77 (annStitchedWithCustomer), whose canonical visitor is ann's known visitor ID.
 */
export async function seedErasureScene(stores: Stores, config: ProfileConfig, events: CollectedEvent[]): Promise<void> {
  await seedProfile(stores, config);
  await stores.events.append(events);
  await foldAll(foldingWorker(stores), 1_000);
  assert.equal(await stores.profiles.canonicalOf("acme", "main", customerKnownId), annKnownId);
  assert.equal(await stores.profiles.canonicalOf("acme", "main", annKnownId), annKnownId);
}
