/**
 * Case 5: the hosted data layer API with a v1 session (cookie JSESSIONID + utk): uploads (POST of a new
 * dl_id each, 201 pending) and get status calls (200) per second. The publisher runs in the background as
 * it always does (timing `fast`: a change is published about a second after it is accepted).
 */
import { join } from "node:path";
import { compareWithBare } from "../lib/measure.ts";
import { type CaseReport, comparisonTable, fmt, summaryRowOf } from "../lib/report.ts";
import { type BareProcess, type BenchContext, logIn, startService } from "../lib/servers.ts";
import { luaString, roundRobinLua, type WrkScenario } from "../lib/wrk.ts";

const prefix = "/v1/dle/accounts/acme/profiles/main/datalayers/";
const body = JSON.stringify({
  page: { type: "product", id: "SKU-10001", category: "shoes" },
  campaign: "spring",
  segments: ["returning", "newsletter"],
  price: 19.99,
});

/** Every request a new dl_id: the wrk process id, the thread and a counter (warm-up and run are two processes). */
export function uploadScenario(session: { utk: string; cookie: string }): WrkScenario {
  return {
    name: "datalayer-upload",
    path: `${prefix}bench?utk=${session.utk}`,
    lua: `
local headers = { ["Cookie"] = ${luaString(session.cookie)}, ["Content-Type"] = "application/json" }
local body = ${luaString(body)}
local query = ${luaString(`?utk=${encodeURIComponent(session.utk)}`)}
local base = ${luaString(`${prefix}u`)}
local thread_count = 0
local counter = 0
local tag = ""
setup = function(thread)
  thread_count = thread_count + 1
  thread:set("thread_id", thread_count)
end
init = function(args)
  local f = io.open("/proc/self/stat", "r")
  local pid = f:read("*n")
  f:close()
  tag = pid .. "-" .. (thread_id or 0) .. "-"
end
request = function()
  counter = counter + 1
  return wrk.format("POST", base .. tag .. counter .. query, headers, body)
end
`,
  };
}

export function statusScenario(session: { utk: string; cookie: string }, ids: readonly string[]): WrkScenario {
  const requests = ids.map((id) => ({
    method: "GET",
    path: `${prefix}${id}?utk=${encodeURIComponent(session.utk)}`,
    headers: { Cookie: session.cookie },
  }));
  return { name: "datalayer-status", path: requests[0]!.path, lua: roundRobinLua(requests) };
}

export async function dataLayerCase(ctx: BenchContext, bare: BareProcess): Promise<CaseReport> {
  const title = "5. Data layer API";
  ctx.log(title);
  const service = await startService(ctx, join(ctx.scratch, "datalayer"));
  try {
    const session = await logIn(service.url);
    const upload = await compareWithBare(ctx, service, bare, uploadScenario(session));

    // The data layers the status calls read, made beforehand (pending or completed: both answer 200).
    const ids = Array.from({ length: 200 }, (_, index) => `status-${index}`);
    for (const id of ids) {
      const made = await fetch(`${service.url}${prefix}${id}?utk=${encodeURIComponent(session.utk)}`, {
        method: "POST",
        headers: { cookie: session.cookie, "content-type": "application/json" },
        body,
      });
      if (made.status !== 201) throw new Error(`uploading ${id} answered ${made.status}: ${await made.text()}`);
    }
    const status = await compareWithBare(ctx, service, bare, statusScenario(session, ids));
    const errors = upload.service.wrk.errors.status + status.service.wrk.errors.status;
    return {
      id: "datalayer",
      title,
      outcome: "measured",
      rows: [
        summaryRowOf(`${title}: upload (POST, 201)`, upload),
        summaryRowOf(`${title}: get status (GET, 200)`, status),
      ],
      details: [
        "Uploads: each request a new dl_id with a 150-byte JSON object.",
        "",
        ...comparisonTable(upload),
        "",
        "Get status: round robin over 200 data layers uploaded before the run.",
        "",
        ...comparisonTable(status),
        "",
        `- ${errors === 0 ? "Every answer was 201 (uploads) or 200 (status)." : `${fmt(errors)} answers were 400 or above.`} ` +
          `The session (cookie and utk of POST /v1/login) is checked on every call; the publisher works through the uploads in the background meanwhile.`,
      ],
      targets: [],
    };
  } finally {
    await service.stop();
  }
}
