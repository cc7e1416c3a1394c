/**
 * svc-hub's OCI image, built from the Dockerfile with podman as a user builds it, and run as a user runs it
 * (`bun tools/test-all.ts image`, which runs tools/ensure-podman.ts first: podman, its settings, the base image).
 *
 * Issue 41, second "Done when" point: the image is built with podman, run with a volume, passes the whole
 * conformance suite, finds its data after `podman restart`, stops within 2 s with exit code 0, and its size is
 * checked. The containers, the volume and the image made here are removed afterwards; the base image is kept.
 */
import { afterAll, beforeAll, describe, expect, it, setDefaultTimeout } from "bun:test";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import packageJson from "../package.json" with { type: "json" };
import { svcHubDemoArgs } from "../tools/conformance-server.ts";

const root = resolve(import.meta.dir, "..");
// Building the executable and the image, and the whole conformance suite, take minutes on a busy machine: the
// limits below catch a hang, they measure nothing.
setDefaultTimeout(120_000);

/** 200 MB as `docker images` and `podman images` show sizes (decimal megabytes). */
const maxImageBytes = 200_000_000;
/** The grace `podman stop` gives before SIGKILL: a server still running after it would exit 137, not 0. */
const stopGraceSeconds = 2;

const run = crypto.randomUUID().slice(0, 8);
const image = `localhost/svc-hub-image-test:${run}`;
const container = `svc-hub-image-test-${run}`;
const volume = `svc-hub-image-test-${run}`;
const adminToken = `image-${crypto.randomUUID()}`;
const admin = { authorization: `Bearer ${adminToken}` };

