/**
 * Tenancy: every management route (v1 data layer, revisions, v1 and v2 file status, v2 privacy) against
 * every principal (the demo users' v1 sessions, the demo API keys' v2 tokens, no credentials, an expired
 * session and token), on acme's and globex's data. Each answer is the expected allow or deny (401 1401 for
 * missing or wrong credentials, 401 1469 for another account), and after every write the other account's
 * data is unchanged. In-process, on the memory store.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import {
  type InProcessService,
  openInProcessTarget,
} from "../conformance/implementations/svc-hub/in-process-target.ts";

const origin = "http://localhost";
const adminToken = "in-process-admin-token";
const accounts = ["acme", "globex"] as const;
type Account = (typeof accounts)[number];

interface Principal {
  readonly name: string;
  /** The account the principal is granted, or null (none, expired). */
  readonly account: Account | null;
  readonly version: "v1" | "v2" | null;
  readonly headers: Record<string, string>;
  readonly query: Record<string, string>;
}

interface Route {
  readonly name: string;
  readonly version: "v1" | "v2";
  readonly write: boolean;
  /** The request for a principal against an account. */
  request(account: Account, principal: Principal): Request;
  /** The statuses an allowed principal may get (the route's success, or a refusal of its parameters). */
  readonly allowed: readonly number[];
}

let opened: InProcessService;
const handle = (request: Request) => opened.service.app.handle(request);

function url(path: string, query: Record<string, string> = {}): string {
  const search = new URLSearchParams(query).toString();
  return `${origin}${path}${search ? `?${search}` : ""}`;
}

async function form(path: string, fields: Record<string, string>): Promise<Response> {
  return handle(
    new Request(url(path), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    }),
  );
}

async function loginV1(
  email: string,
  password: string,
): Promise<{ headers: Record<string, string>; query: Record<string, string> }> {
  const answer = await form("/v1/login", { username: email, password });
  expect(answer.status).toBe(200);
  const utk = ((await answer.json()) as { utk: string }).utk;
  const cookie = /JSESSIONID=([^;]*)/.exec(answer.headers.get("set-cookie") ?? "")?.[1];
  expect(cookie).toBeTruthy();
  return { headers: { cookie: `JSESSIONID=${cookie}` }, query: { utk } };
}

async function tokenV2(email: string, key: string): Promise<Record<string, string>> {
  const answer = await form("/v2/auth", { username: email, key });
  expect(answer.status).toBe(200);
  return { authorization: `Bearer ${((await answer.json()) as { token: string }).token}` };
}

async function admin(method: string, path: string, body?: unknown): Promise<Response> {
  return handle(
    new Request(url(path), {
      method,
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: body === undefined ? null : JSON.stringify(body),
    }),
  );
}

async function drain(): Promise<void> {
  await admin("POST", "/admin/clock/advance", { by: "10s" });
  expect((await admin("POST", "/admin/wait")).status).toBe(200);
}

const dle = (account: Account, name = "") => `/v1/dle/accounts/${account}/profiles/main/datalayers/${name}`;
const json = (value: unknown) => ({ "content-type": "application/json", body: JSON.stringify(value) });
const fileWindow = { filePrefix: "purchases", startDate: "2025-01-01T00:00:00Z", endDate: "2025-01-02T00:00:00Z" };

function withAuth(
  principal: Principal,
  method: string,
  path: string,
  extra: { query?: Record<string, string>; contentType?: string; body?: string } = {},
): Request {
  const headers: Record<string, string> = { ...principal.headers };
  if (extra.contentType) headers["content-type"] = extra.contentType;
  return new Request(url(path, { ...principal.query, ...extra.query }), { method, headers, body: extra.body ?? null });
}

