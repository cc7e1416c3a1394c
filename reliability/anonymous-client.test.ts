/**
 * What an anonymous client could do to a real server process that it no longer can (SECURITY.md, "Findings of
 * the adversarial probe"): hold a connection open through the admin wait's long timeout, read the admin API's
 * shape from the OpenAPI document, have an answer sniffed as another type, pass a foreign Referer for an
 * allowed one, and read the admin token from the log. Loopback only; every socket is closed at the end.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type SpawnedServer, spawnServer } from "../tools/spawn-server.ts";

const root = resolve(import.meta.dir, "..");
const adminToken = "anonymous-client-test-admin-token";
let server: SpawnedServer;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "svc-hub-anonymous-"));
  server = await spawnServer({ root, dataDir, adminToken });
});
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A raw HTTP/1.1 connection: what it has received so far, and when the server closed it. */
interface RawConnection {
  readonly socket: Socket;
  received(): string;
  readonly closed: Promise<number>;
}

function openRaw(): Promise<RawConnection> {
  const { port, hostname } = new URL(server.url);
  return new Promise((resolvePromise, reject) => {
    let text = "";
    let markClosed: (at: number) => void = () => {};
    const closed = new Promise<number>((resolveClosed) => (markClosed = resolveClosed));
    const socket = connect({ host: hostname, port: Number(port) }, () =>
      resolvePromise({ socket, received: () => text, closed }),
    );
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (text += chunk));
    socket.on("close", () => markClosed(performance.now()));
    socket.once("error", reject);
  });
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await Bun.sleep(20);
  }
}

/** Resolves with the time the connection closed, or null if it is still open after `ms`. */
function closedWithin(connection: RawConnection, ms: number): Promise<number | null> {
  return Promise.race([connection.closed, Bun.sleep(ms).then(() => null)]);
}

