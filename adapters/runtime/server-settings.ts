/**
 * The server's environment variables, read and checked before anything starts. An empty variable is unset,
 * for every one of them: a compose file's `PORT=` or an unset `${VAR}` arrives as the empty string.
 */
import { defaultRequestJournalBytes } from "../../core/testing-tools/index.ts";
import { type TimingPresetName, timingPresetNames } from "../../core/timing/index.ts";
import { type LogFormat, type LogLevel, logFormats, logLevels } from "./logger.ts";
import { compileProxyTrust } from "./proxy-trust.ts";

export type Env = Readonly<Record<string, string | undefined>>;

/** A variable's value, or undefined when it is unset or empty. */
export function settingOf(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === "" ? undefined : value;
}

/** A variable whose value the server cannot take; the message names it, its value and what it takes. */
export class SettingRefused extends Error {}

export interface ServerSettings {
  readonly port: number;
  readonly host: string;
  /** SVC_TIMING, overriding the configuration file's `timing`; undefined leaves the file's. */
  readonly timing: TimingPresetName | undefined;
  readonly storeKind: "libsql" | "memory" | "postgres";
  /** SVC_DATABASE_URL: the PostgreSQL database of SVC_STORE=postgres (required then, refused otherwise). */
  readonly databaseUrl: string | undefined;
  /** SVC_BACKGROUND: background work in a thread of its own (the default) rather than on the HTTP thread. */
  readonly backgroundThread: boolean;
  /** SVC_ADMIN_TOKEN; undefined keeps the one in the store (made at first start). */
  readonly adminToken: string | undefined;
  /** SVC_LOG_LEVEL: the least severe level logged (`warn` leaves the request lines out, `debug` adds detail). */
  readonly logLevel: LogLevel;
  /** SVC_LOG_FORMAT: JSON lines (the default) or `pretty`, one readable line an entry for a terminal. */
  readonly logFormat: LogFormat;
  /** SVC_TRUSTED_PROXIES: the proxies whose X-Forwarded-For names the client (none unless listed). */
  readonly trustedProxies: readonly string[];
  /** SVC_PRINT_EVENTS: each outcome of the collection endpoint also written on stdout, one JSON line each. */
  readonly printEvents: boolean;
  /** SVC_REQUEST_JOURNAL_BYTES: the request journal's byte budget (GET /admin/requests); 0 turns it off. */
  readonly requestJournalBytes: number;
}

/** Shortest SVC_ADMIN_TOKEN taken: failed tries are not slowed down, so the token's length is its only guard. */
export const minimumAdminTokenLength = 16;

/**
 * PORT, SVC_HOST, SVC_TIMING, SVC_STORE, SVC_DATABASE_URL, SVC_BACKGROUND, SVC_ADMIN_TOKEN, SVC_LOG_LEVEL, SVC_LOG_FORMAT,
 * SVC_TRUSTED_PROXIES, SVC_PRINT_EVENTS and SVC_REQUEST_JOURNAL_BYTES; throws SettingRefused on the first bad one.
 */
export function readServerSettings(env: Env): ServerSettings {
  const storeKind = oneOf("SVC_STORE", settingOf(env, "SVC_STORE") ?? "libsql", [
    "libsql",
    "memory",
    "postgres",
  ] as const);
  return {
    port: readPort(settingOf(env, "PORT") ?? "8080"),
    // Never every interface unless asked for by name.
    host: settingOf(env, "SVC_HOST") ?? "127.0.0.1",
    timing: readTiming(settingOf(env, "SVC_TIMING")),
    storeKind,
    databaseUrl: readDatabaseUrl(storeKind, settingOf(env, "SVC_DATABASE_URL")),
    backgroundThread:
      oneOf("SVC_BACKGROUND", settingOf(env, "SVC_BACKGROUND") ?? "thread", ["thread", "inline"] as const) === "thread",
    adminToken: readAdminToken(settingOf(env, "SVC_ADMIN_TOKEN")),
    logLevel: oneOf("SVC_LOG_LEVEL", settingOf(env, "SVC_LOG_LEVEL") ?? "info", logLevels),
    logFormat: oneOf("SVC_LOG_FORMAT", settingOf(env, "SVC_LOG_FORMAT") ?? "json", logFormats),
    trustedProxies: readTrustedProxies(settingOf(env, "SVC_TRUSTED_PROXIES")),
    printEvents:
      oneOf("SVC_PRINT_EVENTS", settingOf(env, "SVC_PRINT_EVENTS") ?? "false", ["true", "false"] as const) === "true",
    requestJournalBytes: readJournalBytes(settingOf(env, "SVC_REQUEST_JOURNAL_BYTES")),
  };
}

