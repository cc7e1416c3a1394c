/**
 * The request journal's helpers (issue 43), as WireMock's find, count and verify: which requests svc-hub was
 * sent that match a pattern, how many, and an assertion whose failure lists the closest requests and what
 * differed.
 *
 *   await verifyRequests(hub, { method: "POST", path: "/event", body: { path: "$.svc_event", equals: "view" } });
 */
import { type AdminClient, answered } from "./admin-call.ts";
import type { paths } from "./openapi.types.ts";

type FindOperation = paths["/admin/requests/find"]["post"];
/** A pattern of requests: every field optional, every one given must hold (POST /admin/requests/find). */
export type RequestPattern = NonNullable<FindOperation["requestBody"]>["content"]["application/json"];
/** What POST /admin/requests/find answers. */
export type RequestSearch = FindOperation["responses"][200]["content"]["application/json"];
/** A request as the journal keeps it: the request and its answer, secrets redacted. */
export type JournaledRequest = RequestSearch["requests"][number];
/** A request that came close to a pattern, and what differed. */
export type RequestNearMiss = RequestSearch["nearMisses"][number];

/** How many requests `verifyRequests` expects: exactly a number, or at least / at most (default: at least 1). */
export type ExpectedCount = number | { readonly atLeast?: number; readonly atMost?: number };

/** The requests that match `pattern`, newest first (at most `limit`, default 100), how many do, and the near misses. */
export async function findRequests(
  hub: AdminClient,
  pattern: RequestPattern = {},
  options: { readonly limit?: number } = {},
): Promise<RequestSearch> {
  const query = options.limit === undefined ? {} : { limit: String(options.limit) };
  return answered(
    "POST /admin/requests/find",
    await hub.admin.POST("/admin/requests/find", {
      body: pattern,
      params: { query },
    }),
  );
}

/** How many requests match `pattern`. */
export async function countRequests(hub: AdminClient, pattern: RequestPattern = {}): Promise<number> {
  const data = answered("POST /admin/requests/count", await hub.admin.POST("/admin/requests/count", { body: pattern }));
  return Number(data.count);
}

/** The failure of `verifyRequests`: its message says what was expected, what was found, and the near misses. */
export class RequestVerificationError extends Error {
  override readonly name = "RequestVerificationError";
  constructor(
    readonly pattern: RequestPattern,
    readonly expected: ExpectedCount,
    readonly count: number,
    readonly nearMisses: readonly RequestNearMiss[],
  ) {
    super(describeFailure(pattern, expected, count, nearMisses));
  }
}

/**
 * Asserts that svc-hub was sent `expected` requests matching `pattern` (default: at least one), as WireMock's
 * verify; throws a RequestVerificationError otherwise. Answers the requests that matched, newest first.
 */
export async function verifyRequests(
  hub: AdminClient,
  pattern: RequestPattern,
  expected: ExpectedCount = { atLeast: 1 },
): Promise<JournaledRequest[]> {
  const search = await findRequests(hub, pattern);
  const count = Number(search.count);
  const { atLeast, atMost } = typeof expected === "number" ? { atLeast: expected, atMost: expected } : expected;
  if ((atLeast !== undefined && count < atLeast) || (atMost !== undefined && count > atMost))
    throw new RequestVerificationError(pattern, expected, count, search.nearMisses);
  return search.requests;
}

function describeExpected(expected: ExpectedCount): string {
  if (typeof expected === "number") return `exactly ${expected}`;
  const { atLeast, atMost } = expected;
  if (atLeast !== undefined && atMost !== undefined) return `from ${atLeast} to ${atMost}`;
  return atMost !== undefined ? `at most ${atMost}` : `at least ${atLeast ?? 0}`;
}

function describeFailure(
  pattern: RequestPattern,
  expected: ExpectedCount,
  count: number,
  nearMisses: readonly RequestNearMiss[],
): string {
  const lines = [
    `Expected ${describeExpected(expected)} request(s) matching ${JSON.stringify(pattern)}, found ${count}.`,
  ];
  if (nearMisses.length > 0) lines.push("The closest requests:");
  for (const [index, { request, differences }] of nearMisses.entries()) {
    lines.push(`  ${index + 1}. #${request.id} ${request.method} ${request.url} -> ${request.status ?? "dropped"}`);
    for (const { field, expected: wanted, actual } of differences)
      lines.push(`       ${field}: expected ${wanted}, was ${actual ?? "(none)"}`);
  }
  if (count === 0 && nearMisses.length === 0) lines.push("The request journal holds no requests.");
  return lines.join("\n");
}
