/**
 * The browser end-to-end suite: svc-hub as a real process on http://127.0.0.1:<p1>, test pages on
 * http://localhost:<p2> (another origin and another site), driven in Debian's Chromium through
 * playwright-core. Pixels, credentialed cross-origin posts, sendBeacon, the TAPID third-party cookie, moments
 * lookups and hosted data layers, the way a web page uses them. What happened is read through what the page
 * sees and through svc-hub's admin API. A failing test leaves a screenshot in test-output/e2e/<test>.png.
 *
 *   bun test ./e2e/browser.e2e.ts       (npm run test:e2e; also a suite of npm test)
 */
import { expect, test } from "bun:test";
import { join, resolve } from "node:path";
import type { BrowserContext, Cookie, Page, Request, Response } from "playwright-core";
import { type CookieControls, launchChromium, outsideHost } from "./chromium.ts";
import { testLimitMs, waitLimitMs } from "./limits.ts";
import { escapeHtml, html } from "./pages.ts";
import type { StoredEvent } from "./service.ts";
import { browserSuite } from "./suite.ts";

const outputDir = join(resolve(import.meta.dir, ".."), "test-output", "e2e");

const ready = browserSuite({ outputDir, clearScreenshots: true });

function fileNameOf(title: string): string {
  return title
    .replace(/[^A-Za-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 120);
}

/**
 * A test with a fresh page and no cookies left from the tests before; when it fails, a full-page
 * screenshot of where the page was goes to test-output/e2e/<title>.png.
 */
function browserTest(
  title: string,
  body: (page: Page, context: BrowserContext) => Promise<void>,
  options: { cookies?: CookieControls } = {},
): void {
  test(
    title,
    async () => {
      // The suite's browser allows third-party cookies; a test that needs another setting gets its own.
      const own =
        options.cookies && options.cookies !== "allow-third-party" ? await launchChromium(options.cookies) : null;
      try {
        const { context } = own ?? ready().browser;
        await context.clearCookies();
        const page = await context.newPage();
        try {
          await body(page, context);
        } catch (error) {
          await page
            .screenshot({ path: join(outputDir, `${fileNameOf(title)}.png`), fullPage: true })
            .catch(() => undefined);
          throw error;
        } finally {
          await page.close();
        }
      } finally {
        await own?.close();
      }
    },
    testLimitMs,
  );
}

const uniqueId = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 12)}`;

/** The collection endpoint's address with these parameters. */
function eventUrl(params: Record<string, string>): string {
  return `${ready().service.url}/event?${new URLSearchParams(params)}`;
}

/** Opens a new test page (on localhost unless told) holding this body. */
async function open(page: Page, body: string, options: { head?: string; host?: string } = {}): Promise<string> {
  const { pages } = ready();
  const url = pages.url(pages.add(html(body, options.head)), options.host);
  await page.goto(url);
  return url;
}

/** Opens a page whose `<img>` is this pixel, and waits until the 1x1 GIF has loaded. */
async function pixel(page: Page, params: Record<string, string>): Promise<void> {
  const src = escapeHtml(eventUrl({ ...params, cb: String(Math.random()).slice(2) }));
  await open(page, `<img id="pixel" alt="" src="${src}"><p>pixel: ${src}</p>`);
  await page.waitForFunction(
    () => {
      const image = document.getElementById("pixel") as HTMLImageElement;
      return image.complete && image.naturalWidth === 1;
    },
    undefined,
    { timeout: waitLimitMs },
  );
}

interface PageAnswer {
  status: number;
  xError: string | null;
  text: string;
}

/** A fetch made by the page's own script, as a site would make it. */
async function fetchFromPage(
  page: Page,
  url: string,
  init: { method?: string; credentials?: RequestCredentials; json?: unknown } = {},
): Promise<PageAnswer> {
  return page.evaluate(
    async ({ url, init }) => {
      const answer = await fetch(url, {
        method: init.method ?? "GET",
        credentials: init.credentials ?? "include",
        ...(init.json === undefined
          ? {}
          : { headers: { "content-type": "application/json" }, body: JSON.stringify(init.json) }),
      });
      const text = await answer.text();
      (window as unknown as { note: (text: string) => void }).note(
        `${init.method ?? "GET"} ${url} -> ${answer.status} ${text}`,
      );
      return { status: answer.status, xError: answer.headers.get("x-error"), text };
    },
    { url, init },
  );
}

/** The TAPID cookie the browser keeps for the service's origin, or null. */
async function tapidCookie(): Promise<Cookie | null> {
  const { browser, service } = ready();
  return (await browser.context.cookies(service.url)).find((cookie) => cookie.name === "TAPID") ?? null;
}

/** The one event stored with this svc_trace_id (the page waited for the answer, and 200 means committed). */
async function storedOnce(traceId: string): Promise<StoredEvent> {
  const events = await ready().service.events(traceId);
  expect(events.length).toBe(1);
  return events[0] as StoredEvent;
}

/** The visitor ID the event got, and where it came from (DEC-COL-09). */
async function identityOf(traceId: string): Promise<[string, string]> {
  const event = await storedOnce(traceId);
  return [event.visitorId, event.visitorIdSource];
}

const acme = { svc_account: "acme", svc_profile: "main" };
const globex = { svc_account: "globex", svc_profile: "main" };

browserTest(
  "[COL-01, COL-11, COL-12, DEC-COL-03, DEC-COL-05] an <img> pixel with a cache-buster records the event with the page's host as svc_referrer_host",
  async (page) => {
    const traceId = uniqueId("pixel");
    await pixel(page, { ...acme, svc_event: "page_view", page_name: "Home", svc_trace_id: traceId });
    const event = await storedOnce(traceId);
    expect(event.event).toBe("page_view");
    expect(event.data.page_name).toBe("Home");
    expect(event.data.svc_referrer_host).toBe("localhost");
    expect(Object.keys(event.data)).not.toContain("cb");
  },
);

browserTest(
  "[COL-02, COL-10, DEC-COL-12] a credentialed JSON fetch from another site passes CORS (preflight, Origin echoed) and is stored",
  async (page) => {
    const { service } = ready();
    const pageUrl = await open(page, "<p>checkout</p>");
    const traceId = uniqueId("fetch");
    const answered = page.waitForResponse(
      (response) => response.url() === `${service.url}/event` && response.request().method() === "POST",
    );
    const answer = await fetchFromPage(page, `${service.url}/event`, {
      method: "POST",
      json: { ...acme, svc_event: "purchase", svc_trace_id: traceId, amount: 19.99, items: [{ sku: "X-1" }] },
    });
    expect(answer).toEqual({ status: 200, xError: null, text: "" });
    const headers = await (await answered).allHeaders();
    expect(headers["access-control-allow-origin"]).toBe(new URL(pageUrl).origin);
    expect(headers["access-control-allow-credentials"]).toBe("true");
    expect(headers.vary).toMatch(/\bOrigin\b/);
    const event = await storedOnce(traceId);
    expect([event.event, event.data.amount, event.data.items]).toEqual(["purchase", 19.99, [{ sku: "X-1" }]]);
  },
);

browserTest(
  "[COL-04, DEC-COL-01, DEC-COL-12] a page reads the X-Error of a refused cross-origin post",
  async (page) => {
    const { service } = ready();
    await open(page, "<p>form</p>");
    const answer = await fetchFromPage(page, `${service.url}/event`, {
      method: "POST",
      json: { svc_profile: "main", svc_event: "signup" },
    });
    expect(answer).toEqual({
      status: 400,
      xError: "Missing required svc_account or svc_profile param value",
      text: "",
    });
  },
);

browserTest(
  "[DEC-COL-04, DEC-COL-09] navigator.sendBeacon on pagehide is stored after the visitor has left, with the visitor of the TAPID cookie",
  async (page) => {
    const traceId = uniqueId("beacon");
    const viewTrace = uniqueId("beacon-view");
    const beacon = JSON.stringify({ ...acme, svc_event: "page_exit", svc_trace_id: traceId, seconds_on_page: 42 });
    await open(
      page,
      `<img id="pixel" alt="" src="${escapeHtml(eventUrl({ ...acme, svc_event: "page_view", svc_trace_id: viewTrace }))}">
     <script>
       addEventListener("pagehide", function () { navigator.sendBeacon(${JSON.stringify(`${ready().service.url}/event`)}, ${JSON.stringify(beacon)}); });
     </script>`,
    );
    await page.waitForFunction(
      () => (document.getElementById("pixel") as HTMLImageElement).naturalWidth === 1,
      undefined,
      { timeout: waitLimitMs },
    );
    await open(page, "<p>the next page</p>");
    const event = await ready().service.eventually(traceId);
    const view = await storedOnce(viewTrace);
    expect([event.event, event.data.seconds_on_page]).toEqual(["page_exit", 42]);
    expect([event.visitorId, event.visitorIdSource]).toEqual([view.visitorId, "tapid"]);
  },
);

browserTest(
  "[DEC-COL-09, DEC-COL-10] the TAPID cookie is kept for the collect origin (HttpOnly, Secure, SameSite=None) and names the visitor of the next events",
  async (page) => {
    const { service } = ready();
    const first = uniqueId("tapid-first");
    await pixel(page, { ...acme, svc_trace_id: first });
    const [visitor, source] = await identityOf(first);
    expect(source).toBe("new");
    const cookie = await tapidCookie();
    expect(cookie).toMatchObject({
      value: `acme/main>${visitor}|`,
      domain: "127.0.0.1",
      path: "/",
      httpOnly: true,
      secure: true,
      sameSite: "None",
    });

    const nextPixel = uniqueId("tapid-pixel");
    await pixel(page, { ...acme, svc_trace_id: nextPixel });
    const posted = uniqueId("tapid-fetch");
    expect(
      (await fetchFromPage(page, `${service.url}/event`, { method: "POST", json: { ...acme, svc_trace_id: posted } }))
        .status,
    ).toBe(200);
    for (const traceId of [nextPixel, posted]) {
      const event = await storedOnce(traceId);
      expect([event.visitorId, event.visitorIdSource, event.thirdPartyVisitorId]).toEqual([visitor, "tapid", visitor]);
    }
    // Without credentials the browser sends no cookie: a new visitor, and the answer's cookie is not kept.
    const anonymous = uniqueId("tapid-omit");
    expect(
      (
        await fetchFromPage(page, `${service.url}/event`, {
          method: "POST",
          credentials: "omit",
          json: { ...acme, svc_trace_id: anonymous },
        })
      ).status,
    ).toBe(200);
    const omitted = await storedOnce(anonymous);
    expect(omitted.visitorIdSource).toBe("new");
    expect(omitted.visitorId).not.toBe(visitor);
    expect((await tapidCookie())?.value).toBe(`acme/main>${visitor}|`);
  },
);

browserTest(
  "[DEC-COL-09, DEC-COL-10] svc_override_tapid names the visitor, is written first in TAPID, and is used by the next event",
  async (page) => {
    const acmeView = uniqueId("override-acme");
    const globexView = uniqueId("override-globex");
    await pixel(page, { ...acme, svc_trace_id: acmeView });
    await pixel(page, { ...globex, svc_trace_id: globexView });
    const globexVisitor = (await storedOnce(globexView)).visitorId;
    expect((await tapidCookie())?.value).toBe(
      `globex/main>${globexVisitor}|acme/main>${(await storedOnce(acmeView)).visitorId}|`,
    );

    const overridden = uniqueId("override");
    const override = uniqueId("crm-visitor");
    await pixel(page, { ...acme, svc_override_tapid: override, svc_trace_id: overridden });
    expect(await identityOf(overridden)).toEqual([override, "override"]);
    expect((await tapidCookie())?.value).toBe(`acme/main>${override}|globex/main>${globexVisitor}|`);

    const after = uniqueId("override-after");
    await pixel(page, { ...acme, svc_trace_id: after });
    expect(await identityOf(after)).toEqual([override, "tapid"]);
  },
);

browserTest("[DEC-COL-09, DEC-COL-10] svc_skip_3rd_party_vid_cookies neither reads nor writes TAPID", async (page) => {
  const skipped = uniqueId("skip-fresh");
  const pageVisitor = uniqueId("first-party");
  await pixel(page, {
    ...acme,
    svc_skip_3rd_party_vid_cookies: "true",
    svc_visitor_id: pageVisitor,
    svc_trace_id: skipped,
  });
  expect(await identityOf(skipped)).toEqual([pageVisitor, "visitor_id"]);
  expect(await tapidCookie()).toBeNull();

  const plain = uniqueId("skip-plain");
  await pixel(page, { ...acme, svc_trace_id: plain });
  const cookieVisitor = (await storedOnce(plain)).visitorId;
  const skippedAgain = uniqueId("skip-again");
  await pixel(page, {
    ...acme,
    svc_skip_3rd_party_vid_cookies: "true",
    svc_visitor_id: pageVisitor,
    svc_trace_id: skippedAgain,
  });
  expect((await storedOnce(skippedAgain)).visitorId).toBe(pageVisitor);
  expect((await tapidCookie())?.value).toBe(`acme/main>${cookieVisitor}|`);
});

browserTest(
  "[DEC-COL-09, DEC-COL-10] svc_delete_3rd_party_vid_cookies removes the entry, and an emptied TAPID is gone from the browser",
  async (page) => {
    const acmeView = uniqueId("delete-acme");
    const globexView = uniqueId("delete-globex");
    await pixel(page, { ...acme, svc_trace_id: acmeView });
    await pixel(page, { ...globex, svc_trace_id: globexView });
    const globexVisitor = (await storedOnce(globexView)).visitorId;

    const deleted = uniqueId("delete");
    const pageVisitor = uniqueId("page-visitor");
    await pixel(page, {
      ...acme,
      svc_delete_3rd_party_vid_cookies: "true",
      svc_visitor_id: pageVisitor,
      svc_trace_id: deleted,
    });
    expect(await identityOf(deleted)).toEqual([pageVisitor, "visitor_id"]);
    expect((await tapidCookie())?.value).toBe(`globex/main>${globexVisitor}|`);

    await pixel(page, { ...globex, svc_delete_3rd_party_vid_cookies: "true", svc_trace_id: uniqueId("delete-last") });
    expect(await tapidCookie()).toBeNull();
  },
);

const demoEngine = "/personalization/accounts/acme/profiles/main/engines/demo-engine";

browserTest(
  "[MOM-01, MOM-03, MOM-07, DEC-MOM-04] a page on an allowed origin reads its visitor's data with credentials (Referer and Origin of the page)",
  async (page) => {
    const { service } = ready();
    const pageUrl = await open(page, "<p>product page</p>");
    const visitor = uniqueId("moments-visitor");
    for (const svc_event of ["view", "purchase"]) {
      expect(
        (
          await fetchFromPage(page, `${service.url}/event`, {
            method: "POST",
            json: { ...acme, svc_visitor_id: visitor, svc_event },
          })
        ).status,
      ).toBe(200);
    }
    await service.waitForBackgroundWork();
    const asked = page.waitForRequest((request) => request.url().includes("/personalization/"));
    const answer = await fetchFromPage(page, `${service.url}${demoEngine}/visitors/${visitor}`);
    const sent = await (await asked).allHeaders();
    expect([sent.origin, sent.referer]).toEqual([new URL(pageUrl).origin, `${new URL(pageUrl).origin}/`]);
    expect(answer.status).toBe(200);
    const data = JSON.parse(answer.text);
    expect({ ...data, dates: Object.keys(data.dates) }).toEqual({
      audiences: ["Purchasers"],
      badges: ["Buyer"],
      metrics: { "Lifetime event count": 2 },
      properties: { "Last event name": "purchase" },
      flags: { "Has purchased": true },
      dates: ["Last purchase"],
    });
    expect(data.dates["Last purchase"]).toBeGreaterThan(1_500_000_000_000);
  },
);

browserTest(
  "[DEC-MOM-03] a page that does not know its visitor ID gets the data of the visitor its TAPID cookie names, unless ignoreTapid=true",
  async (page) => {
    const { service } = ready();
    const view = uniqueId("moments-tapid");
    await pixel(page, { ...acme, svc_event: "view", svc_trace_id: view });
    await pixel(page, { ...acme, svc_event: "view" });
    await pixel(page, { ...acme, svc_event: "view" });
    expect((await storedOnce(view)).visitorIdSource).toBe("new");
    await service.waitForBackgroundWork();
    const unknown = uniqueId("not-my-id");
    const answer = await fetchFromPage(page, `${service.url}${demoEngine}/visitors/${unknown}`);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).metrics).toEqual({ "Lifetime event count": 3 });
    const ignoring = await fetchFromPage(page, `${service.url}${demoEngine}/visitors/${unknown}?ignoreTapid=true`);
    expect(ignoring.status).toBe(404);
    expect(typeof JSON.parse(ignoring.text).message).toBe("string");
  },
);

browserTest(
  "[MOM-06, DEC-MOM-02] a page on a host outside the engine's allow list is refused with a 403 it can read",
  async (page) => {
    const { service } = ready();
    const path = `${service.url}${demoEngine}/visitors/${uniqueId("anyone")}?suppressNotFound=true`;
    const pageUrl = await open(page, "<p>another site</p>", { host: outsideHost });
    const asked = page.waitForRequest((request) => request.url() === path);
    const refused = await fetchFromPage(page, path);
    expect((await (await asked).allHeaders()).referer).toBe(`${new URL(pageUrl).origin}/`);
    expect(new URL(pageUrl).hostname).toBe(outsideHost);
    expect(refused.status).toBe(403);
    expect(typeof JSON.parse(refused.text).message).toBe("string");
    // The same lookup from an allowed page is served (an empty 200: nobody by that id, not found suppressed).
    await open(page, "<p>an allowed site</p>");
    expect(await fetchFromPage(page, path)).toEqual({ status: 200, xError: null, text: "" });
  },
);

browserTest(
  "[MOM-06, DEC-MOM-02] an allowed page whose Referrer-Policy is no-referrer sends no Referer and is refused with 403",
  async (page) => {
    const { service } = ready();
    await open(page, "<p>private page</p>", { head: '<meta name="referrer" content="no-referrer">' });
    const path = `${service.url}${demoEngine}/visitors/${uniqueId("anyone")}?suppressNotFound=true`;
    const asked = page.waitForRequest((request) => request.url() === path);
    const refused = await fetchFromPage(page, path);
    expect(Object.keys(await (await asked).allHeaders())).not.toContain("referer");
    expect(refused.status).toBe(403);
  },
);

interface LoadedDataLayer {
  /** What the page finds in window.utag.globals.dle.enrichments[dl_id]; null when the script did not load. */
  readonly seen: unknown;
  /** The status the service answered for the script (304 when the browser's copy was still current); null when the browser refused the answer. */
  readonly status: number | null;
  /** Whether the browser asked with If-None-Match: it had a copy, and revalidated it instead of using it. */
  readonly revalidated: boolean;
}

/**
 * How the page's next request for this URL ends: its answer, or null when the browser refused the answer
 * (a script's 404 with a JSON body is blocked by Opaque Response Blocking, and the script's onerror runs).
 */
function nextExchange(page: Page, url: string): Promise<{ response: Response | null }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => finish(() => reject(new Error(`no answer for ${url} within ${waitLimitMs} ms`))),
      waitLimitMs,
    );
    const onResponse = (response: Response) => response.url() === url && finish(() => resolve({ response }));
    const onFailed = (request: Request) => request.url() === url && finish(() => resolve({ response: null }));
    function finish(settle: () => void): void {
      clearTimeout(timer);
      page.off("response", onResponse).off("requestfailed", onFailed);
      settle();
    }
    page.on("response", onResponse).on("requestfailed", onFailed);
  });
}

/** Opens a page that includes `<script src=".../dle/acme/main/<dl_id>.js">`, as a site would. */
async function loadDataLayer(page: Page, dlId: string): Promise<LoadedDataLayer> {
  const src = `${ready().service.url}/dle/acme/main/${dlId}.js`;
  const answered = nextExchange(page, src);
  await open(
    page,
    `<script>window.dleLoaded = null;</script>
     <script src="${src}" onload="window.dleLoaded = true" onerror="window.dleLoaded = false"></script>
     <script>note(JSON.stringify(((window.utag || {}).globals || {}).dle));</script>`,
  );
  await page.waitForFunction(() => (window as unknown as { dleLoaded: boolean | null }).dleLoaded !== null, undefined, {
    timeout: waitLimitMs,
  });
  const { response } = await answered;
  const seen = await page.evaluate((id) => {
    const loaded = (window as unknown as { dleLoaded: boolean }).dleLoaded;
    const utag = (window as unknown as { utag?: { globals?: { dle?: { enrichments?: Record<string, unknown> } } } })
      .utag;
    return loaded
      ? (utag?.globals?.dle?.enrichments?.[id] ?? "loaded, but not in window.utag.globals.dle.enrichments")
      : null;
  }, dlId);
  return {
    seen,
    status: response?.status() ?? null,
    revalidated: response !== null && "if-none-match" in (await response.request().allHeaders()),
  };
}

browserTest(
  "[DEC-DLE-07] a page that loads a hosted data layer script sees the object in window.utag.globals.dle.enrichments, and the new one after a change",
  async (page) => {
    const { service } = ready();
    const dlId = uniqueId("homepage");
    const first = { page: { type: "home", tags: ["a", "b"] }, campaign: "spring", grüße: "😀" };
    await service.publishDataLayer(dlId, first, "POST");
    expect(await loadDataLayer(page, dlId)).toEqual({ seen: first, status: 200, revalidated: false });
    // The JSON form, read cross-origin without credentials (Access-Control-Allow-Origin: *).
    expect(
      JSON.parse(
        (await fetchFromPage(page, `${service.url}/dle/acme/main/${dlId}.json`, { credentials: "omit" })).text,
      ),
    ).toEqual(first);

    // Cache-Control: public, no-cache with an ETag: the browser keeps the script but revalidates it on every
    // page (a 304 while it is current), so a completed change shows on the next page at once.
    expect(await loadDataLayer(page, dlId)).toEqual({ seen: first, status: 304, revalidated: true });
    const second = { page: { type: "home" }, campaign: "summer" };
    await service.publishDataLayer(dlId, second, "PUT");
    expect(await loadDataLayer(page, dlId)).toEqual({ seen: second, status: 200, revalidated: true });

    await service.publishDataLayer(dlId, undefined, "DELETE");
    expect((await loadDataLayer(page, dlId)).seen).toBeNull();
    expect((await fetchFromPage(page, `${service.url}/dle/acme/main/${dlId}.js`, { credentials: "omit" })).status).toBe(
      404,
    );
  },
);

browserTest(
  "[DEC-COL-09] in a browser that blocks third-party cookies the pixel is still stored, each page view as a new visitor unless the page names one",
  async (page, context) => {
    const traces = [uniqueId("blocked"), uniqueId("blocked")];
    for (const traceId of traces) await pixel(page, { ...acme, svc_trace_id: traceId });
    const [one, two] = await Promise.all(traces.map(storedOnce));
    expect([one?.visitorIdSource, two?.visitorIdSource]).toEqual(["new", "new"]);
    expect(one?.visitorId).not.toBe(two?.visitorId);
    expect(await context.cookies(ready().service.url)).toEqual([]);
    // What such a site does instead: it names the visitor from its own (first-party) cookie.
    const named = uniqueId("blocked-named");
    await pixel(page, { ...acme, svc_firstparty_visitor_id: "first-party-id", svc_trace_id: named });
    expect(await identityOf(named)).toEqual(["first-party-id", "first_party"]);
  },
  { cookies: "block-third-party" },
);
