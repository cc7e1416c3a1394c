import { describe, expect, it } from "bun:test";
import { createJsonLogger, createLogger, type LogFormat, type LogLevel, redactSecrets } from "./logger.ts";

const at = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

function capture(least: LogLevel, format: LogFormat = "json", color = false) {
  const lines: string[] = [];
  const logger = createLogger({ write: (line) => void lines.push(line), now: () => at, least, format, color });
  return { logger, lines };
}

describe("the logger (issue 33: levels down to debug, redaction, readable output)", () => {
  it("writes each level from the least one chosen up, debug included", () => {
    const { logger, lines } = capture("debug");
    logger.debug("d");
    logger.info("i");
    logger.warn("w");
    logger.error("e");
    expect(lines.map((line) => JSON.parse(line).level)).toEqual(["debug", "info", "warn", "error"]);
    const quiet = capture("info");
    quiet.logger.debug("left out");
    quiet.logger.info("kept");
    expect(quiet.lines).toHaveLength(1);
    const warnings = capture("warn");
    warnings.logger.info("left out");
    warnings.logger.error("kept");
    expect(warnings.lines.map((line) => JSON.parse(line).msg)).toEqual(["kept"]);
  });

  it("JSON lines by default, unchanged in shape: time, level, msg, then the fields in their order", () => {
    const lines: string[] = [];
    createJsonLogger(
      (line) => void lines.push(line),
      () => at,
    ).info("request", { method: "GET", status: 200, ms: 1.5 });
    expect(lines).toEqual([
      '{"time":"2026-01-02T03:04:05.678Z","level":"info","msg":"request","method":"GET","status":200,"ms":1.5}\n',
    ]);
  });

  it("redacts the value of every field named for a secret, at any depth, in both formats", () => {
    const fields = {
      email: "ann@example.com",
      password: "hunter2-secret",
      utk: "utk-value-1",
      headers: { Authorization: "Bearer abc.def", cookie: "JSESSIONID=s3cr3t", "x-api-key": "key-1" },
      apiKey: "demo-key-0001-acme",
      adminToken: "admin-token-value",
      clientSecret: "client-secret-value",
      list: [{ accessToken: "jwt-value" }],
      token: null,
    };
    for (const format of ["json", "pretty"] as const) {
      const { logger, lines } = capture("info", format);
      logger.warn("login", fields);
      const text = lines.join("");
      for (const secret of [
        "hunter2",
        "utk-value-1",
        "abc.def",
        "s3cr3t",
        "key-1",
        "demo-key",
        "admin-token",
        "client-secret",
        "jwt-value",
      ])
        expect(text).not.toContain(secret);
      expect(text).toContain("ann@example.com");
      expect(text).toContain("[redacted]");
    }
    const { logger, lines } = capture("info");
    logger.info("login", fields);
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({
      password: "[redacted]",
      utk: "[redacted]",
      headers: { Authorization: "[redacted]", cookie: "[redacted]", "x-api-key": "[redacted]" },
      list: [{ accessToken: "[redacted]" }],
      token: null,
    });
  });

  it("keeps fields that only name secrets' owners: the demo credentials' warning lists users and key ids", () => {
    const { logger, lines } = capture("info");
    logger.warn("the store holds the demo's users", { credentials: ["demo@example.com", "API key demo-key-0001"] });
    expect(JSON.parse(lines[0] ?? "").credentials).toEqual(["demo@example.com", "API key demo-key-0001"]);
  });

  it("leaves fields without a secret as they are (the request line allocates nothing more)", () => {
    const fields = { method: "GET", path: "/event", status: 200, nested: { ms: 1 } };
    expect(redactSecrets(fields)).toBe(fields);
  });

  it("SVC_LOG_FORMAT=pretty: one readable line an entry with the time, the level, the message and the fields", () => {
    const { logger, lines } = capture("debug", "pretty");
    logger.info("request", { method: "GET", path: "/healthz", status: 200, ms: 0.4 });
    logger.error("request failed", { error: "Error: it broke\nat line 2", missing: undefined });
    expect(lines).toEqual([
      "03:04:05.678 INFO  request method=GET path=/healthz status=200 ms=0.4\n",
      '03:04:05.678 ERROR request failed error="Error: it broke\\nat line 2"\n',
    ]);
  });

  it("pretty lines in a terminal colour their level", () => {
    const { logger, lines } = capture("info", "pretty", true);
    logger.warn("slow");
    expect(lines[0]).toBe("03:04:05.678 \x1b[33mWARN \x1b[0m slow\n");
  });
});
