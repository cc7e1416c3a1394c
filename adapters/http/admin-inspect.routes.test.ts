/**
 * The console's routes of issue 32: the live feed (server-sent events) and the journal of this node's collection
 * outcomes, one event explained, and a visitor looked up; in-process, and the live feed also on a listening
 * server, as the console's browser code reads it (fetch and a stream reader).
 */

import { afterEach, describe, expect, it } from "bun:test";
import { inProcessBase } from "../../harness/target.ts";
import { openDemoService } from "../server/demo-service.ts";
import type { Service } from "../server/service.ts";

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function open(): Promise<Service> {
  const service = await openDemoService({ timing: "fast", adminToken: "test-admin-token" });
  cleanups.push(() => service.close());
  service.start();
  return service;
}

const admin = { authorization: "Bearer test-admin-token" };

function clientOf(service: Service, base = inProcessBase) {
  const call = (path: string, init: RequestInit = {}) =>
    base === inProcessBase ? service.app.handle(new Request(`${base}${path}`, init)) : fetch(`${base}${path}`, init);
  return {
    call,
    get: (path: string, headers: Record<string, string> = {}) => call(path, { headers: { ...admin, ...headers } }),
    /** A GET event of acme/main; the answer must be 200. */
    async collect(query: string, headers: Record<string, string> = {}) {
      const answer = await call(`/event?svc_account=acme&${query}`, { headers });
      expect(answer.status).toBe(200);
    },
    async wait() {
      expect((await call("/admin/wait", { method: "POST", headers: admin })).status).toBe(200);
    },
  };
}

/** The messages of a server-sent event stream (comments included), one block at a time. */
function messagesOf(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  return {
    /** The next message, or null once the stream has ended; fails after `timeoutMs`. */
    async next(timeoutMs = 2_000): Promise<string | null> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const message = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          return message;
        }
        let timer: ReturnType<typeof setTimeout> | undefined;
        const read = await Promise.race([
          reader.read(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error("no message in time")), Math.max(0, deadline - Date.now()));
          }),
        ]).finally(() => clearTimeout(timer));
        if (read.done) return null;
        buffer += decoder.decode(read.value, { stream: true });
      }
    },
    cancel: () => reader.cancel(),
  };
}

/** The fields of one `collect` message. */
function entryOf(message: string | null): { id: string; event: string; data: Record<string, unknown> } {
  const fields = Object.fromEntries(
    (message ?? "").split("\n").map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2)]),
  );
  return { id: fields.id as string, event: fields.event as string, data: JSON.parse(fields.data as string) };
}

/** Polls `check` until it holds (a disconnection is noticed by the server on its own time), or fails. */
async function eventually(check: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("did not happen in time");
    await Bun.sleep(10);
  }
}

describe("the collection journal as JSON (GET /admin/events/journal)", () => {
  it("gives the latest outcomes, stored, refused and bot, with ISO times, and pages after an id", async () => {
    const service = await open();
    const client = clientOf(service);
    await client.collect("svc_visitor_id=j-1&svc_event=view");
    expect((await client.call("/event?svc_account=nobody")).status).toBe(400);
    await client.collect("svc_event=crawl", { "user-agent": "Googlebot/2.1 (+http://www.google.com/bot.html)" });
    const page = (await (await client.get("/admin/events/journal")).json()) as {
      entries: Array<Record<string, unknown>>;
      lastId: number;
    };
    expect(page.entries.map((entry) => entry.outcome)).toEqual(["stored", "refused", "bot"]);
    expect(page.lastId).toBe(page.entries.at(-1)?.id as number);
    const [stored, refused, bot] = page.entries;
    expect(stored).toMatchObject({ method: "GET", account: "acme", profile: "main", event: "view", visitorId: "j-1" });
    expect(stored?.at).toBe(new Date(stored?.atMs as number).toISOString());
    expect(stored?.decision).toMatchObject({ source: "visitor_id" });
    expect(refused).toMatchObject({ status: 400, reason: "unknownAccountOrProfile", account: "nobody" });
    expect(bot).toMatchObject({ outcome: "bot", event: "crawl", account: "acme" });

    const after = (await (await client.get(`/admin/events/journal?after=${stored?.id}&limit=1`)).json()) as {
      entries: Array<{ id: number }>;
      lastId: number;
    };
    expect(after.entries.map((entry) => entry.id)).toEqual([refused?.id as number]);
    expect(after.lastId).toBe(refused?.id as number);
  });

  it("refuses a limit out of range with 400 1400 naming it, and answers 401 without the admin token", async () => {
    const service = await open();
    const client = clientOf(service);
    const refused = await client.get("/admin/events/journal?limit=0");
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      returnCode: 1400,
      message: 'Invalid request submission. Invalid limit: must be a whole number from 1 to 1000, not "0".',
    });
    for (const path of [
      "/admin/events/journal",
      "/admin/events/live",
      "/admin/events/1",
      "/admin/accounts/acme/profiles/main/visitors?visitorId=x",
    ])
      expect([path, (await client.call(path)).status]).toEqual([path, 401]);
  });
});

