import { describe, expect, it } from "bun:test";
import {
  browserSuiteWhenUnavailable,
  type ChromiumHost,
  ChromiumUnavailableError,
  chromiumPath,
  ensureChromium,
} from "./ensure-chromium.ts";

const host = (overrides: Partial<ChromiumHost> & { readonly files?: readonly string[] }): ChromiumHost => {
  const files = new Set(overrides.files ?? []);
  return {
    path: chromiumPath,
    exists: (path) => files.has(path),
    platform: overrides.platform ?? "linux",
    uid: "uid" in overrides ? overrides.uid : 1000,
  };
};
const quiet = () => undefined;

describe("Chromium for the browser suite", () => {
  it("is Debian's when installed", async () => {
    expect(await ensureChromium(quiet, host({ files: [chromiumPath] }))).toBe(chromiumPath);
  });

  it("cannot be had without apt-get or without root: a ChromiumUnavailableError that says what to do", async () => {
    const withoutApt = ensureChromium(quiet, host({ platform: "darwin" }));
    await expect(withoutApt).rejects.toBeInstanceOf(ChromiumUnavailableError);
    await expect(withoutApt).rejects.toThrow("not a Debian-like system");
    const notRoot = ensureChromium(quiet, host({ files: ["/usr/bin/apt-get"], uid: 1000 }));
    await expect(notRoot).rejects.toBeInstanceOf(ChromiumUnavailableError);
    await expect(notRoot).rejects.toThrow("installing it needs root (this process runs as uid 1000)");
  });

  it("where it cannot be had, npm test skips the suite on a contributor's machine and fails it in CI", () => {
    expect(browserSuiteWhenUnavailable({})).toBe("skip");
    expect(browserSuiteWhenUnavailable({ CI: "" })).toBe("skip");
    expect(browserSuiteWhenUnavailable({ CI: "false" })).toBe("skip");
    expect(browserSuiteWhenUnavailable({ CI: "true" })).toBe("fail");
    expect(browserSuiteWhenUnavailable({ CI: "1" })).toBe("fail");
    expect(browserSuiteWhenUnavailable({ SVC_REQUIRE_BROWSER: "1" })).toBe("fail");
  });
});
