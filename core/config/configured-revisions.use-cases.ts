/**
 * demo.md, DEC-OPS-03: publishing the configuration's revisions at start, idempotently. Each one is
 * published unless the store already has it (found by the fingerprint of what the configuration says about
 * it), so a restart, or a second node on the same database, does not publish it twice, and editing it in
 * the file publishes a new revision. Nothing is ever unpublished.
 */
import { err, ok, type Result } from "../result.ts";
import type { RevisionsService } from "../revisions/revisions.use-cases.ts";
import type { ServiceConfig } from "./config.model.ts";
import { ConfigError } from "./config-error.ts";

/** What one application of the configured revisions changed. */
export interface ConfiguredRevisionsReport {
  readonly revisionsPublished: number;
}

export async function applyConfiguredRevisions(
  revisions: RevisionsService,
  config: ServiceConfig,
  source = "configuration",
): Promise<Result<ConfiguredRevisionsReport, ConfigError>> {
  let revisionsPublished = 0;
  for (const [index, configured] of config.revisions.entries()) {
    const published = await revisions.publishConfigured(configured);
    // The loader checked names, files and targets already; what is left is a store that lacks the profile.
    if (!published.ok)
      return err(
        new ConfigError(source, [
          { path: `/revisions/${index}`, message: `cannot be published: ${published.error.error.message}` },
        ]),
      );
    if (published.value.created) revisionsPublished += 1;
  }
  return ok({ revisionsPublished });
}
