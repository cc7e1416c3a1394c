import { describe, expect, it } from "bun:test";
import { PackageUnavailableError } from "./debian-package.ts";
import { cacheDirOf, debianMirrorOf, ensurePodman, withContainersSettings } from "./ensure-podman.ts";

const quiet = () => undefined;

describe("containers.conf for podman as root without systemd", () => {
  it("an empty or missing file gets both tables", () => {
    expect(withContainersSettings("")).toBe(
      '[containers]\ndefault_ulimits = []\n\n[engine]\ncgroup_manager = "cgroupfs"\nruntime = "runc"\n',
    );
  });

  it("keeps every other setting and comment, and changes a value in place, an array over several lines whole", () => {
    const before = [
      "# site settings",
      "[containers]",
      'log_driver = "k8s-file"',
      "default_ulimits = [",
      '  "nofile=65535:65535",',
      "]",
      'tz = "UTC"',
      "",
      "[engine]",
      'cgroup_manager = "systemd"',
      'events_logger = "file"',
      "",
      "[network]",
      'network_backend = "netavark"',
    ].join("\n");
    expect(withContainersSettings(`${before}\n`)).toBe(
      `${[
        "# site settings",
        "[containers]",
        'log_driver = "k8s-file"',
        "default_ulimits = []",
        'tz = "UTC"',
        "",
        "[engine]",
        'runtime = "runc"',
        'cgroup_manager = "cgroupfs"',
        'events_logger = "file"',
        "",
        "[network]",
        'network_backend = "netavark"',
      ].join("\n")}\n`,
    );
  });

  it("a key of the same name in another table, or commented out, is not taken for ours", () => {
    const after = withContainersSettings('[network]\nruntime = "other"\n# [engine]\n#runtime = "crun"\n');
    expect(after).toContain('[network]\nruntime = "other"\n# [engine]\n#runtime = "crun"\n');
    expect(after).toContain('[engine]\ncgroup_manager = "cgroupfs"\nruntime = "runc"\n');
  });

  it("a file that already holds the settings is left as it is", () => {
    const settled = withContainersSettings("[engine]\nnum_locks = 2048\n");
    expect(withContainersSettings(settled)).toBe(settled);
  });
});

describe("the Debian mirror debootstrap fetches from", () => {
  it("is the one of apt's bookworm source, in either format", () => {
    const deb822 = [
      "Types: deb",
      "URIs: http://mirror.example/debian-security",
      "Suites: bookworm-security",
      "",
      "Types: deb-src deb",
      "URIs: http://mirror.example/debian/",
      "Suites: bookworm bookworm-updates",
      "Components: main",
    ].join("\n");
    expect(debianMirrorOf([deb822])).toBe("http://mirror.example/debian");
    expect(
      debianMirrorOf([
        "# deb http://old.example/debian bookworm main\ndeb [arch=amd64] https://m.example/debian bookworm main\n",
      ]),
    ).toBe("https://m.example/debian");
  });

  it("is Debian's own when apt names none", () => {
    expect(debianMirrorOf(["deb https://packages.cloud.google.com/apt cloud-sdk-bookworm main\n"])).toBe(
      "http://deb.debian.org/debian",
    );
  });
});

describe("the base image's cache", () => {
  it("lives outside the clone, in the user's cache folder", () => {
    expect(cacheDirOf({ XDG_CACHE_HOME: "/var/cache/me" })).toBe("/var/cache/me/svc-hub");
    expect(cacheDirOf({})).toMatch(/\/\.cache\/svc-hub$/);
  });
});

describe("podman for the image suite", () => {
  it("cannot be had without apt-get or without root: a PackageUnavailableError that says what to do", async () => {
    const missing = { exists: () => false, platform: "linux", uid: 1000 };
    await expect(ensurePodman(quiet, { ...missing, platform: "darwin" })).rejects.toThrow("not a Debian-like system");
    const notRoot = ensurePodman(quiet, { ...missing, exists: (path) => path === "/usr/bin/apt-get" });
    await expect(notRoot).rejects.toBeInstanceOf(PackageUnavailableError);
    await expect(notRoot).rejects.toThrow("apt-get install -y podman runc debootstrap");
  });
});
