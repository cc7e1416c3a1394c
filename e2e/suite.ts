/**
 * What every browser suite starts before its tests and stops after them: svc-hub, the page server of the other
 * sites and Chromium, started together (the first run on a fresh machine installs Chromium from Debian,
 * tools/ensure-chromium.ts: minutes, once).
 */
import { afterAll, beforeAll } from "bun:test";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type LaunchedBrowser, launchChromium } from "./chromium.ts";
import { type PageServer, startPageServer } from "./pages.ts";
import { type Service, type ServiceOptions, startService } from "./service.ts";

export interface BrowserSuite {
  readonly service: Service;
  readonly pages: PageServer;
  readonly browser: LaunchedBrowser;
}

/**
 * Registers the suite's start and stop; answers what the tests use, once started. `outputDir` (screenshots) is
 * made, and with `clearScreenshots` the PNGs of an earlier run in it are removed; `service` is how svc-hub is
 * started (its timing preset).
 */
export function browserSuite(options: {
  readonly outputDir: string;
  readonly clearScreenshots?: boolean;
  readonly service?: ServiceOptions;
}): () => BrowserSuite {
  let service: Service | null = null;
  let pages: PageServer | null = null;
  let browser: LaunchedBrowser | null = null;
  beforeAll(async () => {
    mkdirSync(options.outputDir, { recursive: true });
    if (options.clearScreenshots)
      for (const file of readdirSync(options.outputDir))
        if (file.endsWith(".png")) rmSync(join(options.outputDir, file));
    pages = startPageServer();
    [service, browser] = await Promise.all([startService(options.service), launchChromium()]);
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    pages?.stop();
    const code = await service?.stop();
    if (code !== undefined && code !== 0) throw new Error(`the server exited with code ${code}`);
  });
  return () => {
    if (!service || !pages || !browser) throw new Error("the suite did not start (see beforeAll)");
    return { service, pages, browser };
  };
}
