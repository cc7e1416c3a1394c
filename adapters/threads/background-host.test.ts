import { afterEach, describe, expect, it } from "bun:test";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inProcessBase } from "../../harness/target.ts";
import { isStorageUnavailable } from "../http/error-mapping.ts";
import { batchedWriter } from "../runtime/logger.ts";
import { openDemoService } from "../server/demo-service.ts";
import type { Service } from "../server/service.ts";
import { databaseUrlForDataDir } from "../store-libsql/libsql.stores.ts";
import { BackgroundThreadStoppedError, errorFromThread, threadErrorOf } from "./background-host.ts";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function threaded(dir = mkdtempSync(join(tmpdir(), "svc-hub-thread-"))): Promise<Service> {
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const service = await openDemoService({
    store: { kind: "libsql", url: databaseUrlForDataDir(dir) },
    dataDir: dir,
    backgroundThread: true,
  });
  cleanups.push(() => service.close());
  service.start();
  return service;
}

function send(service: Service, path: string, init: RequestInit = {}): Promise<Response> {
  return Promise.resolve(service.app.handle(new Request(`${inProcessBase}${path}`, init)));
}

function admin(service: Service, path: string, init: RequestInit = {}): Promise<Response> {
  return send(service, path, {
    ...init,
    headers: { authorization: `Bearer ${service.deps.adminToken}`, ...(init.headers ?? {}) },
  });
}

describe("background work in its own thread", () => {
  it("[DEC-COL-08] [DEC-PRO-03] collected events are committed through the thread and applied to profiles by /admin/wait", async () => {
    const service = await threaded();
    expect(service.background).toBeNull();
    const visitors = Array.from({ length: 30 }, (_, i) => `thread-visitor-${i}`);
    const answers = await Promise.all(
      visitors.map((visitor) =>
        send(service, `/event?svc_account=acme&svc_profile=main&svc_event=page_view&svc_visitor_id=${visitor}`),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(visitors.map(() => 200));
    // Every 200 is a stored event: read back on the HTTP side's own connection.
    const stored = await service.stores.events.query({ account: "acme", profile: "main", limit: 100 });
    expect(stored.map((event) => event.visitorId).sort()).toEqual([...visitors].sort());
    const wait = await admin(service, "/admin/wait", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(wait.status).toBe(200);
    for (const visitor of visitors) {
      const canonical = await service.stores.profiles.canonicalOf("acme", "main", visitor);
      expect(canonical).toBe(visitor);
      expect((await service.stores.profiles.find("acme", "main", visitor))?.eventCount).toBe(1);
    }
    // A fresh store starts its thread at the first event: on a busy machine, more than the default 5 s in all.
  }, 60_000);

  it("[DEC-OPS-04] on a fresh store, a file dropped in a folder is taken with no request to start the thread", async () => {
    // Issue 41 (idle memory): a fresh store's thread starts at its first work, a dropped file among it.
    const dir = mkdtempSync(join(tmpdir(), "svc-hub-thread-"));
    await threaded(dir);
    const folder = join(dir, "inbox", "acme", "main");
    writeFileSync(join(folder, "dropped.csv"), "visitor_id,email\nv-1,a@example.com\n");
    // Taken: claimed, then imported or refused; waited on, with a bound only for a thread that never starts.
    const limit = Date.now() + 60_000;
    while (readdirSync(folder).includes("dropped.csv") && Date.now() < limit) await Bun.sleep(50);
    expect(readdirSync(folder)).not.toContain("dropped.csv");
  }, 90_000);

  it("once the thread has stopped, appends are refused as storage unavailable (503), not left waiting", async () => {
    const service = await threaded();
    expect((await send(service, "/readyz")).status).toBe(200);
    await service.close();
    const refused = await service.stores.events.append([]).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(BackgroundThreadStoppedError);
    expect(isStorageUnavailable(refused)).toBe(true);
  });

  it("a storage failure in the thread stays storage unavailable on the HTTP side (503); any other error does not", () => {
    // Messages the mapping does not recognise by themselves: only the code, here down a cause chain, can tell.
    const full = Object.assign(new Error("write refused"), { code: "SQLITE_FULL" });
    expect(isStorageUnavailable(errorFromThread(threadErrorOf(full)))).toBe(true);
    const wrapped = new Error("Failed query", { cause: new Error("batch failed", { cause: full }) });
    expect(isStorageUnavailable(errorFromThread(threadErrorOf(wrapped)))).toBe(true);
    const other = errorFromThread(threadErrorOf(new TypeError("not storage")));
    expect(isStorageUnavailable(other)).toBe(false);
    expect(other.name).toBe("TypeError");
    expect(other.message).toBe("not storage");
    expect(threadErrorOf("plain")).toEqual({ name: "Error", message: "plain", unavailable: false });
    // The code crosses too, for the start's one-line reason (main.ts).
    const notDatabase = errorFromThread(
      threadErrorOf(
        new Error("open failed", {
          cause: Object.assign(new Error("file is not a database"), { code: "SQLITE_NOTADB" }),
        }),
      ),
    );
    expect((notDatabase as { code?: string }).code).toBe("SQLITE_NOTADB");
    expect(notDatabase.message).toBe("open failed; caused by Error: file is not a database");
  });
});

describe("batched log output", () => {
  it("lines written in one turn of the event loop go out in one write, in order", async () => {
    const writes: string[] = [];
    const output = batchedWriter((text) => void writes.push(text));
    output.write("a\n");
    output.write("b\n");
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(["a\nb\n"]);
    output.write("c\n");
    output.flush();
    expect(writes).toEqual(["a\nb\n", "c\n"]);
  });

  it("past the size limit the lines go out at once", () => {
    const writes: string[] = [];
    const output = batchedWriter((text) => void writes.push(text), 10);
    output.write("12345\n");
    output.write("67890\n");
    expect(writes).toEqual(["12345\n67890\n"]);
  });
});
