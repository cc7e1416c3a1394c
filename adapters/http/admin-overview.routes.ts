import { Elysia, t } from "elysia";
import { defaultOverviewLimit, maxOverviewLimit, servedPreviewBytes } from "../../core/overview/index.ts";
import { firstQueryValues } from "../runtime/query-values.ts";
import type { AppDeps } from "./app-deps.ts";
import { openApiSecurity } from "./auth-guards.ts";
import { failWith } from "./error-mapping.ts";
import { FileStatusSchema } from "./files.routes.ts";
import { AnswerInteger, answersOf, binarySchema, ErrorBody } from "./openapi-parts.ts";
import { readWholeNumber } from "./query-parameters.ts";
import { detailsView, RevisionDetailsSchema } from "./revisions.routes.ts";

const nullable = <T extends Parameters<typeof t.Union>[0][number]>(schema: T) => t.Union([schema, t.Null()]);
const Time = t.String({ description: "ISO 8601 with milliseconds, UTC (virtual clock)" });
const Ms = AnswerInteger({ description: "The same time in epoch milliseconds" });
const Count = AnswerInteger({ minimum: 0 });

const DataLayerView = t.Object({
  dlId: t.String(),
  exists: t.Boolean({ description: "The newest accepted change is an upload or an update (DEC-DLE-05)" }),
  newest: t.Object(
    {
      seq: AnswerInteger({ description: "1, 2, 3, ... per data layer, in the order the changes were accepted" }),
      kind: t.Union([t.Literal("upload"), t.Literal("update"), t.Literal("delete")]),
      state: t.Union([t.Literal("pending"), t.Literal("completed"), t.Literal("failed")]),
      acceptedAt: Time,
      acceptedAtMs: Ms,
      dueAt: t.String({ description: "When it is published (DEC-DLE-06), ISO 8601" }),
      dueAtMs: Ms,
      settledAt: nullable(Time),
      settledAtMs: nullable(Ms),
      attempts: AnswerInteger({ description: "Failed tries so far" }),
      nextTryAt: nullable(t.String({ description: "A pending change's next try, ISO 8601; null once settled" })),
      nextTryAtMs: nullable(Ms),
    },
    { description: "The newest accepted change" },
  ),
  served: nullable(
    t.Object(
      {
        seq: AnswerInteger({ description: "seq of the change that published it" }),
        publishedAt: Time,
        publishedAtMs: Ms,
        bytes: AnswerInteger({ description: "The size of the served JSON, in UTF-8 bytes" }),
        preview: t.String({ description: `Its first ${servedPreviewBytes} bytes of text, cut between characters` }),
        truncated: t.Boolean({ description: "Whether the JSON is longer than the preview" }),
      },
      { description: "What GET /dle/... serves (DEC-DLE-07); null when nothing is" },
    ),
  ),
  servedUrl: nullable(t.String({ description: "Where it is served as a script; null when nothing is served" })),
  servedJsonUrl: nullable(t.String({ description: "Where it is served as JSON; null when nothing is served" })),
});

const RevisionView = t.Object({
  revisionId: t.String({ description: "YYYYMMDDHHMM (UTC)" }),
  ...RevisionDetailsSchema.properties,
  createdAt: Time,
  createdAtMs: Ms,
  files: t.Array(t.String(), { description: "The files of the bundle, in its order: the members, then manifest.json" }),
  downloadUrl: t.String({ description: "The bundle (zip) of this revision, behind the admin token" }),
});