describe("a connection's idle timeout", () => {
  it("is not lifted by an anonymous POST /admin/wait, and an authenticated wait restores it once answered", async () => {
    const host = new URL(server.url).host;
    const anonymous = await openRaw();
    const admin = await openRaw();
    try {
      anonymous.socket.write(`POST /admin/wait HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 0\r\n\r\n`);
      const body = JSON.stringify({ timeoutMs: 1000 });
      admin.socket.write(
        `POST /admin/wait HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${adminToken}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      await until(() => anonymous.received().includes("\r\n\r\n") && admin.received().includes("\r\n\r\n"), 5_000);
      expect(anonymous.received()).toStartWith("HTTP/1.1 401");
      expect(admin.received()).toStartWith("HTTP/1.1 200");
      // Then each starts a request and never finishes it: the server must drop them as any idle connection
      // (its idle timer fires 10 to 14 s after the last activity), not keep them for as long as they like.
      const halfSent = performance.now();
      anonymous.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\n`);
      admin.socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\n`);
      const [anonymousClosed, adminClosed] = await Promise.all([
        closedWithin(anonymous, 20_000),
        closedWithin(admin, 20_000),
      ]);
      expect(anonymousClosed === null ? "still open after 20 s" : "closed").toBe("closed");
      expect(adminClosed === null ? "still open after 20 s" : "closed").toBe("closed");
      expect((anonymousClosed ?? 0) - halfSent).toBeGreaterThan(5_000);
    } finally {
      anonymous.socket.destroy();
      admin.socket.destroy();
    }
  }, 40_000);
});

describe("the start banner", () => {
  it("shows only the first 4 characters of an SVC_ADMIN_TOKEN, also with the demo tenants", () => {
    expect(server.output()).toContain(`admin token: ${adminToken.slice(0, 4)}… (from SVC_ADMIN_TOKEN)`);
    expect(server.output()).not.toContain(adminToken);
  });
});

describe("every answer", () => {
  it("carries X-Content-Type-Options: nosniff: successes, refusals, the pixel, served data layers, the OpenAPI document", async () => {
    const requests: Array<[string, RequestInit?]> = [
      ["/healthz"],
      ["/readyz"],
      ["/openapi.json"],
      ["/event?svc_account=acme&svc_event=view"],
      ["/event?svc_account=nobody"],
      ["/event", { method: "POST", headers: { "content-type": "application/json" }, body: '{"svc_account":"acme"}' }],
      [
        "/event",
        { method: "OPTIONS", headers: { origin: "https://shop.example.com", "access-control-request-method": "POST" } },
      ],
      ["/dle/acme/main/none.json"],
      ["/dle/acme/main/none.js"],
      ["/admin/wait", { method: "POST" }],
      [
        "/v1/login/acme",
        { method: "POST", body: new URLSearchParams({ username: "demo@example.com", password: "wrong" }) },
      ],
      ["/v2/auth", { method: "POST", body: new URLSearchParams({ username: "demo@example.com", key: "wrong" }) }],
      ["/personalization/accounts/acme/profiles/main/engines/demo-engine/visitors/v1"],
      ["/no/such/path"],
      ["/healthz", { method: "DELETE" }],
    ];
    for (const [path, init] of requests) {
      const answer = await fetch(`${server.url}${path}`, init);
      await answer.arrayBuffer();
      expect(`${init?.method ?? "GET"} ${path} ${answer.status}: ${answer.headers.get("x-content-type-options")}`).toBe(
        `${init?.method ?? "GET"} ${path} ${answer.status}: nosniff`,
      );
    }
    // A Host the URL cannot be made of is refused before any route (SECURITY.md), with the same headers.
    const raw = await openRaw();
    try {
      raw.socket.write("GET /healthz HTTP/1.1\r\nHost: a/b\r\nConnection: close\r\n\r\n");
      await raw.closed;
      expect(raw.received()).toStartWith("HTTP/1.1 400");
      expect(raw.received().toLowerCase()).toContain("\r\nx-content-type-options: nosniff\r\n");
    } finally {
      raw.socket.destroy();
    }
  });
});

describe("the OpenAPI document", () => {
  it("shows the admin API only to a caller with the admin token", async () => {
    const pathsOf = async (headers: Record<string, string>) => {
      const answer = await fetch(`${server.url}/openapi.json`, { headers });
      expect(answer.status).toBe(200);
      const document = (await answer.json()) as {
        paths: Record<string, unknown>;
        components: { securitySchemes: Record<string, unknown> };
      };
      return { paths: Object.keys(document.paths), schemes: Object.keys(document.components.securitySchemes) };
    };
    for (const headers of [
      {} as Record<string, string>,
      { authorization: "Bearer not-the-admin-token-at-all" },
      { authorization: `Basic ${adminToken}` },
    ]) {
      const anonymous = await pathsOf(headers);
      expect(anonymous.paths).toContain("/v2/auth");
      expect(anonymous.paths.filter((path) => path.startsWith("/admin"))).toEqual([]);
      expect(anonymous.schemes).not.toContain("admin");
    }
    const admin = await pathsOf({ authorization: `Bearer ${adminToken}` });
    expect(admin.paths).toContain("/admin/wait");
    expect(admin.schemes).toContain("admin");
  });
});

describe("the moments API's Referer check", () => {
  it("reads the Referer as a browser does: http://evil.net\\@example.com/ is evil.net, refused 403", async () => {
    const lookup = `${server.url}/personalization/accounts/acme/profiles/main/engines/demo-engine/visitors/referer-probe`;
    const refused = await fetch(lookup, { headers: { referer: "http://evil.net\\@example.com/" } });
    expect(refused.status).toBe(403);
    await refused.arrayBuffer();
    const allowed = await fetch(lookup, { headers: { referer: "http://shop.example.com/" } });
    expect(allowed.status).not.toBe(403);
    await allowed.arrayBuffer();
  });
});

describe("the client address behind a proxy (SVC_TRUSTED_PROXIES)", () => {
  const pixel = (url: string, forwardedFor: string, visitor: string) =>
    // globex: the other tests of this file send to acme, whose window they would share.
    fetch(`${url}/event?svc_account=globex&svc_event=proxy_probe&svc_visitor_id=${visitor}`, {
      headers: { "x-forwarded-for": forwardedFor },
    }).then(async (answer) => {
      await answer.arrayBuffer();
      return answer.status;
    });
  /** The real client sends once, a flood from another forwarded address follows, then the real client again. */
  async function realAfterFlood(url: string): Promise<{ flooded: number; real: number }> {
    expect(await pixel(url, "203.0.113.7", "real")).toBe(200);
    const flood = await Promise.all(
      Array.from({ length: 150 }, (_, index) => pixel(url, `198.51.100.${index % 200}`, `flood-${index}`)),
    );
    return { flooded: flood.filter((status) => status === 200).length, real: await pixel(url, "203.0.113.7", "real") };
  }

  it("is not taken from X-Forwarded-For unless the peer is a trusted proxy: forged addresses buy a flooder nothing", async () => {
    // The server of this file trusts no proxy: every request is 127.0.0.1, one source taking the whole 100.
    const { flooded, real } = await realAfterFlood(server.url);
    expect(flooded).toBe(99);
    expect(real).toBe(429);
  });

  it("behind a trusted proxy is the address the proxy appended, so one flooding client leaves room for another", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-hub-proxy-"));
    const proxied = await spawnServer({ root, dataDir: dir, adminToken, env: { SVC_TRUSTED_PROXIES: "loopback" } });
    try {
      expect(await pixel(proxied.url, "203.0.113.7", "real")).toBe(200);
      // Each flood request names the same client (the proxy appends what it saw, after what the client wrote):
      // one source of two, held to half of the account's 100.
      const flood = await Promise.all(
        Array.from({ length: 150 }, (_, index) => pixel(proxied.url, `192.0.2.${index % 200}, 198.51.100.66`, "flood")),
      );
      expect(flood.filter((status) => status === 200).length).toBe(50);
      expect(await pixel(proxied.url, "203.0.113.7", "real")).toBe(200);
    } finally {
      await proxied.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
