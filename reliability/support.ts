import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { demoConfigPath } from "../adapters/config/demo-config.ts";

/** The demo user's stored password hash, from the demo configuration (password demo-password-1). */
function demoPasswordHash(): string {
  const demo = JSON.parse(readFileSync(demoConfigPath, "utf8")) as {
    users: Array<{ email: string; password: { hash: string } }>;
  };
  const user = demo.users.find((entry) => entry.email === "demo@example.com");
  if (!user) throw new Error("the demo configuration has no demo@example.com");
  return user.password.hash;
}

/**
 * A small configuration for load tests: acme/main, the demo user, and the collection limits (events per
 * second, a source's bytes per second) raised so the test measures the service rather than the limits. Written into `dataDir`; answers its path.
 */
export function writeLoadTestConfig(dataDir: string): string {
  const configPath = join(dataDir, "svc.config.json");
  writeFileSync(
    configPath,
    JSON.stringify({
      limits: { collectEventsPerSecond: 1_000_000, collectBytesPerSourcePerSecond: 1024 ** 4 },
      accounts: [{ name: "acme", profiles: [{ name: "main" }] }],
      users: [
        {
          email: "demo@example.com",
          password: { hash: demoPasswordHash() },
          grants: [{ account: "acme", profiles: "*" }],
        },
      ],
    }),
  );
  return configPath;
}

/** VmRSS and VmHWM (the peak) of a process, in bytes, from /proc: what the memory tests hold to a bound. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib("VmRSS"), peak: kib("VmHWM") };
}

/** Bytes as megabytes (MiB) with one decimal, for the memory tests' messages. */
export const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