const routes: Route[] = [
  {
    name: "v1 list data layers",
    version: "v1",
    write: false,
    allowed: [200],
    request: (a, p) => withAuth(p, "GET", dle(a)),
  },
  {
    name: "v1 data layer status",
    version: "v1",
    write: false,
    allowed: [200],
    request: (a, p) => withAuth(p, "GET", dle(a, "shared")),
  },
  {
    name: "v1 upload a data layer",
    version: "v1",
    write: true,
    allowed: [201],
    request: (a, p) => {
      const body = json({ by: p.name });
      return withAuth(p, "POST", dle(a, `tn-${p.name}`), { contentType: body["content-type"], body: body.body });
    },
  },
  {
    name: "v1 update a data layer",
    version: "v1",
    write: true,
    allowed: [200],
    request: (a, p) => {
      const body = json({ by: p.name });
      return withAuth(p, "PUT", dle(a, "shared"), { contentType: body["content-type"], body: body.body });
    },
  },
  {
    name: "v1 delete a data layer",
    version: "v1",
    write: true,
    allowed: [200],
    request: (a, p) => withAuth(p, "DELETE", dle(a, "doomed")),
  },
  {
    name: "v1 list revisions",
    version: "v1",
    write: false,
    allowed: [200],
    request: (a, p) => withAuth(p, "GET", `/v1/accounts/${a}/main/revisions`),
  },
  {
    name: "v1 revision details",
    version: "v1",
    write: false,
    allowed: [200, 404],
    request: (a, p) => withAuth(p, "GET", `/v1/accounts/${a}/main/revisions/202501021953/details`),
  },
  {
    name: "v1 revision bundle",
    version: "v1",
    write: false,
    allowed: [200, 404],
    request: (a, p) => withAuth(p, "GET", `/v1/accounts/${a}/main/revisions/202501021953/prod`),
  },
  {
    name: "v1 file count",
    version: "v1",
    write: false,
    allowed: [200, 400],
    request: (a, p) =>
      withAuth(p, "GET", `/v1/omnichannel/accounts/${a}/profiles/main/files/count`, { query: fileWindow }),
  },
  {
    name: "v1 file search",
    version: "v1",
    write: false,
    allowed: [200, 400],
    request: (a, p) =>
      withAuth(p, "GET", `/v1/omnichannel/accounts/${a}/profiles/main/files/search`, { query: fileWindow }),
  },
  {
    name: "v1 file status",
    version: "v1",
    write: false,
    allowed: [200, 404],
    request: (a, p) => withAuth(p, "GET", `/v1/omnichannel/accounts/${a}/profiles/main/files/purchases_1.csv`),
  },
  {
    name: "v2 file count",
    version: "v2",
    write: false,
    allowed: [200, 400],
    request: (a, p) =>
      withAuth(p, "GET", `/v2/omnichannel/accounts/${a}/profiles/main/files/count`, { query: fileWindow }),
  },
  {
    name: "v2 file search",
    version: "v2",
    write: false,
    allowed: [200, 400],
    request: (a, p) =>
      withAuth(p, "GET", `/v2/omnichannel/accounts/${a}/profiles/main/files/search`, { query: fileWindow }),
  },
  {
    name: "v2 file status",
    version: "v2",
    write: false,
    allowed: [200, 404],
    request: (a, p) => withAuth(p, "GET", `/v2/omnichannel/accounts/${a}/profiles/main/files/purchases_1.csv`),
  },
  {
    name: "v2 visitor ID attributes",
    version: "v2",
    write: false,
    allowed: [200],
    request: (a, p) => withAuth(p, "GET", `/v2/visitor/accounts/${a}/profiles/main/ids`),
  },
  {
    name: "v2 visitor record",
    version: "v2",
    write: false,
    allowed: [200, 400, 404],
    request: (a, p) =>
      withAuth(p, "GET", `/v2/visitor/accounts/${a}/profiles/main/`, {
        query: { attributeId: "5120", attributeValue: "tenancy@example.com" },
      }),
  },
  {
    name: "v2 transaction",
    version: "v2",
    write: false,
    allowed: [404],
    request: (a, p) =>
      withAuth(p, "GET", `/v2/visitor/accounts/${a}/profiles/main/transactions/0123456789abcdef0123456789abcdef`),
  },
  {
    name: "v2 delete a visitor",
    version: "v2",
    write: true,
    allowed: [202, 400],
    request: (a, p) =>
      withAuth(p, "DELETE", `/v2/visitor/accounts/${a}/profiles/main/`, {
        contentType: "application/x-www-form-urlencoded",
        body: "attributeId=5120&attributeValue=tenancy%40example.com",
      }),
  },
];

/** What a principal must get: allowed, or the exact refusal. */
function expectedFor(route: Route, account: Account, principal: Principal): "allow" | 1401 | 1469 {
  if (principal.version !== route.version || principal.account === null) return 1401;
  return principal.account === account ? "allow" : 1469;
}

/** What each account's owner sees of its data layers: names, and what `shared` serves. */
async function snapshot(
  owners: Record<Account, Principal>,
): Promise<Record<Account, { names: string[]; shared: string }>> {
  const result = {} as Record<Account, { names: string[]; shared: string }>;
  for (const account of accounts) {
    const list = await handle(withAuth(owners[account], "GET", dle(account)));
    expect(list.status).toBe(200);
    const served = await handle(new Request(url(`/dle/${account}/main/shared.json`)));
    result[account] = {
      names: ((await list.json()) as string[]).slice().sort(),
      shared: served.status === 200 ? await served.text() : `status ${served.status}`,
    };
  }
  return result;
}

