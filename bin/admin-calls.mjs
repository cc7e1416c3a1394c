/**
 * The commands of `svc-hub` that call a running server: `events`, `wait` and `reset` (its admin API), `health`. Plain
 * JavaScript for Node 20 (its fetch); each prints the answer on stdout and ends the process: 0 on a 200, 1 when
 * the server cannot be reached or answers anything else (its message on stderr).
 */

export const defaultUrl = "http://127.0.0.1:8080";
/** The largest page `GET /admin/events` answers. */
const pageSize = 1000;

/** The server and token of `--url` and `--admin-token`, else SVC_URL and SVC_ADMIN_TOKEN. */
export function remoteOptions(values, env = process.env) {
  const url = (values.url ?? (env.SVC_URL || defaultUrl)).replace(/\/+$/, "");
  const adminToken = values["admin-token"] ?? env.SVC_ADMIN_TOKEN ?? "";
  if (adminToken === "") fail(2, "give the admin token with --admin-token or SVC_ADMIN_TOKEN");
  return { url, adminToken };
}

function fail(code, message) {
  process.stderr.write(`svc-hub: ${message}\n`);
  process.exit(code);
}

/** The answer's JSON when it is a 200; else exits 1 with its status and message. */
async function callAdmin(remote, method, path, body) {
  let answer;
  try {
    answer = await fetch(`${remote.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${remote.adminToken}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return fail(1, `cannot reach ${remote.url}${cause}`);
  }
  const text = await answer.text();
  if (answer.status !== 200) {
    let reason = text;
    try {
      const parsed = JSON.parse(text);
      if (typeof parsed.message === "string") reason = `${parsed.returnCode ?? ""} ${parsed.message}`.trim();
    } catch {
      // Not JSON: shown as it is.
    }
    return fail(1, `${method} ${path} answered ${answer.status}: ${reason}`);
  }
  return JSON.parse(text);
}

export async function waitForServer(remote, body) {
  const answer = await callAdmin(remote, "POST", "/admin/wait", body);
  process.stdout.write(`${JSON.stringify(answer)}\n`);
  process.exit(0);
}

export async function resetServer(remote) {
  const answer = await callAdmin(remote, "POST", "/admin/reset");
  process.stdout.write(`${JSON.stringify(answer)}\n`);
  process.exit(0);
}

/**
 * `events --wait`: the matching events once at least `body.min` are stored, one JSON object a line (exit code 0);
 * when the timeout passes first, what was found and exit code 1 with a message saying so.
 */
export async function waitForEvents(remote, body) {
  const answer = await callAdmin(remote, "POST", "/admin/events/wait", { ...body, limit: pageSize });
  for (const event of answer.events) process.stdout.write(`${JSON.stringify(event)}\n`);
  if (!answer.met)
    fail(
      1,
      `timed out after ${body.timeoutMs} ms: ${answer.count} of the ${answer.min} matching events waited for are stored`,
    );
  process.exit(0);
}

/** `events --count`: how many stored events match, as {"count":n}. */
export async function countEvents(remote, body) {
  const answer = await callAdmin(remote, "POST", "/admin/events/count", { ...body, limit: 1 });
  process.stdout.write(`${JSON.stringify({ count: answer.count })}\n`);
  process.exit(0);
}

/**
 * Prints the stored events after `afterSeq`, page by page; with `follow`, then asks again every `intervalMs`
 * for those after the last one printed, until SIGINT or SIGTERM (exit code 0).
 */
export async function printEvents(remote, { filters, afterSeq, follow, intervalMs }) {
  let stopping = false;
  let wake = () => undefined;
  for (const signal of ["SIGINT", "SIGTERM"])
    process.on(signal, () => {
      stopping = true;
      wake();
    });
  let last = afterSeq;
  while (!stopping) {
    const query = new URLSearchParams({ order: "asc", limit: String(pageSize), afterSeq: String(last) });
    for (const [name, value] of Object.entries(filters)) if (value !== undefined) query.set(name, value);
    const page = await callAdmin(remote, "GET", `/admin/events?${query}`);
    for (const event of page.events) process.stdout.write(`${JSON.stringify(event)}\n`);
    last = page.events.at(-1)?.seq ?? last;
    if (page.nextAfterSeq !== null) continue;
    if (!follow) break;
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, intervalMs);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
  process.exit(0);
}

/**
 * `svc-hub health`: exits 0 when the server at `url` answers GET /readyz with 200 within `timeoutMs`, else 1 with
 * its status, or why it could not be reached, on stderr. A container's health check runs it: no curl needed.
 */
export async function checkReady(url, timeoutMs) {
  let answer;
  try {
    answer = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    fail(1, `${url} is not ready: ${error instanceof Error ? error.message : String(error)}`);
  }
  const text = await answer.text().catch(() => "");
  if (answer.status !== 200) fail(1, `${url} is not ready: /readyz answered ${answer.status} ${text}`.trim());
  process.exit(0);
}
