/**
 * DEC-SES-01: the lockout is counted in the store, so it holds across two server processes on one store: one
 * database file, or one PostgreSQL database (two nodes, each with a data directory of its own). DEC-OPS-04: a
 * wait on either process waits for the work the other one does (its profiles lease, its imports).
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type PostgresServer, startPostgresServer } from "../../tools/postgres-server.ts";
import { type SpawnedServer, spawnServer } from "../../tools/spawn-server.ts";

const root = resolve(import.meta.dir, "../..");

/** How the two processes share a store: their data directories and the environment they start with. */
interface Sharing {
  readonly name: string;
  readonly start: () => Promise<{ dataDirs: [string, string]; env: Record<string, string> }>;
  readonly stop: () => Promise<void>;
}

const oneFile: Sharing = (() => {
  let dataDir = "";
  return {
    name: "two server processes on one database file",
    async start() {
      dataDir = mkdtempSync(join(tmpdir(), "svc-hub-two-nodes-"));
      return { dataDirs: [dataDir, dataDir], env: {} };
    },
    async stop() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
})();

const onePostgresDatabase: Sharing = (() => {
  let postgres: PostgresServer | null = null;
  const dataDirs: string[] = [];
  return {
    name: "two nodes on one PostgreSQL database",
    async start() {
      postgres = await startPostgresServer();
      const url = await postgres.createDatabase("svc");
      for (let node = 0; node < 2; node += 1) dataDirs.push(mkdtempSync(join(tmpdir(), "svc-hub-pg-node-")));
      return {
        dataDirs: [dataDirs[0] as string, dataDirs[1] as string],
        env: { SVC_STORE: "postgres", SVC_DATABASE_URL: url },
      };
    },
    async stop() {
      await postgres?.stop();
      for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
    },
  };
})();

for (const sharing of [oneFile, onePostgresDatabase]) describeTwoProcesses(sharing);

function describeTwoProcesses(sharing: Sharing): void {
  describe(sharing.name, () => {
    const adminToken = `two-nodes-${crypto.randomUUID()}`;
    let first: SpawnedServer;
    let second: SpawnedServer;

    beforeAll(async () => {
      const started = await sharing.start();
      const dataDirs = started.dataDirs;
      // Realistic delays: a visitor deletion stays pending for days of the virtual clock, not for the 2 s of the
      // fast preset, which a busy machine can spend between the requests of one test.
      const env = { ...started.env, SVC_TIMING: "realistic" };
      first = await spawnServer({ root, dataDir: dataDirs[0], adminToken, env });
      second = await spawnServer({ root, dataDir: dataDirs[1], adminToken, env });
    }, 60_000);

    afterAll(async () => {
      await Promise.all([first?.stop(), second?.stop()]);
      await sharing.stop();
    });

    function login(server: SpawnedServer, username: string, password: string) {
      return fetch(`${server.url}/v1/login`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ username, password }),
      });
    }

    async function code(response: Response): Promise<number> {
      return response.status === 200 ? 200 : ((await response.json()) as { returnCode: number }).returnCode;
    }

    it("count the failures of one username together and both refuse it once locked", async () => {
      const email = `two-nodes-${Date.now()}@example.com`;
      const created = await fetch(`${first.url}/admin/users`, {
        method: "POST",
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ email, password: "right-password-1", grants: [{ account: "acme", profiles: "*" }] }),
      });
      expect(created.status).toBe(201);

      const answers: number[] = [];
      for (let attempt = 0; attempt < 6; attempt += 1) {
        answers.push(await code(await login(attempt % 2 === 0 ? first : second, email, "wrong")));
      }
      expect(answers).toEqual([1401, 1401, 1401, 1401, 1401, 1402]);
      expect(await code(await login(first, email, "right-password-1"))).toBe(1402);
      expect(await code(await login(second, email, "right-password-1"))).toBe(1402);
    });

    it("[DEC-AUT-01] count the key failures of one user together: the sixth wrong key is locked on both", async () => {
      const email = `two-nodes-key-${Date.now()}@example.com`;
      const created = await fetch(`${first.url}/admin/users`, {
        method: "POST",
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ email, password: "right-password-1", grants: [{ account: "acme", profiles: "*" }] }),
      });
      expect(created.status).toBe(201);
      const keyLogin = (server: SpawnedServer) =>
        fetch(`${server.url}/v2/auth`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ username: email, key: "stale-key" }),
        });
      const answers: number[] = [];
      for (let attempt = 0; attempt < 6; attempt += 1)
        answers.push(await code(await keyLogin(attempt % 2 === 0 ? first : second)));
      expect(answers).toEqual([1401, 1401, 1401, 1401, 1401, 1402]);
      expect(await code(await keyLogin(second))).toBe(1402);
    });

    it("accept each other's sessions and tokens", async () => {
      const session = await login(first, "demo@example.com", "demo-password-1");
      expect(session.status).toBe(200);
      const cookie = (session.headers.getSetCookie().find((value) => value.startsWith("JSESSIONID=")) ?? "").split(
        ";",
      )[0] as string;
      const logout = await fetch(`${second.url}/v1/logout`, { method: "POST", headers: { cookie } });
      expect(logout.status).toBe(200);

      const token = await fetch(`${second.url}/v2/auth`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ username: "demo@example.com", key: "demo-key-0001-acme" }),
      });
      const { token: jwt } = (await token.json()) as { token: string };
      const ids = await fetch(`${first.url}/v2/visitor/accounts/acme/profiles/main/ids`, {
        headers: { authorization: `Bearer ${jwt}` },
      });
      expect(ids.status).toBe(200);
    });

    it("[DEC-OPS-04] a wait on either waits for the work the other does: the events it applies, the file it imports", async () => {
      const admin = { authorization: `Bearer ${adminToken}` };
      // The first process started first and holds the profiles lease: events sent to the second, and a wait
      // on the second, must still find them applied.
      const visitor = `two-nodes-${crypto.randomUUID()}`;
      for (let n = 0; n < 5; n += 1) {
        const sent = await fetch(
          `${second.url}/event?svc_account=acme&svc_profile=main&svc_visitor_id=${visitor}&svc_event=view${n}`,
        );
        expect(sent.status).toBe(200);
      }
      expect((await fetch(`${second.url}/admin/wait`, { method: "POST", headers: admin })).status).toBe(200);
      const lookup = await fetch(
        `${second.url}/personalization/accounts/acme/profiles/main/engines/demo-engine/visitors/${visitor}`,
        { headers: { referer: "https://example.com/" } },
      );
      expect(lookup.status).toBe(200);
      expect(((await lookup.json()) as { metrics: Record<string, number> }).metrics["Lifetime event count"]).toBe(5);

      // A file uploaded to the first is imported by the first: a wait on the second returns once it is.
      const name = `purchases_two-nodes-${Date.now()}.csv`;
      const rows = Array.from({ length: 3_000 }, (_, n) => `buyer-${n}@example.com,${n},2024-01-31 09:30`).join("\n");
      const uploaded = await fetch(`${first.url}/admin/accounts/acme/profiles/main/files/${name}`, {
        method: "POST",
        headers: admin,
        body: `email,amount,purchased_at\n${rows}\n`,
      });
      expect(uploaded.status).toBe(202);
      expect((await fetch(`${second.url}/admin/wait`, { method: "POST", headers: admin })).status).toBe(200);
      const jwt = (
        (await (
          await fetch(`${second.url}/v2/auth`, {
            method: "POST",
            body: new URLSearchParams({ username: "demo@example.com", key: "demo-key-0001-acme" }),
          })
        ).json()) as { token: string }
      ).token;
      const status = await fetch(`${second.url}/v2/omnichannel/accounts/acme/profiles/main/files/${name}`, {
        headers: { authorization: `Bearer ${jwt}` },
      });
      const states = ((await status.json()) as { status: Array<{ state: string }> }).status.map((entry) => entry.state);
      expect(states.at(-1)).toBe("PROCESSED");
    });

    it("[PRV-05, PRV-09, VID-08] one pending deletion per value whichever process is asked, and it finds the visitors stitched on either", async () => {
      const admin = { authorization: `Bearer ${adminToken}`, "content-type": "application/json" };
      const email = `stitched-${crypto.randomUUID()}@example.com`;
      const visitors = [`pv-${crypto.randomUUID()}`, `pv-${crypto.randomUUID()}`];
      // One visitor's events on each process, both naming the same e-mail: stitched into one group.
      for (const [index, server] of [first, second].entries()) {
        const sent = await fetch(
          `${server.url}/event?svc_account=acme&svc_profile=main&svc_visitor_id=${visitors[index]}&email_address=${encodeURIComponent(email)}&svc_event=view`,
        );
        expect(sent.status).toBe(200);
      }
      expect((await fetch(`${first.url}/admin/wait`, { method: "POST", headers: admin })).status).toBe(200);
      const bearer = async (server: SpawnedServer) =>
        (
          (await (
            await fetch(`${server.url}/v2/auth`, {
              method: "POST",
              body: new URLSearchParams({ username: "demo@example.com", key: "demo-key-0001-acme" }),
            })
          ).json()) as { token: string }
        ).token;
      const asked = await Promise.all(
        [first, second, first, second].map(async (server) => {
          const answer = await fetch(`${server.url}/v2/visitor/accounts/acme/profiles/main`, {
            method: "DELETE",
            headers: {
              authorization: `Bearer ${await bearer(server)}`,
              "content-type": "application/x-www-form-urlencoded",
            },
            body: new URLSearchParams({ attributeId: "5120", attributeValue: email }),
          });
          expect(answer.status).toBe(202);
          return ((await answer.json()) as { transactionId: string }).transactionId;
        }),
      );
      expect(new Set(asked).size).toBe(1);
      const moved = await fetch(`${second.url}/admin/wait`, {
        method: "POST",
        headers: admin,
        body: JSON.stringify({ advanceClock: "4d" }),
      });
      expect(moved.status).toBe(200);
      for (const visitor of visitors) {
        const left = await fetch(`${second.url}/admin/events?account=acme&profile=main&visitor=${visitor}`, {
          headers: admin,
        });
        expect(((await left.json()) as { events: unknown[] }).events).toEqual([]);
      }
    });

    it("issue 43, point 2: a wait for events on one process answers when the other stores them", async () => {
      const trace = crypto.randomUUID();
      const waiting = fetch(`${first.url}/admin/events/wait`, {
        method: "POST",
        headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ account: "acme", traceId: trace, min: 2, timeoutMs: 60_000 }),
      });
      for (const step of ["cart", "pay"]) {
        const sent = await fetch(
          `${second.url}/event?svc_account=acme&svc_profile=main&svc_trace_id=${trace}&svc_event=${step}&tapid=${trace}`,
        );
        expect(sent.status).toBe(200);
      }
      const answer = await waiting;
      expect(answer.status).toBe(200);
      const report = (await answer.json()) as { met: boolean; count: number; events: Array<{ event: string }> };
      expect(report).toMatchObject({ met: true, count: 2 });
      expect(report.events.map((event) => event.event)).toEqual(["cart", "pay"]);
    });
  });
}
