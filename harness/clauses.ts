/**
 * A catalogue of testable statements: every clause ID of the interface (clauses.md) and every decision ID
 * (decisions.md), with its section and text. Reports list coverage against it, ID by ID. The scenarios bring
 * theirs (svc-hub's: conformance/clauses.json, exported by conformance/index.ts as clauseCatalogue): the engine
 * holds none of its own.
 */
export interface ClauseEntry {
  readonly id: string;
  readonly kind: "clause" | "decision";
  readonly section: string;
  readonly text: string;
}

const clauseRow = /^\| ([A-Z]{3}(?:-ERR)?-\d{2}) \| (.+) \|\s*$/;
const decisionItem = /^- (DEC-[A-Z]{3}-\d{2}) (.*)$/;

/** Reads the two spec files into one list: clauses first, in document order, then decisions. */
export function parseClauseCatalogue(clausesMarkdown: string, decisionsMarkdown: string): ClauseEntry[] {
  const entries: ClauseEntry[] = [];
  let section = "";
  for (const line of clausesMarkdown.split("\n")) {
    if (line.startsWith("## ")) section = line.slice(3).trim();
    const match = clauseRow.exec(line);
    if (match) entries.push({ id: match[1] as string, kind: "clause", section, text: (match[2] as string).trim() });
  }
  section = "";
  let current: { id: string; section: string; lines: string[] } | null = null;
  const flush = () => {
    if (current)
      entries.push({
        id: current.id,
        kind: "decision",
        section: current.section,
        text: current.lines.join(" ").replace(/\s+/g, " ").trim(),
      });
    current = null;
  };
  for (const line of decisionsMarkdown.split("\n")) {
    if (line.startsWith("## ")) {
      flush();
      section = line.slice(3).trim();
      continue;
    }
    const match = decisionItem.exec(line);
    if (match) {
      flush();
      current = { id: match[1] as string, section, lines: [match[2] as string] };
    } else if (current && /^\s+\S/.test(line)) {
      current.lines.push(line.trim());
    } else if (current && line.trim() === "") {
      flush();
    }
  }
  flush();
  return entries;
}

/**
 * A catalogue of the IDs alone (no section, no text), for scenarios that bring none: every ID they name, clauses
 * first, then decisions (`DEC-...`), each in the order first named.
 */
export function catalogueOfIds(ids: Iterable<string>): ClauseEntry[] {
  const unique = [...new Set(ids)];
  const entry = (id: string): ClauseEntry => ({
    id,
    kind: id.startsWith("DEC-") ? "decision" : "clause",
    section: "",
    text: "",
  });
  return [...unique.filter((id) => !id.startsWith("DEC-")), ...unique.filter((id) => id.startsWith("DEC-"))].map(entry);
}