describe("the live feed (GET /admin/events/live)", () => {
  it("streams each new outcome as `id`, `event: collect` and the entry's JSON, replaying nothing unless asked", async () => {
    const service = await open();
    const client = clientOf(service);
    await client.collect("svc_visitor_id=before");
    const response = await client.get("/admin/events/live");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const feed = messagesOf(response.body as ReadableStream<Uint8Array>);
    expect(await feed.next()).toBe(": connected");
    await client.collect("svc_visitor_id=after&svc_event=view");
    const message = entryOf(await feed.next());
    expect(message.event).toBe("collect");
    expect(message.data).toMatchObject({ id: Number(message.id), outcome: "stored", visitorId: "after" });
    await feed.cancel();
    expect(service.deps.collector.journal.listenerCount).toBe(0);
    expect(service.deps.eventStreams.openCount).toBe(0);
  });

  it("replays the last n entries (?replay), or those after Last-Event-ID (or ?after) before going on", async () => {
    const service = await open();
    const client = clientOf(service);
    for (const visitor of ["r-1", "r-2", "r-3"]) await client.collect(`svc_visitor_id=${visitor}`);
    const ids = service.deps.collector.journal.latest(3).map((entry) => String(entry.id));

    const replayed = messagesOf((await client.get("/admin/events/live?replay=2")).body as ReadableStream<Uint8Array>);
    expect(await replayed.next()).toBe(": connected");
    expect([entryOf(await replayed.next()).id, entryOf(await replayed.next()).id]).toEqual(ids.slice(1));
    await replayed.cancel();

    const resumed = messagesOf(
      (await client.get("/admin/events/live?after=0&replay=1", { "last-event-id": ids[0] as string }))
        .body as ReadableStream<Uint8Array>,
    );
    await resumed.next();
    expect([entryOf(await resumed.next()).id, entryOf(await resumed.next()).id]).toEqual(ids.slice(1));
    await client.collect("svc_visitor_id=r-4");
    expect(entryOf(await resumed.next()).data).toMatchObject({ visitorId: "r-4" });
    await resumed.cancel();

    const byQuery = messagesOf(
      (await client.get(`/admin/events/live?after=${ids[1]}`)).body as ReadableStream<Uint8Array>,
    );
    await byQuery.next();
    expect(entryOf(await byQuery.next()).id).toBe(ids[2] as string);
    await byQuery.cancel();
  });

  it("refuses a replay over 1000 or a Last-Event-ID that is not a number with 400 1400 naming it", async () => {
    const service = await open();
    const client = clientOf(service);
    const replay = await client.get("/admin/events/live?replay=1001");
    expect([replay.status, ((await replay.json()) as { message: string }).message]).toEqual([
      400,
      'Invalid request submission. Invalid replay: must be a whole number from 0 to 1000, not "1001".',
    ]);
    const header = await client.get("/admin/events/live", { "last-event-id": "abc" });
    expect(header.status).toBe(400);
    expect(((await header.json()) as { message: string }).message).toContain("Invalid Last-Event-ID");
    expect(service.deps.collector.journal.listenerCount).toBe(0);
  });

  it("on a listening server: each message arrives at once, and the feed ends when its reader goes or the server stops", async () => {
    const service = await open();
    const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => service.app.handle(request) });
    cleanups.push(() => server.stop(true));
    const client = clientOf(service, `http://127.0.0.1:${server.port}`);

    const reading = new AbortController();
    const response = await fetch(`http://127.0.0.1:${server.port}/admin/events/live`, {
      headers: { ...admin, accept: "text/event-stream" },
      signal: reading.signal,
    });
    const feed = messagesOf(response.body as ReadableStream<Uint8Array>);
    expect(await feed.next()).toBe(": connected");
    for (const visitor of ["s-1", "s-2"]) {
      await client.collect(`svc_visitor_id=${visitor}`);
      // Each within a second of its event, not held back for a later one or the end.
      expect(entryOf(await feed.next(1_000)).data).toMatchObject({ visitorId: visitor });
    }
    reading.abort();
    await eventually(() => service.deps.collector.journal.listenerCount === 0);
    expect(service.deps.eventStreams.openCount).toBe(0);

    const second = await fetch(`http://127.0.0.1:${server.port}/admin/events/live`, { headers: admin });
    const kept = messagesOf(second.body as ReadableStream<Uint8Array>);
    expect(await kept.next()).toBe(": connected");
    expect(service.deps.eventStreams.openCount).toBe(1);
    service.endStreams();
    expect(await kept.next()).toBeNull();
    expect(service.deps.collector.journal.listenerCount).toBe(0);
    // Nothing left open: a graceful stop ends at once.
    const stopped = await Promise.race([server.stop().then(() => "stopped"), Bun.sleep(2_000).then(() => "waiting")]);
    expect(stopped).toBe("stopped");
  });
});

