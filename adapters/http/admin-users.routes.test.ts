import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import {
  type InProcessService,
  openInProcessTarget,
} from "../../conformance/implementations/svc-hub/in-process-target.ts";
import { inProcessBase } from "../../harness/target.ts";

let opened: InProcessService;
beforeAll(async () => {
  opened = await openInProcessTarget();
});
afterAll(() => opened.close());

function call(method: string, path: string, body?: unknown, admin = true): Promise<Response> {
  const headers: Record<string, string> = admin ? { authorization: `Bearer ${opened.service.deps.adminToken}` } : {};
  if (body !== undefined) headers["content-type"] = "application/json";
  return opened.service.app.handle(
    new Request(`${inProcessBase}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
}

function login(username: string, password: string): Promise<Response> {
  return opened.service.app.handle(
    new Request(`${inProcessBase}/v1/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ username, password }),
    }),
  );
}

describe("admin API: users and keys", () => {
  it("refuses calls without the admin token", async () => {
    expect((await call("GET", "/admin/users", undefined, false)).status).toBe(401);
  });

  it("creates a user, lists it without any hash, and refuses a duplicate", async () => {
    const created = await call("POST", "/admin/users", {
      email: "Ops@Example.com",
      password: "a-long-password",
      grants: [{ account: "acme", profiles: ["main"] }],
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({
      email: "Ops@Example.com",
      disabled: false,
      grants: [{ account: "acme", profiles: ["main"] }],
    });
    const listed = await (await call("GET", "/admin/users")).text();
    expect(listed).toContain("Ops@Example.com");
    expect(listed).not.toContain("argon2");
    const again = await call("POST", "/admin/users", { email: "ops@example.com", password: "a-long-password" });
    expect(again.status).toBe(400);
    expect(((await again.json()) as { message: string }).message).toContain("exists already");
  });

  it("names the bad field of a user it refuses", async () => {
    const cases: Array<[unknown, string]> = [
      [{ email: "not-an-email", password: "a-long-password" }, "email"],
      // A NUL cut the address short in the store (a reset then reached another row); a zero-width space reads the same as none.
      [{ email: "n\u0000m@example.com", password: "a-long-password" }, "email"],
      [{ email: "a\u200bb@example.com", password: "a-long-password" }, "email"],
      [{ email: "short@example.com", password: "short" }, "password"],
      [{ email: "emoji@example.com", password: "😀😀😀😀" }, "password"],
      [
        { email: "grant@example.com", password: "a-long-password", grants: [{ account: "initech", profiles: "*" }] },
        "grants/0/account",
      ],
      [
        { email: "grant@example.com", password: "a-long-password", grants: [{ account: "acme", profiles: ["nope"] }] },
        "grants/0/profiles",
      ],
    ];
    for (const [body, field] of cases) {
      const answer = await call("POST", "/admin/users", body);
      expect(answer.status).toBe(400);
      const error = (await answer.json()) as { returnCode: number; message: string };
      expect(error.returnCode).toBe(1400);
      expect(error.message).toContain(`Invalid ${field}:`);
    }
  });

  it("takes a password typed in another Unicode form as the same password (DEC-SES-05, NFC)", async () => {
    const created = await call("POST", "/admin/users", {
      email: "accent@example.com",
      password: "cafe\u0301-password",
      grants: [{ account: "acme", profiles: "*" }],
    });
    expect(created.status).toBe(201);
    expect((await login("accent@example.com", "caf\u00e9-password")).status).toBe(200);
    expect((await login("accent@example.com", "cafe-password")).status).toBe(401);
    const composed = await call("POST", "/admin/users", {
      email: "accent2@example.com",
      password: "caf\u00e9-password",
      grants: [{ account: "acme", profiles: "*" }],
    });
    expect(composed.status).toBe(201);
    expect((await login("accent2@example.com", "cafe\u0301-password")).status).toBe(200);
  });

  it("resets a password: the old one stops working, the new one works", async () => {
    await call("POST", "/admin/users", {
      email: "reset@example.com",
      password: "first-password",
      grants: [{ account: "acme", profiles: "*" }],
    });
    expect((await login("reset@example.com", "first-password")).status).toBe(200);
    expect((await call("PUT", "/admin/users/reset@example.com/password", { password: "second-password" })).status).toBe(
      200,
    );
    expect((await login("reset@example.com", "first-password")).status).toBe(401);
    expect((await login("reset@example.com", "second-password")).status).toBe(200);
  });

  it("[DEC-SES-01] a locked name is unlocked by the admin API, and by a password reset", async () => {
    await call("POST", "/admin/users", {
      email: "locked@example.com",
      password: "right-password",
      grants: [{ account: "acme", profiles: "*" }],
    });
    const code = async (password: string, name = "locked@example.com") =>
      ((await (await login(name, password)).json()) as { returnCode?: number }).returnCode ?? 200;
    const lock = async () => {
      for (let attempt = 0; attempt < 5; attempt += 1) await code("wrong-password");
      expect(await code("right-password", " LOCKED@example.com")).toBe(1402);
    };
    await lock();
    const unlocked = await call("DELETE", "/admin/users/locked@example.com/lockout");
    expect(unlocked.status).toBe(200);
    expect(await code("right-password")).toBe(200);
    await lock();
    expect((await call("PUT", "/admin/users/locked@example.com/password", { password: "new-password-1" })).status).toBe(
      200,
    );
    expect(await code("new-password-1")).toBe(200);
    expect((await call("DELETE", "/admin/users/nobody@example.com/lockout")).status).toBe(404);
  });

  it("replaces grants: without any, login is 1469", async () => {
    await call("POST", "/admin/users", {
      email: "grants@example.com",
      password: "a-long-password",
      grants: [{ account: "acme", profiles: "*" }],
    });
    const changed = await call("PUT", "/admin/users/grants@example.com/grants", { grants: [] });
    expect(changed.status).toBe(200);
    const refused = await login("grants@example.com", "a-long-password");
    expect(((await refused.json()) as { returnCode: number }).returnCode).toBe(1469);
  });

  it("answers 404 for a user or key that does not exist", async () => {
    const missing = await call("GET", "/admin/users/nobody@example.com");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ returnCode: 1404, message: "User nobody@example.com does not exist" });
    expect((await call("DELETE", "/admin/users/demo@example.com/api-keys/no-such-key")).status).toBe(404);
  });

  it('[DEC-GEN-01] issuing a key takes no body or {"id"} only: anything else is 400 1400 and issues nothing', async () => {
    const raw = (body: string) =>
      opened.service.app.handle(
        new Request(`${inProcessBase}/admin/users/demo@example.com/api-keys`, {
          method: "POST",
          headers: { authorization: `Bearer ${opened.service.deps.adminToken}`, "content-type": "application/json" },
          body,
        }),
      );
    const before = await (await call("GET", "/admin/users/demo@example.com/api-keys")).text();
    for (const [body, message] of [
      ["garbage", "Invalid body: not JSON."],
      ["[1]", "Invalid body: must be a JSON object."],
      ['{"id":"k","extra":1}', "Invalid extra: is not a field of this call (it takes only id)."],
      ['{"id":5}', "Invalid id: must be a string."],
    ]) {
      const answer = await raw(body as string);
      expect([body, answer.status, ((await answer.json()) as { message: string }).message]).toEqual([
        body,
        400,
        `Invalid request submission. ${message}`,
      ]);
    }
    const huge = await raw(JSON.stringify({ id: "k", pad: "x".repeat(20_000) }));
    expect([huge.status, ((await huge.json()) as { message: string }).message]).toEqual([
      400,
      "Invalid request submission. Invalid body: larger than 16384 bytes.",
    ]);
    expect(await (await call("GET", "/admin/users/demo@example.com/api-keys")).text()).toBe(before);
    expect((await raw("")).status).toBe(201);
  });

  it("issues a key with a chosen id once, and refuses the same id again", async () => {
    const issued = await call("POST", "/admin/users/demo@example.com/api-keys", { id: "ci-key" });
    expect(issued.status).toBe(201);
    const body = (await issued.json()) as { id: string; key: string };
    expect(body.id).toBe("ci-key");
    expect(body.key).toMatch(new RegExp(`^svc_${body.id}\\.[\\w-]{43}$`));
    expect((await call("POST", "/admin/users/demo@example.com/api-keys", { id: "ci-key" })).status).toBe(400);
    const listed = await (await call("GET", "/admin/users/demo@example.com/api-keys")).text();
    expect(listed).toContain("ci-key");
    expect(listed).not.toContain(body.key);
  });

  it("[DEC-SES-05] stores passwords and API keys only as argon2id hashes", async () => {
    await call("POST", "/admin/users", {
      email: "hashes@example.com",
      password: "clear-password-1",
      grants: [{ account: "acme", profiles: "*" }],
    });
    const issued = (await (await call("POST", "/admin/users/hashes@example.com/api-keys", {})).json()) as {
      id: string;
      key: string;
    };
    const tenancy = opened.service.stores.tenancy;
    const user = await tenancy.findUser("hashes@example.com");
    expect(user?.passwordHash).toStartWith("$argon2id$");
    expect(JSON.stringify(user)).not.toContain("clear-password-1");
    const key = await tenancy.findApiKey(issued.id);
    expect(key?.keyHash).toStartWith("$argon2id$");
    expect(JSON.stringify(key)).not.toContain(issued.key);
    for (const demo of await tenancy.listUsers()) expect(demo.passwordHash).toStartWith("$argon2id$");
  });
});
