import { Elysia, t } from "elysia";
import type { FileQueryParameters } from "../../core/files/index.ts";
import type { AppDeps } from "./app-deps.ts";
import { bearerGuard, openApiSecurity, requireAccess, sessionGuard } from "./auth-guards.ts";
import { failWith } from "./error-mapping.ts";
import { AnswerInteger, ErrorBody } from "./openapi-parts.ts";

const DateView = t.Object({ $date: t.String({ description: "ISO 8601 with milliseconds, UTC" }) });

/** FIL-06, FIL-07, DEC-FIL-03, DEC-FIL-05: the file status record. */
export const FileStatusSchema = t.Object({
  _id: t.Object({ $oid: t.String({ description: "24 hex digits" }) }),
  account: t.String(),
  profile: t.String(),
  created_at: DateView,
  node_id: t.String(),
  file: t.Object({
    name: t.String(),
    size: AnswerInteger(),
    checksum: t.String({ description: "MD5 hex of the bytes" }),
    source: t.Object({ type: t.String({ description: "file (drop folder) or upload (admin API)" }), host: t.String() }),
    line_count: AnswerInteger({ description: "Lines of the file, the header included" }),
  }),
  status: t.Array(
    t.Object({
      state: t.String({ description: "DOWNLOADING, DOWNLOADED, PROCESSING or PROCESSED" }),
      timestamp: DateView,
      lines_skipped: t.Optional(AnswerInteger()),
      lines_failed_processing: t.Optional(AnswerInteger()),
      lines_successfully_processed: t.Optional(AnswerInteger()),
      last_failure: t.Optional(t.String({ description: "A message of the file failure catalogue" })),
    }),
  ),
});

const TenantParams = t.Object({ account: t.String(), profile: t.String() });
const QueryParams = t.Object(
  {
    filePrefix: t.Optional(
      t.String({ description: "The prefix group: files named <prefix>_<id>.csv (at most 150 characters)" }),
    ),
    startDate: t.Optional(
      t.String({ description: "YYYY-MM-DDTHH:MMZ; also ±hhmm / ±hh:mm offsets, seconds and milliseconds (inclusive)" }),
    ),
    endDate: t.Optional(t.String({ description: "As startDate, not before it (inclusive)" })),
  },
  { additionalProperties: true },
);

/** The parameters as sent; one given twice keeps its first value, as everywhere in the service. */
function queryOf(request: Request): FileQueryParameters {
  const search = new URL(request.url).searchParams;
  const read = (name: string) => search.get(name) ?? undefined;
  return { filePrefix: read("filePrefix"), startDate: read("startDate"), endDate: read("endDate") };
}

const countDescription =
  "Files of one prefix whose import was accepted between startDate and endDate, both inclusive (FIL-03, FIL-12, DEC-FIL-06). " +
  "LIM-04: when the count exceeds 50, narrow the date range before searching; the count itself is always exact.";

/**
 * The file status API (FIL-01..12, FIL-ERR-01..07, DEC-FIL-03..06): count, search and single file, the same
 * operations behind the v1 session guard (cookie JSESSIONID + utk) and the v2 bearer guard. Unknown names
 * 404 1240 / 1250, no grant 401 1469, then the parameters (400 1400 naming the bad one).
 */
function fileStatusRoutes(deps: AppDeps, version: "v1" | "v2") {
  const tags = [`file status (${version})`];
  const guard = version === "v1" ? sessionGuard(deps.auth) : bearerGuard(deps.auth);
  return new Elysia({
    name: `files-${version}`,
    prefix: `/${version}/omnichannel/accounts/:account/profiles/:profile/files`,
  })
    .guard({ detail: { security: openApiSecurity[version === "v1" ? "session" : "bearer"] } })
    .use(guard)
    .get(
      "/count",
      async ({ params, principal, request }) => {
        await requireAccess(deps.auth, principal, params.account, params.profile);
        const counted = await deps.fileStatus.count(params.account, params.profile, queryOf(request));
        if (!counted.ok) failWith(counted.error);
        return { count: counted.value };
      },
      {
        params: TenantParams,
        query: QueryParams,
        detail: {
          tags,
          summary: "How many files of one prefix were imported in a date range",
          description: countDescription,
        },
        response: { 200: t.Object({ count: AnswerInteger() }), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    )
    .get(
      "/search",
      async ({ params, principal, request }) => {
        await requireAccess(deps.auth, principal, params.account, params.profile);
        const found = await deps.fileStatus.search(params.account, params.profile, queryOf(request));
        if (!found.ok) failWith(found.error);
        return found.value as never;
      },
      {
        params: TenantParams,
        query: QueryParams,
        detail: {
          tags,
          summary: "The status records of the files of one prefix imported in a date range, oldest first",
          description: countDescription,
        },
        response: { 200: t.Array(FileStatusSchema), 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    )
    .get(
      "/:fileName",
      async ({ params, principal }) => {
        await requireAccess(deps.auth, principal, params.account, params.profile);
        const found = await deps.fileStatus.find(params.account, params.profile, params.fileName);
        if (!found.ok) failWith(found.error);
        return found.value as never;
      },
      {
        params: t.Object({ account: t.String(), profile: t.String(), fileName: t.String() }),
        detail: {
          tags,
          summary: "The status record of one file (name with .csv, at most 150 characters; unknown: 404 1404)",
        },
        response: { 200: FileStatusSchema, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    );
}

/** FIL-01: v1, session auth. */
export function fileStatusV1Routes(deps: AppDeps) {
  return fileStatusRoutes(deps, "v1");
}

/** FIL-02, FIL-12: v2, bearer auth, no utk. */
export function fileStatusV2Routes(deps: AppDeps) {
  return fileStatusRoutes(deps, "v2");
}
