/**
 * The documentation's relative links: every `[text](path)`, `[text](path#anchor)` and `[text](#anchor)` of
 * README.md, CONTRIBUTING.md, SECURITY.md, docs/ and conformance/ names a file or folder that exists and, with an anchor, a
 * heading of that file (GitHub's slugs). Links inside code (fenced blocks, inline code) are not links. And the
 * README stays short enough to read on a screen.
 */
import { describe, expect, it } from "bun:test";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");

/** The pages checked: the three at the root and every Markdown file under docs/ and conformance/. */
function documentationPages(base: string): string[] {
  const pages = ["README.md", "CONTRIBUTING.md", "SECURITY.md"].map((name) => join(base, name));
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".md")) pages.push(path);
    }
  };
  walk(join(base, "docs"));
  walk(join(base, "conformance"));
  return pages;
}

/** The text outside fenced code blocks, one entry per line (a fenced line becomes empty, keeping line numbers). */
function proseLines(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split("\n").map((line) => {
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && opening) {
      fence = opening;
      return "";
    }
    if (fence !== null) {
      if (line.trimStart().startsWith(fence)) fence = null;
      return "";
    }
    return line;
  });
}

/** A heading's anchor as GitHub makes it: the text as shown, lower-cased, punctuation dropped, spaces to `-`. */
function githubSlug(heading: string): string {
  const shown = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1") // a link shows its text
    .replace(/`/g, "")
    .replace(/<[^>]+>/g, "");
  return shown
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a page's headings; a repeated slug gets `-1`, `-2`… as on GitHub. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = githubSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

interface Link {
  line: number;
  target: string;
}

/** The relative links of a page: `[text](target)` outside code, without URLs with a scheme or mail addresses. */
function relativeLinks(markdown: string): Link[] {
  const links: Link[] = [];
  proseLines(markdown).forEach((text, index) => {
    const prose = text.replace(/(`+)[^`]*?\1/g, ""); // inline code is not a link
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = match[1] ?? "";
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) continue;
      links.push({ line: index + 1, target });
    }
  });
  return links;
}

/** Why each relative link of the page is broken: the file it names is missing, or the anchor is no heading of it. */
function brokenLinks(page: string, base: string): string[] {
  const problems: string[] = [];
  const where = relative(base, page);
  for (const { line, target } of relativeLinks(readFileSync(page, "utf8"))) {
    const hash = target.indexOf("#");
    const path = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
    const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
    const file = path === "" ? page : resolve(dirname(page), path);
    if (!existsSync(file)) {
      problems.push(`${where}:${line}: ${target}: no file ${relative(base, file)}`);
      continue;
    }
    if (anchor === null) continue;
    if (statSync(file).isDirectory() || !file.endsWith(".md")) {
      problems.push(`${where}:${line}: ${target}: an anchor, but ${relative(base, file)} is not a Markdown file`);
      continue;
    }
    if (!anchorsOf(readFileSync(file, "utf8")).has(anchor.toLowerCase()))
      problems.push(`${where}:${line}: ${target}: no heading #${anchor} in ${relative(base, file)}`);
  }
  return problems;
}

describe("the documentation's links", () => {
  it("checks the root pages and every page under docs/ and conformance/", () => {
    const pages = documentationPages(root).map((page) => relative(root, page));
    expect(pages).toContain("README.md");
    expect(pages).toContain("CONTRIBUTING.md");
    expect(pages).toContain("SECURITY.md");
    expect(pages.filter((page) => page.startsWith("docs/")).length).toBeGreaterThan(10);
    expect(pages).toContain("conformance/README.md");
    expect(pages).toContain("conformance/INTERPRETING.md");
  });

  it("every relative link names a file that exists, and with an anchor a heading of it", () => {
    const pages = documentationPages(root);
    const links = pages.flatMap((page) => relativeLinks(readFileSync(page, "utf8")));
    expect(links.length).toBeGreaterThan(50);
    expect(links.filter((link) => link.target.includes("#")).length).toBeGreaterThan(20);
    expect(pages.flatMap((page) => brokenLinks(page, root))).toEqual([]);
  });

  it("makes anchors as GitHub does", () => {
    expect(githubSlug("Health, readiness and the OpenAPI document")).toBe("health-readiness-and-the-openapi-document");
    expect(githubSlug("Found by an adversarial probe, and what now stops it")).toBe(
      "found-by-an-adversarial-probe-and-what-now-stops-it",
    );
    expect(githubSlug("Waiting: `POST /admin/wait`")).toBe("waiting-post-adminwait");
    expect(githubSlug("Dependencies and why")).toBe("dependencies-and-why");
    expect(githubSlug("Visitors, stitching and profiles")).toBe("visitors-stitching-and-profiles");
    expect(githubSlug("snake_case and `--flags`")).toBe("snake_case-and---flags");
    expect([...anchorsOf("# A\n\n## Notes\n\n```sh\n# not a heading\n```\n\n## Notes\n")]).toEqual([
      "a",
      "notes",
      "notes-1",
    ]);
  });

  it("finds the links of prose only, and reports a broken file or anchor", () => {
    const markdown = [
      "See [the tour](README.md#a-60-second-tour), [a page](docs/nowhere.md) and [here](#nothing).",
      "`[code](#not-a-link)` and <https://example.com> and [web](https://example.com/x#y).",
      "```md",
      "[inside a fence](#not-a-link-either)",
      "```",
    ].join("\n");
    expect(relativeLinks(markdown)).toEqual([
      { line: 1, target: "README.md#a-60-second-tour" },
      { line: 1, target: "docs/nowhere.md" },
      { line: 1, target: "#nothing" },
    ]);

    const base = mkdtempSync(join(tmpdir(), "docs-links-"));
    try {
      mkdirSync(join(base, "docs", "api"), { recursive: true });
      writeFileSync(join(base, "docs", "api", "page.md"), "# Page\n\n## The data directory\n");
      writeFileSync(
        join(base, "README.md"),
        [
          "# Title",
          "[ok](docs/api/page.md#the-data-directory) [ok](#title) [ok](docs/) [ok](docs/api/page.md)",
          "[missing file](docs/api/gone.md) [missing anchor](docs/api/page.md#the-data) [here](#nothing)",
        ].join("\n"),
      );
      expect(brokenLinks(join(base, "README.md"), base)).toEqual([
        "README.md:3: docs/api/gone.md: no file docs/api/gone.md",
        "README.md:3: docs/api/page.md#the-data: no heading #the-data in docs/api/page.md",
        "README.md:3: #nothing: no heading #nothing in README.md",
      ]);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe("README.md", () => {
  it("is under 10 KB (10,240 bytes), so that it can be read on a screen", () => {
    expect(statSync(join(root, "README.md")).size).toBeLessThan(10_240);
  });

  it("opens with the two commands: npm install && npm start, then npm test", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    expect(readme.split("\n").slice(0, 6).join("\n")).toBe(
      "# svc-hub\n\n```sh\nnpm install && npm start\nnpm test\n```",
    );
  });
});
