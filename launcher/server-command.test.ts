import { describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { findBun, serverCommand, serverEntry } from "./server-command.mjs";

describe("the command that runs the server", () => {
  it("finds the Bun binary of the bun package (through its bin field), which runs as that package's version", () => {
    const manifest = JSON.parse(readFileSync(createRequire(import.meta.url).resolve("bun/package.json"), "utf8")) as {
      version: string;
    };
    const ran = Bun.spawnSync([findBun(), "--version"]);
    expect(ran.stdout.toString().trim()).toBe(manifest.version);
  });

  it("runs the server's entry point, without the working directory's .env files or bunfig.toml", () => {
    const { args } = serverCommand();
    expect(args.at(-1)).toBe(serverEntry);
    expect(serverEntry).toEndWith("adapters/server/main.ts");
    expect(args).toContain("--no-env-file");
    expect(args.find((arg) => arg.startsWith("--config="))).toEndWith("/bunfig.toml");
  });
});