interface Finished {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end; its output kept, not shown. */
async function runQuietly(command: readonly string[]): Promise<Finished> {
  const child = Bun.spawn([...command], { cwd: root, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}

/** Runs a command with its output shown as it comes (a build, the conformance suite); its exit code. */
async function runShown(command: readonly string[]): Promise<number> {
  process.stdout.write(`$ ${command.join(" ")}\n`);
  return Bun.spawn([...command], { cwd: root, stdout: "inherit", stderr: "inherit" }).exited;
}

async function podman(...args: string[]): Promise<string> {
  const finished = await runQuietly(["podman", ...args]);
  if (finished.code !== 0)
    throw new Error(`podman ${args.join(" ")} exited with ${finished.code}: ${finished.stderr}${finished.stdout}`);
  return finished.stdout.trim();
}

/** The container's state as `podman inspect` gives it. */
async function stateOf(name: string): Promise<{ Status: string; ExitCode: number; Running: boolean }> {
  return JSON.parse(await podman("inspect", "--format", "{{json .State}}", name));
}

/** The URL the container's port 8080 is published on, on 127.0.0.1 (a free port podman chose). */
async function urlOf(name: string): Promise<string> {
  return `http://${await podman("port", name, "8080")}`;
}

/**
 * Once GET /readyz answers 200 (asked every 100 ms); fails with the container's log if it stops or is not ready
 * within a minute (a start takes well under a second on a quiet machine: the minute only catches a hang).
 */
async function waitUntilReady(name: string): Promise<string> {
  const url = await urlOf(name);
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    const ready = await fetch(`${url}/readyz`).then(
      (answer) => answer.status === 200,
      () => false,
    );
    if (ready) return url;
    if (!(await stateOf(name)).Running) break;
    await Bun.sleep(100);
  }
  const log = await runQuietly(["podman", "logs", name]);
  throw new Error(`${name} did not become ready:\n${log.stdout}${log.stderr}`);
}

/** The stored events of acme/main with this trace id (GET /admin/events). */
async function storedEvents(url: string, traceId: string): Promise<Array<{ traceId: string; visitorId: string }>> {
  const answer = await fetch(`${url}/admin/events?account=acme&profile=main&traceId=${traceId}`, { headers: admin });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { events: Array<{ traceId: string; visitorId: string }> }).events;
}

beforeAll(async () => {
  // The executable the Dockerfile copies, built from this tree as `npm run build:exe` builds it.
  expect(await runShown(["npm", "run", "build:exe"])).toBe(0);
  // --format docker: the OCI format has no HEALTHCHECK, and podman would drop it (docker build keeps it as is).
  const built = await runShown([
    "podman",
    "build",
    "--network=host",
    "--format",
    "docker",
    "--layers=false",
    "--pull=never",
    "--build-arg",
    `VERSION=${packageJson.version}`,
    "--build-arg",
    `REVISION=${(await runQuietly(["git", "rev-parse", "HEAD"])).stdout.trim() || "unknown"}`,
    "--build-arg",
    `CREATED=${new Date().toISOString()}`,
    "--tag",
    image,
    ".",
  ]);
  expect(built).toBe(0);
  await podman("volume", "create", volume);
}, 600_000);

afterAll(async () => {
  await runQuietly(["podman", "rm", "--force", "--time", "0", container]);
  await runQuietly(["podman", "volume", "rm", "--force", volume]);
  await runQuietly(["podman", "rmi", "--force", image]);
});

describe("svc-hub's image", () => {
  it("is at most 200 MB", async () => {
    const bytes = Number(await podman("image", "inspect", "--format", "{{.Size}}", image));
    process.stdout.write(`image size: ${bytes} bytes (${(bytes / 1e6).toFixed(1)} MB)\n`);
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(maxImageBytes);
  });

  it("runs as a user of its own on port 8080, keeps /data in a volume, checks its health with its own command, and says what it is", async () => {
    const [inspected] = JSON.parse(await podman("image", "inspect", image)) as Array<{
      Config: {
        User: string;
        ExposedPorts: Record<string, unknown>;
        Volumes: Record<string, unknown>;
        Env: string[];
        StopSignal: string;
        Entrypoint: string[];
        Labels: Record<string, string>;
      };
      Healthcheck?: { Test: string[] };
    }>;
    const config = inspected?.Config as NonNullable<typeof inspected>["Config"];
    expect(config.User).toBe("svc-hub");
    expect(Object.keys(config.ExposedPorts)).toEqual(["8080/tcp"]);
    expect(Object.keys(config.Volumes)).toEqual(["/data"]);
    expect(config.Env).toEqual(expect.arrayContaining(["PORT=8080", "SVC_HOST=0.0.0.0", "SVC_DATA_DIR=/data"]));
    // Exec form: no shell, nor curl, in between.
    expect(inspected?.Healthcheck?.Test).toEqual(["CMD", "/usr/local/bin/svc-hub", "health"]);
    expect(config.StopSignal).toBe("SIGTERM");
    expect(config.Entrypoint).toEqual(["/usr/local/bin/svc-hub"]);
    expect(config.Labels).toMatchObject({
      "org.opencontainers.image.title": "svc-hub",
      "org.opencontainers.image.version": packageJson.version,
    });
    expect(config.Labels["org.opencontainers.image.revision"]).toMatch(/^[0-9a-f]{40}$/);
  });

  it("run with a volume, is healthy and passes the whole conformance suite", async () => {
    await podman(
      "run",
      "--detach",
      "--name",
      container,
      "--volume",
      `${volume}:/data`,
      // A free port of the host, chosen by podman: nothing to race for.
      "--publish",
      "127.0.0.1::8080",
      "--env",
      `SVC_ADMIN_TOKEN=${adminToken}`,
      image,
    );
    const url = await waitUntilReady(container);
    // The image's own health check, as the container runtime runs it (exit 0: healthy).
    expect((await runQuietly(["podman", "healthcheck", "run", container])).code).toBe(0);
    const reportDir = join(root, "test-output", "image-conformance");
    mkdirSync(reportDir, { recursive: true });
    const code = await runShown([
      join(root, "node_modules", ".bin", "bun"),
      "harness/cli.ts",
      "--target",
      url,
      ...svcHubDemoArgs(root, adminToken),
      "--report-dir",
      reportDir,
    ]);
    expect(code).toBe(0);
  }, 600_000);

  it("finds what it stored after `podman restart`", async () => {
    const traceId = `image-restart-${run}`;
    const before = await urlOf(container);
    const collected = await fetch(
      `${before}/event?svc_account=acme&svc_profile=main&svc_visitor_id=image-${run}&svc_event=view&svc_trace_id=${traceId}`,
    );
    // 200: committed, the event is acknowledged only once stored.
    expect(collected.status).toBe(200);
    expect(await storedEvents(before, traceId)).toHaveLength(1);

    await podman("restart", container);
    const after = await waitUntilReady(container);
    expect(await storedEvents(after, traceId)).toEqual([expect.objectContaining({ visitorId: `image-${run}` })]);
  });

  it("stops on SIGTERM as PID 1 within 2 s, with exit code 0", async () => {
    const started = performance.now();
    await podman("stop", "--time", String(stopGraceSeconds), container);
    const stoppedMs = Math.round(performance.now() - started);
    process.stdout.write(`podman stop took ${stoppedMs} ms\n`);
    // After the grace podman sends SIGKILL, and the exit code is 137: 0 says the server stopped on SIGTERM in time.
    expect(await stateOf(container)).toMatchObject({ Status: "exited", ExitCode: 0 });
    const log = await runQuietly(["podman", "logs", container]);
    expect(log.stdout).toContain('"msg":"stopping","signal":"SIGTERM"');
  });
});
