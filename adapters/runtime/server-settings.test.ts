/** The server's environment variables (docs/running-it-yourself.md, "Environment variables"): defaults, refusals, and an empty value as unset. */
import { describe, expect, it } from "bun:test";
import { dataDirFromEnv } from "./paths.ts";
import { readServerSettings, SettingRefused } from "./server-settings.ts";

describe("the server's environment variables", () => {
  it("unset, each takes its default", () => {
    expect(readServerSettings({})).toEqual({
      port: 8080,
      host: "127.0.0.1",
      timing: undefined,
      storeKind: "libsql",
      databaseUrl: undefined,
      backgroundThread: true,
      adminToken: undefined,
      logLevel: "info",
      logFormat: "json",
      trustedProxies: [],
      printEvents: false,
      requestJournalBytes: 4 * 1024 * 1024,
    });
  });

  // biome-ignore lint/suspicious/noTemplateCurlyInString: names a compose file's ${VAR}, not a template
  it("empty, each is unset, as a compose file's `PORT=` or an unset ${VAR} arrives", () => {
    const empty = {
      PORT: "",
      SVC_HOST: "",
      SVC_TIMING: "",
      SVC_STORE: "",
      SVC_DATABASE_URL: "",
      SVC_BACKGROUND: "",
      SVC_ADMIN_TOKEN: "",
      SVC_LOG_LEVEL: "",
      SVC_LOG_FORMAT: "",
      SVC_TRUSTED_PROXIES: "",
      SVC_PRINT_EVENTS: "",
      SVC_REQUEST_JOURNAL_BYTES: "",
    };
    expect(readServerSettings(empty)).toEqual(readServerSettings({}));
    expect(dataDirFromEnv({ SVC_DATA_DIR: "" })).toBe(dataDirFromEnv({}));
  });

  it("set, each is taken", () => {
    const settings = readServerSettings({
      PORT: "0",
      SVC_HOST: "0.0.0.0",
      SVC_TIMING: "instant",
      SVC_STORE: "memory",
      SVC_BACKGROUND: "inline",
      SVC_ADMIN_TOKEN: "a-token-of-16-ch",
      SVC_LOG_LEVEL: "warn",
      SVC_LOG_FORMAT: "pretty",
      SVC_TRUSTED_PROXIES: "loopback, 10.0.0.0/8,fd00::1",
      SVC_PRINT_EVENTS: "true",
      SVC_REQUEST_JOURNAL_BYTES: "0",
    });
    expect(settings).toEqual({
      port: 0,
      host: "0.0.0.0",
      timing: "instant",
      storeKind: "memory",
      databaseUrl: undefined,
      backgroundThread: false,
      adminToken: "a-token-of-16-ch",
      logLevel: "warn",
      logFormat: "pretty",
      trustedProxies: ["loopback", "10.0.0.0/8", "fd00::1"],
      printEvents: true,
      requestJournalBytes: 0,
    });
    expect(readServerSettings({ SVC_PRINT_EVENTS: "false" }).printEvents).toBe(false);
    const journalBytes = (value: string) =>
      readServerSettings({ SVC_REQUEST_JOURNAL_BYTES: value }).requestJournalBytes;
    expect([journalBytes("65536"), journalBytes("512KiB"), journalBytes("16MiB"), journalBytes("1024MiB")]).toEqual([
      65536,
      512 * 1024,
      16 * 1024 * 1024,
      1024 ** 3,
    ]);
  });

  it("SVC_STORE=postgres takes the database named by SVC_DATABASE_URL", () => {
    const settings = readServerSettings({ SVC_STORE: "postgres", SVC_DATABASE_URL: "postgresql://svc:pw@db:5432/svc" });
    expect([settings.storeKind, settings.databaseUrl]).toEqual(["postgres", "postgresql://svc:pw@db:5432/svc"]);
  });

  it("a value it cannot take is refused with a message naming the variable, the value and what it takes", () => {
    const refusals: Array<[Record<string, string>, string]> = [
      [{ PORT: "80a" }, 'PORT must be a number from 0 to 65535, not "80a"'],
      [{ PORT: "65536" }, 'PORT must be a number from 0 to 65535, not "65536"'],
      [{ SVC_TIMING: "slow" }, 'SVC_TIMING must be one of instant, fast, realistic, not "slow"'],
      [{ SVC_STORE: "mysql" }, 'SVC_STORE must be libsql or memory or postgres, not "mysql"'],
      [
        { SVC_STORE: "postgres" },
        "SVC_STORE=postgres needs SVC_DATABASE_URL, the database to use (postgres://user:password@host:5432/database)",
      ],
      [
        { SVC_STORE: "postgres", SVC_DATABASE_URL: "mysql://db/svc" },
        "SVC_DATABASE_URL must be a postgres:// URL with a host (postgres://user:password@host:5432/database)",
      ],
      [
        { SVC_STORE: "postgres", SVC_DATABASE_URL: "db.local:5432/svc" },
        "SVC_DATABASE_URL must be a postgres:// URL with a host (postgres://user:password@host:5432/database)",
      ],
      [
        { SVC_DATABASE_URL: "postgres://db/svc" },
        "SVC_DATABASE_URL is set, but SVC_STORE is libsql, which does not use it: set SVC_STORE=postgres, or unset SVC_DATABASE_URL",
      ],
      [{ SVC_BACKGROUND: "yes" }, 'SVC_BACKGROUND must be thread or inline, not "yes"'],
      [{ SVC_LOG_LEVEL: "trace" }, 'SVC_LOG_LEVEL must be debug or info or warn or error, not "trace"'],
      [{ SVC_LOG_FORMAT: "text" }, 'SVC_LOG_FORMAT must be json or pretty, not "text"'],
      [{ SVC_PRINT_EVENTS: "yes" }, 'SVC_PRINT_EVENTS must be true or false, not "yes"'],
      [{ SVC_PRINT_EVENTS: "TRUE" }, 'SVC_PRINT_EVENTS must be true or false, not "TRUE"'],
      ...["off", "4MB", "-1", "1.5MiB", "1025MiB", "2000000000"].map((value): [Record<string, string>, string] => [
        { SVC_REQUEST_JOURNAL_BYTES: value },
        `SVC_REQUEST_JOURNAL_BYTES must be a whole number of bytes, KiB or MiB (4MiB), at most 1024MiB, or 0 to turn the request journal off, not "${value}"`,
      ]),
      [
        { SVC_TRUSTED_PROXIES: "10.0.0.0/8,proxy.local" },
        'SVC_TRUSTED_PROXIES must list IP addresses, CIDR ranges (10.0.0.0/8) or loopback, linklocal, uniquelocal, separated by commas; "proxy.local" is none of them',
      ],
      [
        { SVC_TRUSTED_PROXIES: "10.0.0.0/33" },
        'SVC_TRUSTED_PROXIES must list IP addresses, CIDR ranges (10.0.0.0/8) or loopback, linklocal, uniquelocal, separated by commas; "10.0.0.0/33" is none of them',
      ],
      [
        { SVC_ADMIN_TOKEN: "short" },
        "SVC_ADMIN_TOKEN must be at least 16 characters long, not 5: failed tries are not slowed down",
      ],
      [
        { SVC_ADMIN_TOKEN: "sixteen chars here" },
        "SVC_ADMIN_TOKEN must be visible ASCII characters only (no spaces), as an Authorization header carries it",
      ],
    ];
    for (const [env, message] of refusals) {
      expect(() => readServerSettings(env)).toThrow(new SettingRefused(message));
    }
  });
});
