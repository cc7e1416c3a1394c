/**
 * svc-hub as a real process for the browser suite, and what the suite asks it outside the browser: the admin
 * API (stored events, wait, virtual clock) and the hosted data layer API v1 (to publish a data layer).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type SpawnedServer, spawnServer } from "../tools/spawn-server.ts";
import { waitLimitMs } from "./limits.ts";

/** An event as GET /admin/events shows it. */
export interface StoredEvent {
  readonly visitorId: string;
  readonly visitorIdSource: string;
  readonly thirdPartyVisitorId: string | null;
  readonly event: string | null;
  readonly traceId: string | null;
  readonly data: Record<string, unknown>;
}

export interface Service {
  /** The root of every API, without a trailing slash: `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The admin token the server was started with. */
  readonly adminToken: string;
  /** The events stored with this svc_trace_id. */
  events(traceId: string): Promise<StoredEvent[]>;
  /**
   * The one event stored with this svc_trace_id, once it is there (a beacon arrives after the page moved on),
   * asked for every 50 ms for at most `timeoutMs` (default: waitLimitMs).
   */
  eventually(traceId: string, timeoutMs?: number): Promise<StoredEvent>;
  /** POST /admin/wait: every due background job (profiles, publishing) is done. */
  waitForBackgroundWork(): Promise<void>;
  advanceClock(by: string): Promise<void>;
  /**
   * Uploads (POST), replaces (PUT) or deletes a data layer of acme/main and has the change published: the wait
   * moves the virtual clock to its publishing time (whatever the timing preset) and runs it.
   */
  publishDataLayer(dlId: string, body: unknown, method: "POST" | "PUT" | "DELETE"): Promise<void>;
  stop(): Promise<number>;
}

const demoUser = { username: "demo@example.com", password: "demo-password-1" };

async function expectOk(answer: Response, what: string): Promise<Response> {
  if (!answer.ok) throw new Error(`${what}: ${answer.status} ${await answer.text()}`);
  return answer;
}

/** How the server is started: its timing preset (DEC-OPS-02; default `fast`, as `npm start`). */
export interface ServiceOptions {
  /**
   * `realistic` holds background work for minutes on the virtual clock (a data layer upload 5 to 10 minutes), so a
   * test sees it pending however slow the machine, and it completes only once the test moves the clock.
   */
  readonly timing?: "instant" | "fast" | "realistic";
  /** The JSON text of the configuration file it reads (SVC_CONFIG); default: the demo's. */
  readonly configText?: string;
}

/** Writes a configuration file into the data directory (removed with it) and answers its path. */
function configFileIn(dataDir: string, text: string): string {
  const path = join(dataDir, "svc.config.json");
  writeFileSync(path, text);
  return path;
}

export async function startService(
  options: ServiceOptions = {},
  root = resolve(import.meta.dir, ".."),
): Promise<Service> {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-hub-e2e-"));
  const adminToken = `e2e-${crypto.randomUUID()}`;
  const outputDir = join(root, "test-output", "e2e");
  mkdirSync(outputDir, { recursive: true });
  let server: SpawnedServer;
  try {
    server = await spawnServer({
      root,
      dataDir,
      adminToken,
      logFile: join(outputDir, "server.log"),
      env: {
        ...(options.timing ? { SVC_TIMING: options.timing } : {}),
        ...(options.configText === undefined ? {} : { SVC_CONFIG: configFileIn(dataDir, options.configText) }),
      },
    });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const url = server.url.replace(/\/$/, "");
  const admin = { authorization: `Bearer ${adminToken}` };
  const adminPost = async (path: string, body: unknown) =>
    expectOk(
      await fetch(`${url}${path}`, {
        method: "POST",
        headers: { ...admin, "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
      `POST ${path}`,
    );

  async function events(traceId: string): Promise<StoredEvent[]> {
    const answer = await expectOk(
      await fetch(`${url}/admin/events?traceId=${encodeURIComponent(traceId)}&limit=1000`, { headers: admin }),
      "GET /admin/events",
    );
    return ((await answer.json()) as { events: StoredEvent[] }).events;
  }

  async function login(): Promise<{ cookie: string; utk: string }> {
    const answer = await expectOk(
      await fetch(`${url}/v1/login`, { method: "POST", body: new URLSearchParams(demoUser) }),
      "POST /v1/login",
    );
    const session = answer.headers.getSetCookie().find((cookie) => cookie.startsWith("JSESSIONID="));
    if (!session) throw new Error("POST /v1/login set no JSESSIONID cookie");
    return { cookie: session.split(";")[0] as string, utk: ((await answer.json()) as { utk: string }).utk };
  }

  return {
    url,
    adminToken,
    events,
    async eventually(traceId, timeoutMs = waitLimitMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = await events(traceId);
        if (found.length > 1)
          throw new Error(`${found.length} events stored with svc_trace_id ${traceId}, expected one`);
        if (found[0]) return found[0];
        if (Date.now() > deadline) throw new Error(`no event with svc_trace_id ${traceId} within ${timeoutMs} ms`);
        await Bun.sleep(50);
      }
    },
    async waitForBackgroundWork() {
      await adminPost("/admin/wait", {});
    },
    async advanceClock(by) {
      await adminPost("/admin/clock/advance", { by });
    },
    async publishDataLayer(dlId, body, method) {
      const session = await login();
      const path = `${url}/v1/dle/accounts/acme/profiles/main/datalayers/${dlId}?utk=${encodeURIComponent(session.utk)}`;
      const headers = { cookie: session.cookie, "content-type": "application/json" };
      await expectOk(
        await fetch(path, { method, headers, ...(method === "DELETE" ? {} : { body: JSON.stringify(body) }) }),
        `${method} data layer ${dlId}`,
      );
      // The wait moves the virtual clock to the change's publishing time and runs the publisher (at most 2 h: the
      // longest delay of any timing is 1 h): no waiting in real time, and no race with the publisher.
      await adminPost("/admin/wait", { advanceClock: "2h" });
      const status = await expectOk(
        await fetch(path, { headers: { cookie: session.cookie } }),
        `status of data layer ${dlId}`,
      );
      const { status: state } = (await status.json()) as { status: string };
      if (state !== "completed")
        throw new Error(`data layer ${dlId} is ${state} after the publishing delay, expected completed`);
    },
    async stop() {
      try {
        return await server.stop();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}
