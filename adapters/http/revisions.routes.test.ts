import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import {
  type InProcessService,
  openInProcessTarget,
} from "../../conformance/implementations/svc-hub/in-process-target.ts";
import type { RevisionDetails } from "../../core/revisions/index.ts";
import { formDataOf, type MultipartFile } from "../../harness/multipart.ts";
import { inProcessBase } from "../../harness/target.ts";
import { readZip } from "../../harness/zip-reader.ts";

let opened: InProcessService;
let session: { cookie: string; utk: string };

beforeAll(async () => {
  opened = await openInProcessTarget();
  const login = await handle("/v1/login", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ username: "demo@example.com", password: "demo-password-1" }),
  });
  session = {
    cookie: login.headers.getSetCookie()[0]!.split(";")[0]!,
    utk: ((await login.json()) as { utk: string }).utk,
  };
});
afterAll(() => opened.close());

function handle(path: string, init?: RequestInit): Promise<Response> {
  return opened.service.app.handle(new Request(`${inProcessBase}${path}`, init));
}

/** A v1 call with the demo user's session. */
function v1(path: string): Promise<Response> {
  return handle(`${path}${path.includes("?") ? "&" : "?"}utk=${encodeURIComponent(session.utk)}`, {
    headers: { cookie: session.cookie },
  });
}

const files: MultipartFile[] = [
  { filename: "utag.js", bytes: "/* loader */\n" },
  { filename: "utag.1.js", bytes: "/* tag 1 */\n" },
];

function publish(
  fields: Array<[string, string]>,
  parts: MultipartFile[] = files,
  path = "/admin/accounts/acme/profiles/main/revisions",
  admin = true,
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (admin) headers.authorization = `Bearer ${opened.service.deps.adminToken}`;
  return handle(path, { method: "POST", headers, body: formDataOf(fields, parts) });
}

const goodFields = (target: string): Array<[string, string]> => [
  ["name", "Release"],
  ["comment", "from the test"],
  ["created_by", "ops@example.com"],
  ["targets", target],
];

async function errorOf(answer: Response): Promise<string> {
  return `${answer.status} ${JSON.stringify(await answer.json())}`;
}