const FileView = t.Object({
  ...FileStatusSchema.properties,
  name: t.String({ description: "The file name, .csv included (as file.name)" }),
  state: t.String({ description: "The newest status entry's: DOWNLOADING, DOWNLOADED, PROCESSING or PROCESSED" }),
  stateAt: t.String({ description: "When the import entered that state, ISO 8601" }),
  stateAtMs: Ms,
  finished: t.Boolean({ description: "Nothing more will happen to the import: PROCESSED, or stopped on a failure" }),
  failed: t.Boolean({ description: "It stopped on a file-level failure (failureMessage) before PROCESSED" }),
  createdAt: t.String({ description: "When the import was accepted, ISO 8601 (as created_at)" }),
  createdAtMs: Ms,
  rowsRead: nullable(AnswerInteger({ description: "Data rows read so far; null before any is" })),
  counts: nullable(
    t.Object(
      { skipped: Count, failed: Count, succeeded: Count },
      { description: "Row counters (DEC-FIL-03): final once finished, so far while processing; null before any row" },
    ),
  ),
  failureMessage: nullable(
    t.String({ description: "The file's failure, or the last row's failure (FIL-09); null when there is none" }),
  ),
});

const TransactionView = t.Object({
  transactionId: t.String(),
  kind: t.Union([t.Literal("get"), t.Literal("delete")]),
  state: t.Union([t.Literal("PENDING"), t.Literal("SUCCESS"), t.Literal("FAILED")]),
  attributeId: AnswerInteger({ description: "The visitor ID attribute the request named" }),
  attributeName: nullable(t.String({ description: "Its name in the profile; null when the profile no longer has it" })),
  value: nullable(
    t.String({ description: "The attribute value, kept only while a deletion is PENDING (DEC-PRV-04); else null" }),
  ),
  valueHash: t.String({ description: "The keyed SHA-256 of the value, which stays (DEC-PRV-04)" }),
  requestedBy: t.String({ description: "The user whose token made the request" }),
  createdAt: Time,
  createdAtMs: Ms,
  settledAt: nullable(Time),
  settledAtMs: nullable(Ms),
  nextTryAt: nullable(t.String({ description: "A pending deletion's next try, ISO 8601; else null" })),
  nextTryAtMs: nullable(Ms),
  attempts: AnswerInteger({ description: "Failed tries so far" }),
  counts: nullable(
    t.Record(t.String(), Count, {
      description:
        "What a deletion that succeeded removed: visitorIds, events, profiles, eventsRewritten, profilesRewritten; else null",
    }),
  ),
});

const TenantParams = t.Object({ account: t.String(), profile: t.String() });
const LimitQuery = t.Object(
  {
    limit: t.Optional(
      t.String({
        description: `How many: a whole number from 1 to ${maxOverviewLimit} (default ${defaultOverviewLimit})`,
      }),
    ),
  },
  { additionalProperties: true },
);
const tags = ["admin", "console"];
const refusals = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody };
const unknownNames = "An unknown account is 404 1240, an unknown profile 404 1250; a bad limit is 400 1400.";

/** `limit` of the query: its first value, checked (400 1400 naming it), or the default. */
function limitOf(request: Request): number {
  return readWholeNumber("limit", firstQueryValues(request)("limit"), 1, maxOverviewLimit) ?? defaultOverviewLimit;
}

/** A path of the service, each name in it percent-encoded. */
function pathOf(...segments: readonly string[]): string {
  return segments.map((segment, index) => (index === 0 ? segment : encodeURIComponent(segment))).join("/");
}

/**
 * The console's view of a profile (issue 32), part of svc-hub's admin API (behind the admin token, usable by
 * scripts too): its data layers, revisions with their bundles, file imports and privacy transactions. Reads
 * only; every text is answered as stored, for the console to show as text.
 */
