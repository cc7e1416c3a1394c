import { Elysia, t } from "elysia";
import { managementError } from "../../core/errors/index.ts";
import { fileStatusView } from "../../core/files/index.ts";
import type { AppDeps } from "./app-deps.ts";
import { openApiSecurity } from "./auth-guards.ts";
import { failWith } from "./error-mapping.ts";
import { FileStatusSchema } from "./files.routes.ts";
import { binarySchema, ErrorBody, requestBodyOf } from "./openapi-parts.ts";
import { capped } from "./request-body.ts";

/**
 * DEC-OPS-04: the body is the raw CSV, so a coded body (gzip, br, ...) is refused before anything is stored
 * or recorded: stored as it came, it would fail its import with a misleading column message. 400 1400
 * naming the header, like the admin API's other refusals of a request's shape.
 */
function refuseCodedBody(contentEncoding: string | null): void {
  const coding = (contentEncoding ?? "").trim().toLowerCase();
  if (coding !== "" && coding !== "identity") {
    failWith(
      managementError("invalidParameter", {
        parameter: "Content-Encoding",
        problem: "only identity is accepted, send the CSV uncompressed",
      }),
    );
  }
}

/**
 * DEC-OPS-04: at most `limits.maxUploadBytes`. A larger declared length is 400 1400 naming the body before
 * anything is stored; a body sent without a length is cut where it passes the limit, which the import records
 * as a download that failed (the name may then be sent again).
 */
function limitedBody(request: Request, maxBytes: number): ReadableStream<Uint8Array> | null {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes)
    failWith(
      managementError("invalidParameter", {
        parameter: "body",
        problem: `larger than ${maxBytes} bytes (limits.maxUploadBytes)`,
      }),
    );
  return request.body ? request.body.pipeThrough(capped(maxBytes)) : null;
}

/**
 * DEC-OPS-04, DEC-FIL-02, DEC-FIL-04: uploading a file to import, behind the admin token. The raw body is
 * the CSV; it is streamed to the data directory (never held whole), and the answer 202 comes once it is
 * stored (DOWNLOADED); processing runs in the background (`POST /admin/wait` drains it).
 */
export function adminFileRoutes(deps: AppDeps) {
  return new Elysia({ name: "admin-files", prefix: "/admin/accounts/:account/profiles/:profile/files" })
    .guard({ detail: { security: openApiSecurity.admin } })
    .post(
      "/:fileName",
      async ({ params, request, set }) => {
        refuseCodedBody(request.headers.get("content-encoding"));
        const body = limitedBody(request, deps.config.limits.maxUploadBytes);
        const received = await deps.fileImports.receive(
          params.account,
          params.profile,
          params.fileName,
          "upload",
          body,
        );
        if (!received.ok) failWith(received.error);
        set.status = 202;
        return fileStatusView(received.value) as never;
      },
      {
        parse: "none",
        params: t.Object({ account: t.String(), profile: t.String(), fileName: t.String() }),
        detail: {
          tags: ["admin: files"],
          summary: "Upload a CSV file to import",
          description:
            "The body is the CSV as it is (any Content-Type), uncompressed: a Content-Encoding other than identity is 400 1400, and so is a Content-Length over limits.maxUploadBytes (4 GiB by default). The file name is <prefix>_<id>.csv, at most 150 characters, of A-Z a-z 0-9 _ - ~ . " +
            "A name already imported into the profile: 409 {message}. The answer is the file's status record (DOWNLOADED, or DOWNLOADING with " +
            "the download failure); the import then runs in the background like a file of the drop folder SVC_DATA_DIR/inbox/{account}/{profile}/.",
          requestBody: requestBodyOf(
            { "text/csv": binarySchema, "application/octet-stream": binarySchema },
            "The CSV file as it is (any Content-Type is taken)",
          ),
        },
        response: {
          202: FileStatusSchema,
          400: ErrorBody,
          401: ErrorBody,
          404: ErrorBody,
          409: t.Object({ message: t.String() }),
        },
      },
    );
}
