/**
 * What the tests of the profile folding share with those that need visitors folded first (erasing a visitor,
 * the deletion worker), in the core and in the adapters (the libSQL store, the kept files on disk).
 */
import type { BackgroundWorker, Lease, Logger, Stores } from "../../core/ports/index.ts";
import {
  type ProfilePolicy,
  ProfilesService,
  profilePolicyFromLimits,
  profileWorker,
} from "../../core/profiles/index.ts";
import { alwaysHeldLease, hostEventLoop, recordingLogger } from "../fakes.ts";
import { customerIdAttribute, emailIdAttribute, eventCountAttribute, profileWith } from "../fixtures.ts";

/** acme/main with visitors known by e-mail address (5120) or customer id (5121), and their events counted (5201). */
export const stitchingProfile = profileWith({
  visitorIdAttributes: [emailIdAttribute, customerIdAttribute],
  attributes: [eventCountAttribute],
});

/** The visits of demo.md: one ends after 30 idle minutes. */
export const policy: ProfilePolicy = profilePolicyFromLimits({ visitTimeoutMinutes: 30 });

/**
 * The profile worker of `stores`: by default a node alone on its store (it always holds the lease), folding with
 * a service of its own on the host's event loop.
 */
export function foldingWorker(
  stores: Stores,
  options: { profiles?: ProfilesService; logger?: Logger; lease?: Lease; batchSize?: number } = {},
): BackgroundWorker {
  return profileWorker({
    stores,
    profiles: options.profiles ?? new ProfilesService({ stores, policy, eventLoop: hostEventLoop }),
    logger: options.logger ?? recordingLogger(),
    lease: options.lease ?? alwaysHeldLease,
    ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
  });
}

/** Runs the worker at `now` until it finds no event left to fold. */
export async function foldAll(worker: BackgroundWorker, now = 0): Promise<void> {
  while ((await worker.runDue(now)) > 0);
}