async function checkMatrix(principals: Principal[], owners: Record<Account, Principal>): Promise<string[]> {
  const problems: string[] = [];
  for (const route of routes) {
    for (const account of accounts) {
      for (const principal of principals) {
        // Settle the allowed writes first, so that only the refused one could change what is compared.
        if (route.write) await drain();
        const before = route.write ? await snapshot(owners) : null;
        const answer = await handle(route.request(account, principal));
        const text = await answer.text();
        const expected = expectedFor(route, account, principal);
        const where = `${route.name} on ${account} as ${principal.name}`;
        if (expected === "allow") {
          if (!route.allowed.includes(answer.status))
            problems.push(
              `${where}: expected one of ${route.allowed.join("/")}, got ${answer.status} ${text.slice(0, 200)}`,
            );
          continue;
        }
        let returnCode: unknown;
        try {
          returnCode = (JSON.parse(text) as { returnCode?: unknown }).returnCode;
        } catch {
          returnCode = undefined;
        }
        if (answer.status !== 401 || returnCode !== expected)
          problems.push(`${where}: expected 401 ${expected}, got ${answer.status} ${text.slice(0, 200)}`);
        if (before) {
          await drain();
          const after = await snapshot(owners);
          if (JSON.stringify(after) !== JSON.stringify(before))
            problems.push(
              `${where}: a refused write changed data: ${JSON.stringify(before)} -> ${JSON.stringify(after)}`,
            );
        }
      }
    }
  }
  return problems;
}

beforeAll(async () => {
  opened = await openInProcessTarget();
});

afterAll(async () => {
  await opened?.close();
});

describe("tenancy: every management route × every principal", () => {
  it("nogrant@ cannot log in or get a token (401 1469), so it holds no session to try", async () => {
    const login = await form("/v1/login", { username: "nogrant@example.com", password: "nogrant-password-1" });
    expect(login.status).toBe(401);
    expect(((await login.json()) as { returnCode: number }).returnCode).toBe(1469);
    expect(login.headers.get("set-cookie") ?? "").not.toContain("JSESSIONID=");
  });

  it("each principal reaches its own account only, and a refused write changes nothing", async () => {
    const demo = await loginV1("demo@example.com", "demo-password-1");
    const globex = await loginV1("globex@example.com", "globex-password-1");
    const principals: Principal[] = [
      { name: "demo-v1", account: "acme", version: "v1", ...demo },
      { name: "globex-v1", account: "globex", version: "v1", ...globex },
      {
        name: "acme-key-v2",
        account: "acme",
        version: "v2",
        headers: await tokenV2("demo@example.com", "demo-key-0001-acme"),
        query: {},
      },
      {
        name: "globex-key-v2",
        account: "globex",
        version: "v2",
        headers: await tokenV2("globex@example.com", "demo-key-0002-globex"),
        query: {},
      },
      { name: "none", account: null, version: null, headers: {}, query: {} },
      {
        name: "forged-v1",
        account: null,
        version: null,
        headers: { cookie: "JSESSIONID=forged" },
        query: { utk: "forged" },
      },
      {
        name: "forged-v2",
        account: null,
        version: null,
        headers: { authorization: "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZW1vQGV4YW1wbGUuY29tIn0.c2lnbmF0dXJl" },
        query: {},
      },
    ];
    const owners: Record<Account, Principal> = { acme: principals[0] as Principal, globex: principals[1] as Principal };
    // What every write targets: `shared` (updated) and `doomed` (deleted), made by each owner.
    for (const account of accounts) {
      for (const name of ["shared", "doomed"]) {
        const body = json({ owner: account });
        const created = await handle(
          withAuth(owners[account], "POST", dle(account, name), { contentType: body["content-type"], body: body.body }),
        );
        expect(created.status).toBe(201);
      }
    }
    await drain();
    const problems = await checkMatrix(principals, owners);
    expect(problems).toEqual([]);
    // The owners' own writes landed in their account and nowhere else.
    await drain();
    const after = await snapshot(owners);
    // doomed was deleted by its owner; the other principals' uploads were refused.
    expect(after.acme.names).toEqual(["shared", "tn-demo-v1"]);
    expect(after.globex.names).toEqual(["shared", "tn-globex-v1"]);
    expect(after.acme.names).toContain("tn-demo-v1");
    expect(after.acme.names).not.toContain("tn-globex-v1");
    expect(after.globex.names).toContain("tn-globex-v1");
    expect(after.globex.names).not.toContain("tn-demo-v1");
    expect(JSON.parse(after.acme.shared)).toEqual({ by: "demo-v1" });
    expect(JSON.parse(after.globex.shared)).toEqual({ by: "globex-v1" });
  }, 120_000);

  it("an expired session and an expired token are refused everywhere (401 1401)", async () => {
    const demo = await loginV1("demo@example.com", "demo-password-1");
    const token = await tokenV2("demo@example.com", "demo-key-0001-acme");
    expect((await admin("POST", "/admin/clock/advance", { by: "13h" })).status).toBe(200);
    const expired: Principal[] = [
      { name: "expired-v1", account: null, version: null, ...demo },
      { name: "expired-v2", account: null, version: null, headers: token, query: {} },
    ];
    const problems: string[] = [];
    for (const route of routes) {
      for (const account of accounts) {
        for (const principal of expired) {
          const answer = await handle(route.request(account, principal));
          const body = (await answer.json().catch(() => null)) as { returnCode?: number } | null;
          if (answer.status !== 401 || body?.returnCode !== 1401)
            problems.push(`${route.name} on ${account} as ${principal.name}: ${answer.status} ${JSON.stringify(body)}`);
        }
      }
    }
    expect(problems).toEqual([]);
  }, 60_000);
});
