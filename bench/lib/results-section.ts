/** One section of bench/RESULTS.md, written by the script that measures it and left alone by the others. */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";

const resultsPath = resolve(import.meta.dir, "..", "RESULTS.md");

/**
 * Replaces the section that starts with `heading` (a whole line, `## ...`) up to the next `## `, or appends it
 * when RESULTS.md has none. `section` starts with the heading.
 */
export function writeResultsSection(heading: string, section: string, path = resultsPath): void {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    text = "# Benchmark results\n";
  }
  const start = text.search(new RegExp(`^${heading.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, "m"));
  if (start === -1) text = `${text.trimEnd()}\n\n${section}`;
  else {
    const next = text.indexOf("\n## ", start + 1);
    // A blank line between this section and the next, however the section ends.
    text = `${text.slice(0, start)}${next === -1 ? section : `${section.trimEnd()}\n\n${text.slice(next + 1)}`}`;
  }
  writeFileSync(path, text.endsWith("\n") ? text : `${text}\n`);
}
