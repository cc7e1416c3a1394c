/**
 * Publishing revisions in tests: in the core with zippers that need no zip library
 * (core/revisions/revisions.use-cases.test.ts, core/config/configured-revisions.use-cases.test.ts), in the
 * adapters with the runtime's real zip (adapters/runtime/revisions-bundle.test.ts).
 */
import type { ProfileConfig } from "../../core/config/index.ts";
import type { BundleZipper, Digests, Stores } from "../../core/ports/index.ts";
import type { RevisionDetails } from "../../core/revisions/index.ts";
import { type PublishedFile, type PublishRequest, RevisionsService } from "../../core/revisions/index.ts";
import { manualClock } from "../fakes.ts";
import { profileWith, seedProfile } from "../fixtures.ts";

/** The minute the tests publish in: Thu 2025.01.02 19:53 GMT. */
export const publishMinute = Date.UTC(2025, 0, 2, 19, 53, 27);

const text = (value: string) => new TextEncoder().encode(value);

/** The files of a revision, out of the bundle's order. */
export function publishedFiles(): PublishedFile[] {
  return [
    { name: "mobile.html", bytes: text("<!DOCTYPE html><title>m</title>\n") },
    { name: "utag.2.js", bytes: text("/* tag 2 */\n") },
    { name: "utag.js", bytes: text("/* loader */\n".repeat(20)) },
    { name: "utag.sync.js", bytes: text("/* sync */\n") },
    { name: "utag.1.js", bytes: text("/* tag 1 */\n") },
  ];
}

/** A publication of publishedFiles to prod, with what `overrides` changes. */
export function publishRequest(overrides: Partial<PublishRequest> = {}): PublishRequest {
  return {
    name: "Full Release",
    comment: "up to date publish",
    createdBy: "user@example.com",
    targets: ["prod"],
    files: publishedFiles(),
    ...overrides,
  };
}

/**
 * acme/main (`config`, nothing configured unless given) on `stores` (a fresh store), and its revisions service
 * (file prefix utag) with `zipper` and `digests`, on a clock standing at `now` until a test moves it.
 */
export async function openRevisions<Z extends BundleZipper>(
  stores: Stores,
  zipper: Z,
  digests: Digests,
  options: { now?: number; config?: ProfileConfig } = {},
) {
  await seedProfile(stores, options.config ?? profileWith());
  const clock = manualClock(options.now ?? publishMinute);
  return {
    stores,
    clock,
    zipper,
    service: new RevisionsService({ stores, clock, digests, zipper, filePrefix: "utag" }),
  };
}

/** Publishes publishRequest (with `overrides`) to acme/main; throws a refusal. */
export async function published(
  service: RevisionsService,
  overrides: Partial<PublishRequest> = {},
): Promise<RevisionDetails> {
  const result = await service.publish("acme", "main", publishRequest(overrides));
  if (!result.ok) throw new Error(result.error.error.message);
  return result.value;
}

/** The bundle of `details` for `target`; throws a refusal. */
export async function bundleOf(
  service: RevisionsService,
  details: RevisionDetails,
  target = "prod",
): Promise<Uint8Array> {
  const bundle = await service.bundle("acme", "main", details.revision_id, target);
  if (!bundle.ok) throw new Error(bundle.error.message);
  return bundle.value;
}