describe("an event explained (GET /admin/events/:seq)", () => {
  it("[DEC-COL-09] gives the event as GET /admin/events shows it, the journal's decision and the profile's changes", async () => {
    const service = await open();
    const client = clientOf(service);
    await client.collect("svc_visitor_id=e-1&svc_event=view");
    await client.collect("svc_visitor_id=e-1&svc_event=purchase&email_address=eve@example.com");
    await client.wait();
    const listed = (await (await client.get("/admin/events?visitor=e-1&order=desc&limit=1")).json()) as {
      events: Array<{ seq: number }>;
    };
    const [latest] = listed.events;
    const explained = (await (await client.get(`/admin/events/${latest?.seq}`)).json()) as {
      event: unknown;
      decision: { source: string; tapidCookie: string | null };
      decisionKnown: string;
      profileChanges: { visitorId: string; changes: Array<{ kind: string; id: unknown; from: unknown; to: unknown }> };
    };
    expect(explained.event).toEqual(latest);
    expect(explained.decisionKnown).toBe("journal");
    // No cookie sent: svc_visitor_id won, and the answer wrote the TAPID (DEC-COL-10).
    expect(explained.decision.source).toBe("visitor_id");
    expect(explained.decision.tapidCookie).toStartWith("TAPID=acme/main>e-1|");
    expect(explained.profileChanges.visitorId).toBe("__acme_main__5120_eve@example.com__");
    expect(explained.profileChanges.changes).toEqual(
      expect.arrayContaining([
        { kind: "visitorIdAttribute", id: 5120, name: "email_address", from: null, to: "eve@example.com" },
        { kind: "attribute", id: 5203, name: "Has purchased", from: null, to: true },
        { kind: "badge", id: 5205, name: "Buyer", from: false, to: true },
        { kind: "audience", id: 7, name: "Purchasers", from: false, to: true },
      ]),
    );
  });

  it("answers 404 1404 for an unknown sequence number and 400 1400 for one that is not a number", async () => {
    const service = await open();
    const client = clientOf(service);
    const unknown = await client.get("/admin/events/999999");
    expect([unknown.status, await unknown.json()]).toEqual([
      404,
      { returnCode: 1404, message: "Event 999999 does not exist" },
    ]);
    expect((await client.get("/admin/events/abc")).status).toBe(400);
  });
});