const byteUnits: Readonly<Record<string, number>> = { "": 1, KiB: 1024, MiB: 1024 ** 2 };
/** The largest request journal taken: it lives in the server's memory. */
const maxJournalBytes = 1024 ** 3;

/** A whole number of bytes, or of KiB or MiB (`512KiB`, `16MiB`), up to 1 GiB; 0 turns the journal off. */
function readJournalBytes(raw: string | undefined): number {
  if (raw === undefined) return defaultRequestJournalBytes;
  const parsed = /^(\d+)(KiB|MiB)?$/.exec(raw);
  const bytes = parsed ? Number(parsed[1]) * (byteUnits[parsed[2] ?? ""] as number) : Number.NaN;
  if (!(bytes <= maxJournalBytes))
    throw new SettingRefused(
      `SVC_REQUEST_JOURNAL_BYTES must be a whole number of bytes, KiB or MiB (4MiB), at most 1024MiB, or 0 to turn the request journal off, not "${raw}"`,
    );
  return bytes;
}

/**
 * A comma-separated list of addresses, CIDR ranges and the names loopback, linklocal and uniquelocal; each
 * entry is checked here, so a typo stops the start instead of trusting nothing (or too much) in silence.
 */
function readTrustedProxies(raw: string | undefined): readonly string[] {
  if (raw === undefined) return [];
  const entries = raw.split(",").map((entry) => entry.trim());
  for (const entry of entries) {
    try {
      compileProxyTrust([entry]);
    } catch {
      throw new SettingRefused(
        `SVC_TRUSTED_PROXIES must list IP addresses, CIDR ranges (10.0.0.0/8) or loopback, linklocal, uniquelocal, separated by commas; "${entry}" is none of them`,
      );
    }
  }
  return entries;
}

/**
 * A postgres:// or postgresql:// URL, required with SVC_STORE=postgres; with another store it would be ignored,
 * which is worth stopping for (the operator believes the service writes to that database).
 */
function readDatabaseUrl(storeKind: ServerSettings["storeKind"], raw: string | undefined): string | undefined {
  if (storeKind !== "postgres") {
    if (raw !== undefined)
      throw new SettingRefused(
        `SVC_DATABASE_URL is set, but SVC_STORE is ${storeKind}, which does not use it: set SVC_STORE=postgres, or unset SVC_DATABASE_URL`,
      );
    return undefined;
  }
  if (raw === undefined)
    throw new SettingRefused(
      "SVC_STORE=postgres needs SVC_DATABASE_URL, the database to use (postgres://user:password@host:5432/database)",
    );
  let parsed: URL | null = null;
  try {
    parsed = new URL(raw);
  } catch {
    parsed = null;
  }
  if (!parsed || (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") || parsed.hostname === "")
    throw new SettingRefused(
      "SVC_DATABASE_URL must be a postgres:// URL with a host (postgres://user:password@host:5432/database)",
    );
  return raw;
}

function readPort(raw: string): number {
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535)
    throw new SettingRefused(`PORT must be a number from 0 to 65535, not "${raw}"`);
  return port;
}

function readTiming(raw: string | undefined): TimingPresetName | undefined {
  if (raw === undefined) return undefined;
  if (!(timingPresetNames as readonly string[]).includes(raw))
    throw new SettingRefused(`SVC_TIMING must be one of ${timingPresetNames.join(", ")}, not "${raw}"`);
  return raw as TimingPresetName;
}

function oneOf<const T extends string>(name: string, raw: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(raw))
    throw new SettingRefused(`${name} must be ${allowed.join(" or ")}, not "${raw}"`);
  return raw as T;
}

/**
 * At least 16 characters, all visible ASCII, as `Authorization: Bearer <token>` can carry it (a space or a
 * character beyond ASCII would make a token no request can present).
 */
function readAdminToken(token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  if (!/^[\x21-\x7e]+$/.test(token))
    throw new SettingRefused(
      "SVC_ADMIN_TOKEN must be visible ASCII characters only (no spaces), as an Authorization header carries it",
    );
  if (token.length < minimumAdminTokenLength) {
    throw new SettingRefused(
      `SVC_ADMIN_TOKEN must be at least ${minimumAdminTokenLength} characters long, not ${token.length}: failed tries are not slowed down`,
    );
  }
  return token;
}
