import { Elysia, type Static, t } from "elysia";
import type { RevisionDetails } from "../../core/revisions/index.ts";
import type { AppDeps } from "./app-deps.ts";
import { openApiSecurity, requireAccess, sessionGuard } from "./auth-guards.ts";
import { failWith } from "./error-mapping.ts";
import { answersOf, binarySchema, ErrorBody } from "./openapi-parts.ts";

const TenantParams = t.Object({ account: t.String(), profile: t.String() });
const tags = ["revisions (v1)"];

/** REV-03: the revision object. */
export const RevisionDetailsSchema = t.Object({
  revision_id: t.String({ description: "YYYYMMDDHHMM (UTC)" }),
  account: t.String(),
  profile: t.String(),
  name: t.String(),
  time_created: t.String({ description: "<weekday> YYYY.MM.DD HH:MM GMT, e.g. Tue 2017.12.13 19:54 GMT" }),
  checksums: t.Record(t.String(), t.Record(t.String(), t.String()), {
    description: "target -> file name -> SHA-256 hex",
  }),
  comment: t.String(),
  created_by: t.String(),
  targets_published: t.Array(t.String()),
});

/** The details as JSON answers carry them (the schema's arrays are mutable; the core's are read-only). */
export function detailsView(details: RevisionDetails): Static<typeof RevisionDetailsSchema> {
  return { ...details, targets_published: [...details.targets_published] };
}

/**
 * The revisions API (v1): list, details and bundle (REV-01..12, DEC-REV-01..03), behind the session guard
 * (cookie JSESSIONID + utk); unknown names 404 1240 / 1250, no grant 401 1469.
 */
export function revisionRoutes(deps: AppDeps) {
  return new Elysia({ name: "revisions", prefix: "/v1/accounts/:account/:profile/revisions" })
    .guard({ detail: { security: openApiSecurity.session } })
    .use(sessionGuard(deps.auth))
    .get(
      "",
      async ({ params, principal }) => {
        await requireAccess(deps.auth, principal, params.account, params.profile);
        return deps.revisions.list(params.account, params.profile);
      },
      {
        params: TenantParams,
        detail: { tags, summary: "The revision ids of the profile, newest first" },
        response: { 200: t.Array(t.String()), 401: ErrorBody, 404: ErrorBody },
      },
    )
    .get(
      "/:revisionId/details",
      async ({ params, principal }) => {
        await requireAccess(deps.auth, principal, params.account, params.profile);
        const details = await deps.revisions.details(params.account, params.profile, params.revisionId);
        if (!details.ok) failWith(details.error);
        return detailsView(details.value);
      },
      {
        params: t.Object({ account: t.String(), profile: t.String(), revisionId: t.String() }),
        detail: { tags, summary: "The details of one revision (unknown or malformed id: 404 1260)" },
        response: { 200: RevisionDetailsSchema, 401: ErrorBody, 404: ErrorBody },
      },
    )
    .get(
      "/:revisionId/:target",
      async ({ params, principal }) => {
        await requireAccess(deps.auth, principal, params.account, params.profile);
        const bundle = await deps.revisions.bundle(params.account, params.profile, params.revisionId, params.target);
        if (!bundle.ok) failWith(bundle.error);
        // Served as stored: the bytes the checksums were computed over (REV-08, DEC-REV-02).
        const file = `${params.account}_${params.profile}_${params.revisionId}_${params.target}.zip`;
        return new Response(bundle.value as Uint8Array<ArrayBuffer>, {
          headers: { "content-type": "application/zip", "content-disposition": `attachment; filename="${file}"` },
        });
      },
      {
        params: t.Object({ account: t.String(), profile: t.String(), revisionId: t.String(), target: t.String() }),
        detail: {
          tags,
          summary: "The bundle (zip) of the newest revision of a target",
          description:
            "application/zip holding <prefix>.js, <prefix>.<n>.js, optional <prefix>.sync.js and mobile.html, and manifest.json. " +
            "A target not in targets_published or an unknown id: 404 1260; a revision that is not the newest of the target: 400 1270.",
          responses: answersOf({
            200: { description: "The zip, as stored", content: { "application/zip": binarySchema } },
            400: "Not the newest revision of the target (1270)",
            401: "No session, a bad utk, or no grant on the profile",
            404: "An unknown account, profile, revision or target (1240, 1250, 1260)",
          }),
        },
      },
    );
}
