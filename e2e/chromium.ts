/**
 * Debian's Chromium, started through playwright-core, set up like an ordinary desktop browser as far as the
 * service can tell: a normal Chrome User-Agent (a HeadlessChrome one is filtered as a bot, DEC-COL-06) and a
 * profile that allows third-party cookies (see CONTRIBUTING.md, "The browser end-to-end suite").
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { ensureChromium } from "../tools/ensure-chromium.ts";
import { waitLimitMs } from "./limits.ts";

/** A page outside the demo engine's allow list. It resolves to loopback like every name the browser may use. */
export const outsideHost = "notallowed.test";

export const desktopUserAgent =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36";

/** Whether the browser's profile allows third-party cookies (its `profile.cookie_controls_mode`: 0 or 1). */
export type CookieControls = "allow-third-party" | "block-third-party";

export interface LaunchedBrowser {
  /** The persistent context, on the profile that decides third-party cookies. */
  readonly context: BrowserContext;
  /**
   * A fresh off-the-record context in the same browser, for a test that must leave nothing behind: closing it
   * releases its pages, requests and responses at once. It has the desktop User-Agent; its third-party cookies
   * are blocked whatever the profile says (see launchChromium).
   */
  newContext(): Promise<BrowserContext>;
  close(): Promise<void>;
}

const args = [
  // Also for the browser as a whole: requests that outlive their page (a beacon sent on pagehide) do not
  // carry the page's User-Agent override and would go out as HeadlessChrome.
  `--user-agent=${desktopUserAgent}`,
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  // Loopback only: the page host outside the allow list goes to 127.0.0.1, every other name to nowhere.
  `--host-resolver-rules=MAP ${outsideHost} 127.0.0.1, EXCLUDE localhost, EXCLUDE 127.0.0.1, MAP * ~NOTFOUND`,
];

/**
 * Playwright's client throws this when a message of its driver names an object the client does not hold (a
 * fault of its protocol, https://github.com/microsoft/playwright/issues/22210, met on a busy machine).
 */
export const driverLostObject = /^Object with guid \S+ was not bound in the connection$/;

/**
 * A persistent context on a fresh profile directory (removed on close). Left to its defaults, this headless
 * Chromium refuses third-party cookies (DevTools gives the reason UserPreferences), in Playwright's
 * off-the-record `browser.newContext()` and in a fresh profile alike; the profile's
 * `profile.cookie_controls_mode` preference (0 allow, 1 block) decides, and only a persistent profile has one.
 */
export async function launchChromium(cookies: CookieControls = "allow-third-party"): Promise<LaunchedBrowser> {
  const executablePath = await ensureChromium();
  const userDataDir = mkdtempSync(join(tmpdir(), "svc-hub-chromium-"));
  mkdirSync(join(userDataDir, "Default"));
  writeFileSync(
    join(userDataDir, "Default", "Preferences"),
    JSON.stringify({ profile: { cookie_controls_mode: cookies === "allow-third-party" ? 0 : 1 } }),
  );
  try {
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath,
      args,
      userAgent: desktopUserAgent,
      timeout: waitLimitMs,
    });
    context.setDefaultTimeout(waitLimitMs);
    const browser = context.browser();
    if (!browser) throw new Error("Chromium's persistent context has no browser to open other contexts in");
    return {
      context,
      async newContext() {
        const fresh = await browser.newContext({ userAgent: desktopUserAgent });
        fresh.setDefaultTimeout(waitLimitMs);
        return fresh;
      },
      async close() {
        await context.close();
        rmSync(userDataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw error;
  }
}