describe("revisions API (v1)", () => {
  it("serves the demo revision on prod: list, details, and the bundle with the checksums of the details", async () => {
    const ids = (await (await v1("/v1/accounts/acme/main/revisions")).json()) as string[];
    expect(ids.length).toBeGreaterThanOrEqual(1);
    const demoId = ids.at(-1)!;
    const details = (await (await v1(`/v1/accounts/acme/main/revisions/${demoId}/details`)).json()) as RevisionDetails;
    expect(details).toMatchObject({
      account: "acme",
      profile: "main",
      created_by: "demo@example.com",
      targets_published: ["prod"],
    });
    const bundle = await v1(`/v1/accounts/acme/main/revisions/${demoId}/prod`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toBe("application/zip");
    expect(bundle.headers.get("x-version")).toBeTruthy();
    const bytes = new Uint8Array(await bundle.arrayBuffer());
    const sha = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");
    expect(sha(bytes)).toBe(details.checksums.prod!["bundle.zip"]!);
    const members = readZip(bytes);
    expect(members.map((member) => member.name)).toEqual([
      "utag.js",
      "utag.1.js",
      "utag.2.js",
      "utag.sync.js",
      "mobile.html",
      "manifest.json",
    ]);
    for (const member of members) expect(sha(member.bytes)).toBe(details.checksums.prod![member.name]!);
  });

  it("needs the session cookie and the utk (1401), a grant (1469), and known names (1240, 1250)", async () => {
    expect(await errorOf(await handle("/v1/accounts/acme/main/revisions"))).toBe(
      '401 {"returnCode":1401,"message":"Authentication Failed"}',
    );
    expect(
      await errorOf(await handle("/v1/accounts/acme/main/revisions", { headers: { cookie: session.cookie } })),
    ).toBe('401 {"returnCode":1401,"message":"Authentication Failed"}');
    expect(await errorOf(await v1("/v1/accounts/globex/main/revisions"))).toContain('401 {"returnCode":1469');
    expect(await errorOf(await v1("/v1/accounts/nope/main/revisions/202501021953/details"))).toBe(
      '404 {"returnCode":1240,"message":"Account was not found"}',
    );
    expect(await errorOf(await v1("/v1/accounts/acme/nope/revisions/202501021953/prod"))).toBe(
      '404 {"returnCode":1250,"message":"Profile was not found"}',
    );
  });

  it("answers 1260 for unknown or malformed ids and targets not published to, 1270 for an older bundle", async () => {
    const target = "routes_latest";
    const first = (await (await publish(goodFields(target))).json()) as RevisionDetails;
    const second = (await (await publish(goodFields(target))).json()) as RevisionDetails;
    expect(second.revision_id > first.revision_id).toBe(true);
    expect((await v1(`/v1/accounts/acme/main/revisions/${second.revision_id}/${target}`)).status).toBe(200);
    expect(await errorOf(await v1(`/v1/accounts/acme/main/revisions/${first.revision_id}/${target}`))).toBe(
      '400 {"returnCode":1270,"message":"The revision bundle requested is not the latest"}',
    );
    const notFound = '404 {"returnCode":1260,"message":"Revision details do not exist"}';
    expect(await errorOf(await v1(`/v1/accounts/acme/main/revisions/${first.revision_id}/prod`))).toBe(notFound);
    expect(await errorOf(await v1("/v1/accounts/acme/main/revisions/209901010000/details"))).toBe(notFound);
    expect(await errorOf(await v1("/v1/accounts/acme/main/revisions/not-an-id/details"))).toBe(notFound);
    expect(await errorOf(await v1(`/v1/accounts/acme/main/revisions/not-an-id/${target}`))).toBe(notFound);
  });
});

describe("admin API: publishing (DEC-OPS-04)", () => {
  it("publishes from multipart/form-data and answers 201 with the details", async () => {
    const answer = await publish(goodFields("routes_a, routes_b"));
    expect(answer.status).toBe(201);
    const details = (await answer.json()) as RevisionDetails;
    expect(details).toMatchObject({
      name: "Release",
      comment: "from the test",
      created_by: "ops@example.com",
      targets_published: ["routes_a", "routes_b"],
    });
    expect(details.revision_id).toMatch(/^\d{12}$/);
    expect(details.time_created).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}\.\d{2}\.\d{2} \d{2}:\d{2} GMT$/);
    expect(Object.keys(details.checksums.routes_a!)).toEqual(["manifest.json", "bundle.zip", "utag.js", "utag.1.js"]);
  });

  it("refuses without the admin token", async () => {
    expect((await publish(goodFields("prod"), files, undefined, false)).status).toBe(401);
  });

  it("refuses every bad publication with a 400 naming the problem", async () => {
    const cases: Array<[Array<[string, string]>, MultipartFile[], string]> = [
      [
        goodFields("routes_x"),
        [{ filename: "../utag.js", bytes: "x" }, ...files],
        'Invalid file name "../utag.js": must be a plain file name, without a folder (no / or \\).',
      ],
      [
        goodFields("routes_x"),
        [{ filename: "..\\..\\utag.1.js", bytes: "x" }, ...files],
        'Invalid file name "..\\\\..\\\\utag.1.js": must be a plain file name',
      ],
      [
        goodFields("routes_x"),
        [{ filename: "evil.sh", bytes: "x" }, ...files],
        'Invalid file name "evil.sh": must be one of utag.js, utag.<n>.js, utag.sync.js or mobile.html.',
      ],
      [
        goodFields("routes_x"),
        [{ filename: "manifest.json", bytes: "{}" }, ...files],
        'Invalid file name "manifest.json": is made by the service and must not be sent.',
      ],
      [goodFields("routes_x"), [{ filename: "", bytes: "x" }, ...files], 'Invalid file name "": must not be empty.'],
      [goodFields("routes_x"), [files[1]!], "Invalid files: must include the main loader utag.js."],
      [goodFields("routes_x"), [...files, files[0]!], 'Invalid file name "utag.js": is given twice.'],
      [goodFields("prod,pr od"), files, 'Invalid target "pr od": may contain only the characters A-Z a-z 0-9 _ - ~.'],
      [goodFields("details"), files, 'Invalid target "details": is reserved'],
      [goodFields("prod,"), files, 'Invalid target "": may contain only'],
      [
        [
          ["name", "R"],
          ["created_by", "ops@example.com"],
        ],
        files,
        "Invalid targets: is required.",
      ],
      [
        [
          ["name", "R"],
          ["targets", "prod"],
        ],
        files,
        "Invalid created_by: is required.",
      ],
      [
        [
          ["created_by", "ops@example.com"],
          ["targets", "prod"],
        ],
        files,
        "Invalid name: is required.",
      ],
      [[...goodFields("prod"), ["name", "Again"]], files, "Invalid name: is given twice."],
      [[...goodFields("prod"), ["author", "x"]], files, "Invalid author: is not a field of this call"],
      [
        [
          ["name", "R"],
          ["created_by", "someone"],
          ["targets", "prod"],
        ],
        files,
        "Invalid created_by: must be an e-mail address.",
      ],
    ];
    for (const [fields, parts, message] of cases) {
      const answer = await publish(fields, parts);
      const body = (await answer.json()) as { returnCode: number; message: string };
      expect(`${answer.status} ${body.returnCode}`).toBe("400 1400");
      expect(body.message).toStartWith("Invalid request submission. ");
      expect(body.message).toContain(message);
    }
    expect(((await (await v1("/v1/accounts/acme/main/revisions")).json()) as string[]).length).toBeGreaterThan(0);
  });

  it("refuses a body that is not multipart/form-data, naming Content-Type", async () => {
    const answer = await handle("/admin/accounts/acme/profiles/main/revisions", {
      method: "POST",
      headers: { authorization: `Bearer ${opened.service.deps.adminToken}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(await errorOf(answer)).toContain("Invalid Content-Type: must be multipart/form-data.");
  });

  it("answers 404 1240 / 1250 for an unknown account or profile", async () => {
    expect(
      await errorOf(await publish(goodFields("prod"), files, "/admin/accounts/nope/profiles/main/revisions")),
    ).toBe('404 {"returnCode":1240,"message":"Account was not found"}');
    expect(
      await errorOf(await publish(goodFields("prod"), files, "/admin/accounts/acme/profiles/nope/revisions")),
    ).toBe('404 {"returnCode":1250,"message":"Profile was not found"}');
  });

  it("documents the routes in the OpenAPI document", async () => {
    const document = (await (
      await handle("/openapi.json", { headers: { authorization: `Bearer ${opened.service.deps.adminToken}` } })
    ).json()) as { paths: Record<string, unknown> };
    const paths = Object.keys(document.paths);
    expect(paths).toContain("/admin/accounts/{account}/profiles/{profile}/revisions");
    expect(paths).toContain("/v1/accounts/{account}/{profile}/revisions");
    expect(paths.some((path) => path.startsWith("/v1/accounts/{account}/{profile}/revisions/{revisionId}/"))).toBe(
      true,
    );
  });
});