describe("a visitor looked up (GET /admin/accounts/:account/profiles/:profile/visitors)", () => {
  it("[VID-08, MOM-08] by visitorId or by a visitor ID attribute's name: group, profile, events and engines", async () => {
    const service = await open();
    const client = clientOf(service);
    await client.collect("svc_visitor_id=l-1&svc_event=view");
    await client.collect("svc_visitor_id=l-1&svc_event=purchase&email_address=lou@example.com");
    await client.wait();
    const base = "/admin/accounts/acme/profiles/main/visitors";
    const byId = (await (await client.get(`${base}?visitorId=l-1`)).json()) as Record<string, unknown>;
    const byAttribute = (await (
      await client.get(`${base}?attribute=email_address&value=${encodeURIComponent("lou@example.com")}`)
    ).json()) as Record<string, unknown>;
    expect(byAttribute).toEqual(byId);
    expect(byId.visitorId).toBe("__acme_main__5120_lou@example.com__");
    expect(byId.members).toEqual(["__acme_main__5120_lou@example.com__", "l-1"]);
    expect((byId.events as Array<{ event: string; receivedAt: string }>).map((event) => event.event)).toEqual([
      "purchase",
      "view",
    ]);
    const engines = byId.engines as Array<{ id: string; status: number; answer: unknown; note: string | null }>;
    expect(engines.find((engine) => engine.id === "demo-engine")).toMatchObject({
      status: 200,
      note: null,
      answer: { audiences: ["Purchasers"], badges: ["Buyer"] },
    });
    expect(engines.find((engine) => engine.id === "disabled-engine")).toMatchObject({ status: 403, answer: null });
    // MOM-11: the engines never answer a PII attribute; the console's profile shows it, marked.
    expect(JSON.stringify(engines)).not.toContain("lou@example.com");
    expect((byId.profile as { visitCount: number }).visitCount).toBe(1);
  });

  it("answers 400 1400 naming the parameter, 404 1250 for an unknown profile, 404 1404 for an unknown visitor", async () => {
    const service = await open();
    const client = clientOf(service);
    const base = "/admin/accounts/acme/profiles/main/visitors";
    const neither = await client.get(base);
    expect([neither.status, ((await neither.json()) as { message: string }).message]).toEqual([
      400,
      "Invalid request submission. Invalid visitorId: is required, or attribute and value.",
    ]);
    const unknownAttribute = await client.get(`${base}?attribute=phone&value=1`);
    expect(((await unknownAttribute.json()) as { message: string }).message).toContain("Invalid attribute");
    const profile = await client.get("/admin/accounts/acme/profiles/nothing/visitors?visitorId=x");
    expect([profile.status, await profile.json()]).toEqual([
      404,
      { returnCode: 1250, message: "Profile was not found" },
    ]);
    const visitor = await client.get(`${base}?visitorId=nobody-at-all`);
    expect([visitor.status, await visitor.json()]).toEqual([404, { returnCode: 1404, message: "Visitor not found" }]);
  });
});

describe("the OpenAPI document", () => {
  it("lists the console's routes with their statuses, tagged admin and console", async () => {
    const service = await open();
    const document = (await (await clientOf(service).get("/openapi.json")).json()) as {
      paths: Record<string, Record<string, { tags: string[]; responses: Record<string, { content?: object }> }>>;
    };
    const expected: Record<string, string[]> = {
      "/admin/events/live": ["200", "400", "401"],
      "/admin/events/journal": ["200", "400", "401"],
      "/admin/events/{seq}": ["200", "400", "401", "404"],
      "/admin/accounts/{account}/profiles/{profile}/visitors": ["200", "400", "401", "404"],
    };
    for (const [path, statuses] of Object.entries(expected)) {
      const operation = document.paths[path]?.get;
      expect([path, operation?.tags]).toEqual([path, ["admin", "console"]]);
      expect([path, Object.keys(operation?.responses ?? {}).sort()]).toEqual([path, statuses]);
    }
    expect(Object.keys(document.paths["/admin/events/live"]?.get?.responses["200"]?.content ?? {})).toEqual([
      "text/event-stream",
    ]);
  });
});
