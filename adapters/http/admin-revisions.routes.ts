import { Elysia, t } from "elysia";
import { type ManagementError, managementError } from "../../core/errors/index.ts";
import { err, ok, type Result } from "../../core/result.ts";
import type { PublishedFile, PublishRequest } from "../../core/revisions/index.ts";
import type { AppDeps } from "./app-deps.ts";
import { openApiSecurity } from "./auth-guards.ts";
import { failWith } from "./error-mapping.ts";
import { binarySchema, ErrorBody, requestBodyOf } from "./openapi-parts.ts";
import { mediaType, readBodyBytes } from "./request-body.ts";
import { detailsView, RevisionDetailsSchema } from "./revisions.routes.ts";

/** The whole multipart body of one publication; member files are limited one by one in the core as well. */
export const maxPublishBodyBytes = 64 * 1024 * 1024;

const textFields = ["name", "comment", "created_by", "targets"] as const;
type TextField = (typeof textFields)[number];

function invalid(parameter: string, problem: string): ManagementError {
  return managementError("invalidParameter", { parameter, problem });
}

/**
 * DEC-OPS-04: the fields of a publication from a multipart/form-data body: `name`, `comment`, `created_by`,
 * `targets` (comma-separated) and one file part per member, whose filename is the member name (checked by
 * the core's naming rule, never used as a path). Unknown or repeated fields are refused, not ignored.
 */
export async function readPublishForm(request: Request): Promise<Result<PublishRequest, ManagementError>> {
  if (mediaType(request.headers.get("content-type")) !== "multipart/form-data")
    return err(invalid("Content-Type", "must be multipart/form-data"));
  const body = await readBodyBytes(request, maxPublishBodyBytes);
  if (!body.ok) return err(invalid("body", `must be at most ${maxPublishBodyBytes} bytes`));
  let form: FormData;
  try {
    form = await new Response(body.value as Uint8Array<ArrayBuffer>, {
      headers: { "content-type": request.headers.get("content-type") ?? "" },
    }).formData();
  } catch {
    return err(invalid("body", "is not a multipart/form-data body"));
  }

  const fields = new Map<TextField, string>();
  const files: PublishedFile[] = [];
  for (const [field, entry] of form.entries()) {
    const value = entry as string | File;
    if (typeof value !== "string") {
      // A part with a filename is a member, whatever its field name; an empty filename reads as "".
      files.push({ name: value.name ?? "", bytes: new Uint8Array(await value.arrayBuffer()) });
      continue;
    }
    if (!(textFields as readonly string[]).includes(field)) {
      return err(
        invalid(
          field,
          "is not a field of this call (name, comment, created_by, targets, and one file part per member)",
        ),
      );
    }
    if (fields.has(field as TextField)) return err(invalid(field, "is given twice"));
    fields.set(field as TextField, value);
  }
  for (const required of ["name", "created_by", "targets"] as const) {
    if (!fields.has(required)) return err(invalid(required, "is required"));
  }
  return ok({
    name: fields.get("name") ?? "",
    comment: fields.get("comment") ?? "",
    createdBy: fields.get("created_by") ?? "",
    targets: (fields.get("targets") ?? "").split(",").map((target) => target.trim()),
    files,
  });
}

/** DEC-OPS-04, DEC-REV-01: publishing a revision through the admin API (behind the admin token). */
export function adminRevisionRoutes(deps: AppDeps) {
  return new Elysia({ name: "admin-revisions", prefix: "/admin/accounts/:account/profiles/:profile/revisions" })
    .guard({ detail: { security: openApiSecurity.admin } })
    .post(
      "",
      async ({ params, request, set }) => {
        const form = await readPublishForm(request);
        if (!form.ok) failWith(form.error);
        const published = await deps.revisions.publish(params.account, params.profile, form.value);
        if (!published.ok) failWith(published.error.error);
        set.status = 201;
        return detailsView(published.value);
      },
      {
        parse: "none",
        params: t.Object({ account: t.String(), profile: t.String() }),
        detail: {
          tags: ["admin: revisions"],
          summary: "Publish a revision",
          description:
            "multipart/form-data: fields name, comment (optional), created_by (an e-mail), targets (comma-separated), and one file part " +
            "per bundle member whose filename is the member name: utag.js (required), utag.<n>.js, utag.sync.js, mobile.html " +
            "(the prefix is the configuration's revisionFilePrefix). revision_id is the publish minute (UTC) or the next free one.",
          requestBody: requestBodyOf(
            {
              "multipart/form-data": {
                type: "object",
                required: ["name", "created_by", "targets"],
                properties: {
                  name: { type: "string" },
                  comment: { type: "string" },
                  created_by: { type: "string", description: "An e-mail address" },
                  targets: { type: "string", description: "Comma-separated targets, such as prod,qa" },
                },
                additionalProperties: {
                  ...binarySchema,
                  description:
                    "A bundle member: a file part whose filename is the member's name (utag.js, utag.1.js, ...)",
                },
              },
            },
            "The revision's fields and its files",
          ),
        },
        response: { 201: RevisionDetailsSchema, 400: ErrorBody, 401: ErrorBody, 404: ErrorBody },
      },
    );
}