export function adminOverviewRoutes(deps: AppDeps) {
  return new Elysia({ name: "admin-overview", prefix: "/admin/accounts/:account/profiles/:profile" })
    .guard({ detail: { security: openApiSecurity.admin } })
    .get(
      "/datalayers",
      async ({ params, request }) => {
        const listed = await deps.overview.dataLayers(params.account, params.profile, limitOf(request));
        if (!listed.ok) failWith(listed.error);
        return {
          dataLayers: listed.value.map((layer) => {
            // DEC-DLE-07: dle-serving.routes.ts serves {dl_id}.js and {dl_id}.json.
            const served = layer.served ? pathOf("/dle", params.account, params.profile, layer.dlId) : null;
            return {
              ...layer,
              servedUrl: served && `${served}.js`,
              servedJsonUrl: served && `${served}.json`,
            };
          }),
        };
      },
      {
        params: TenantParams,
        query: LimitQuery,
        detail: {
          tags,
          summary: "The profile's data layers: each with its newest change and what is served",
          description: `Every data layer that has a change, deleted ones too, by dl_id in code-unit order. ${unknownNames}`,
        },
        response: { 200: t.Object({ dataLayers: t.Array(DataLayerView) }), ...refusals },
      },
    )
    .get(
      "/revisions",
      async ({ params, request }) => {
        const listed = await deps.overview.revisions(params.account, params.profile, limitOf(request));
        if (!listed.ok) failWith(listed.error);
        return {
          revisions: listed.value.map((revision) => ({
            ...detailsView(revision),
            revisionId: revision.revisionId,
            createdAt: revision.createdAt,
            createdAtMs: revision.createdAtMs,
            files: [...revision.files],
            downloadUrl: `${pathOf("/admin/accounts", params.account, "profiles", params.profile, "revisions", revision.revisionId)}/bundle`,
          })),
        };
      },
      {
        params: TenantParams,
        query: LimitQuery,
        detail: {
          tags,
          summary: "The profile's revisions, newest first: their details (as the revisions API) and their files",
          description: unknownNames,
        },
        response: { 200: t.Object({ revisions: t.Array(RevisionView) }), ...refusals },
      },
    )
    .get(
      "/revisions/:revisionId/bundle",
      async ({ params }) => {
        const bundle = await deps.overview.revisionBundle(params.account, params.profile, params.revisionId);
        if (!bundle.ok) failWith(bundle.error);
        // Account and profile names are of A-Z a-z 0-9 _ - ~, a revision id of digits: safe in the header as they are.
        const file = `${params.account}_${params.profile}_${params.revisionId}.zip`;
        return new Response(bundle.value as Uint8Array<ArrayBuffer>, {
          headers: { "content-type": "application/zip", "content-disposition": `attachment; filename="${file}"` },
        });
      },
      {
        params: t.Object({ account: t.String(), profile: t.String(), revisionId: t.String() }),
        detail: {
          tags,
          summary: "The bundle (zip) of one revision, as stored, whatever its targets",
          responses: answersOf({
            200: { description: "The zip, as stored", content: { "application/zip": binarySchema } },
            401: "No admin token",
            404: "An unknown account, profile or revision (1240, 1250, 1260)",
          }),
        },
      },
    )
    .get(
      "/files",
      async ({ params, request }) => {
        const listed = await deps.overview.files(params.account, params.profile, limitOf(request));
        if (!listed.ok) failWith(listed.error);
        // The status history is read-only in the core and an array in the schema, as in files.routes.ts.
        return { files: listed.value as never };
      },
      {
        params: TenantParams,
        query: LimitQuery,
        detail: {
          tags,
          summary:
            "The profile's file imports, newest accepted first: the status record (as the file status API v2) and its state",
          description: unknownNames,
        },
        response: { 200: t.Object({ files: t.Array(FileView) }), ...refusals },
      },
    )
    .get(
      "/privacy/transactions",
      async ({ params, request }) => {
        const listed = await deps.overview.privacyTransactions(params.account, params.profile, limitOf(request));
        if (!listed.ok) failWith(listed.error);
        return { transactions: listed.value };
      },
      {
        params: TenantParams,
        query: LimitQuery,
        detail: {
          tags,
          summary: "The profile's privacy transactions (gets and deletions), newest first",
          description: unknownNames,
        },
        response: { 200: t.Object({ transactions: t.Array(TransactionView) }), ...refusals },
      },
    );
}
