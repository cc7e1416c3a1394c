/**
 * Several nodes on one database: each node is a pool of its own on the same PostgreSQL database, and the
 * races the ports promise to settle are run between them. Each of these tests fails without the statement or
 * lock it names (checked by removing it while writing them).
 */
import { expect, test } from "bun:test";
import { fullProfileConfig, sampleEvent, sampleUser } from "../../testing/fixtures.ts";
import { openPostgresDatabase, type PostgresDatabase } from "./database.ts";
import { PgDataLayerRepo } from "./datalayer.repo.ts";
import { PgEventRepo } from "./events.repo.ts";
import { PgLockoutRepo, PgSessionRepo } from "./sessions.repo.ts";
import { PgSettingsRepo } from "./settings.repo.ts";
import { PgTenancyRepo } from "./tenancy.repo.ts";
import { postgresForTests } from "./test-database.ts";

const pg = postgresForTests();

/** `count` nodes on one fresh database, and a function that closes them. */
async function nodesOnOneDatabase(count: number): Promise<{ nodes: PostgresDatabase[]; close: () => Promise<void> }> {
  const url = await pg.freshUrl();
  const nodes = await Promise.all(Array.from({ length: count }, () => openPostgresDatabase(url, 8)));
  return { nodes, close: async () => void (await Promise.all(nodes.map(({ client }) => client.end()))) };
}

/** `calls` callers spread over the nodes in turn. */
function spread<T>(nodes: readonly PostgresDatabase[], calls: number, make: (node: PostgresDatabase) => T): T[] {
  return Array.from({ length: calls }, (_, index) => make(nodes[index % nodes.length] as PostgresDatabase));
}

test("[COL-16, DEC-PRO-03] a reader paging after a sequence number while four nodes append never skips one (the events lock)", async () => {
  const { nodes, close } = await nodesOnOneDatabase(5);
  try {
    // Commits that take a while after their numbers were given: the window a reader could pass a number in.
    await (nodes[0] as PostgresDatabase).client.unsafe(`
      create function slow_commit() returns trigger language plpgsql as $$ begin perform pg_sleep(random() * 0.01); return null; end $$;
      create trigger slow_commit after insert on events for each statement execute function slow_commit();`);
    const [reader, ...writers] = nodes.map(({ db }) => new PgEventRepo(db)) as [PgEventRepo, ...PgEventRepo[]];
    const appends = 400;
    let done = false;
    const writing = Promise.all(
      Array.from({ length: appends }, (_, index) =>
        (writers[index % writers.length] as PgEventRepo).append(
          Array.from({ length: 1 + (index % 5) }, () => sampleEvent({ traceId: `w${index}` })),
        ),
      ),
    ).then(() => {
      done = true;
    });
    const seen: number[] = [];
    let cursor = 0;
    for (;;) {
      const finished = done;
      const page = await reader.query({ afterSeq: cursor, limit: 50 });
      for (const event of page) seen.push(event.seq);
      const last = page.at(-1);
      if (last) cursor = last.seq;
      else if (finished) break;
    }
    await writing;
    const all = (await reader.query({ limit: 100_000 })).map((event) => event.seq);
    expect(seen).toEqual(all);
    expect(all).toHaveLength(Array.from({ length: appends }, (_, index) => 1 + (index % 5)).reduce((a, b) => a + b, 0));
  } finally {
    await close();
  }
}, 60_000);

test("[DEC-SES-01, DEC-AUT-01] of sixteen lockout compare-and-sets on two nodes, one wins each round", async () => {
  const { nodes, close } = await nodesOnOneDatabase(2);
  try {
    const lockouts = spread(nodes, 16, (node) => new PgLockoutRepo(node.db));
    const created = await Promise.all(
      lockouts.map((repo, index) => repo.compareAndSet("password", "x", null, `s${index}`, 9)),
    );
    expect(created.filter(Boolean)).toHaveLength(1);
    for (let round = 0; round < 20; round++) {
      const version = (await (lockouts[0] as PgLockoutRepo).read("password", "x"))?.version ?? null;
      const won = await Promise.all(
        lockouts.map((repo, index) => repo.compareAndSet("password", "x", version, `r${round}.${index}`, 9)),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
    }
  } finally {
    await close();
  }
}, 60_000);

test("settings: one compare-and-set wins (a lease), and every setIfAbsent answers the same value (a signing key)", async () => {
  const { nodes, close } = await nodesOnOneDatabase(2);
  try {
    const settings = spread(nodes, 16, (node) => new PgSettingsRepo(node.db));
    const claimed = await Promise.all(settings.map((repo, index) => repo.compareAndSet("lease.x", null, `n${index}`)));
    expect(claimed.filter(Boolean)).toHaveLength(1);
    const kept = await Promise.all(settings.map((repo, index) => repo.setIfAbsent("secret", `v${index}`)));
    expect(new Set(kept).size).toBe(1);
    const holder = await (settings[0] as PgSettingsRepo).get("lease.x");
    const moved = await Promise.all(settings.map((repo, index) => repo.compareAndSet("lease.x", holder, `m${index}`)));
    expect(moved.filter(Boolean)).toHaveLength(1);
  } finally {
    await close();
  }
}, 60_000);

test("[DEC-SES-02] sixteen logins of one user on two nodes leave at most the sessions a user may have", async () => {
  const { nodes, close } = await nodesOnOneDatabase(2);
  try {
    const [first] = nodes as [PostgresDatabase];
    await new PgTenancyRepo(first.db).putUser(sampleUser("u@example.com"));
    const sessions = spread(nodes, 16, (node) => new PgSessionRepo(node.db));
    await Promise.all(
      sessions.map((repo, index) =>
        repo.create(
          {
            id: `s${index}`,
            userEmail: "u@example.com",
            cookieHash: `c${index}`,
            utkHash: "u",
            createdAt: 5,
            lastSeenAt: 5,
          },
          3,
        ),
      ),
    );
    const [row] = await first.client`select count(*)::int as n from sessions`;
    expect(row?.n).toBe(3);
  } finally {
    await close();
  }
}, 60_000);

test("a profile's configuration written by sixteen callers on two nodes is one caller's whole", async () => {
  const { nodes, close } = await nodesOnOneDatabase(2);
  try {
    const tenancy = new PgTenancyRepo((nodes[0] as PostgresDatabase).db);
    await tenancy.ensureAccount("acme", 1);
    const base = fullProfileConfig();
    const variants = Array.from({ length: 16 }, (_, index) => ({
      ...base,
      attributes: base.attributes.slice(0, index % 3),
    }));
    await Promise.all(
      spread(nodes, 16, (node) => new PgTenancyRepo(node.db)).map((repo, index) =>
        repo.putProfile("acme", variants[index] as typeof base, 2),
      ),
    );
    const found = await tenancy.findProfile("acme", base.name);
    expect(
      variants.some((variant) => JSON.stringify(variant.attributes) === JSON.stringify(found?.config.attributes)),
    ).toBe(true);
  } finally {
    await close();
  }
}, 60_000);

test("[DEC-DLE-05, DEC-DLE-06] two nodes accepting changes to one data layer number them 1..n, and each is settled once", async () => {
  const { nodes, close } = await nodesOnOneDatabase(2);
  try {
    const repos = nodes.map(({ db }) => new PgDataLayerRepo(db)) as [PgDataLayerRepo, PgDataLayerRepo];
    const key = { account: "acme", profile: "main", dlId: "x" };
    const accepted: number[] = [];
    async function accept(repo: PgDataLayerRepo, body: number): Promise<void> {
      for (;;) {
        const seq = ((await repo.read(key))?.layer.lastSeq ?? 0) + 1;
        const change = {
          key,
          seq,
          kind: "upload" as const,
          body: `{"n":${body}}`,
          state: "pending" as const,
          acceptedAt: seq,
          dueAt: seq,
          runAt: seq,
          attempts: 0,
          settledAt: null,
        };
        if (await repo.append(change, true)) {
          accepted.push(seq);
          return;
        }
      }
    }
    await Promise.all(Array.from({ length: 40 }, (_, index) => accept(repos[index % 2] as PgDataLayerRepo, index)));
    expect(accepted.sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
    for (let round = 0; round < 40; round++) {
      const due = await Promise.all(repos.map((repo) => repo.due(1e9, 10)));
      const settled = await Promise.all(
        repos.flatMap((repo, index) =>
          (due[index] ?? []).map((change) =>
            repo.settle({
              key,
              seq: change.seq,
              state: "completed",
              settledAt: change.seq,
              attempts: 0,
              serve: change.body,
            }),
          ),
        ),
      );
      expect(settled.filter(Boolean)).toHaveLength(1);
    }
    expect(await repos[0].due(1e9, 10)).toEqual([]);
    expect((await repos[1].served(key))?.seq).toBe(40);
  } finally {
    await close();
  }
}, 60_000);
