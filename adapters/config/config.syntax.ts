/**
 * Reading the text of a configuration file into plain data. Syntax errors name a line and a column; a key
 * given twice in one object is an error in both formats (YAML's parser refuses it; JSON.parse would keep the
 * last one silently, so a JSON scan finds it first). YAML merge keys (`<<: *anchor`) are allowed.
 */
import type * as Yaml from "yaml";
import type { ConfigProblem } from "../../core/config/index.ts";
import { err, ok, type Result } from "../../core/result.ts";

export type ConfigFormat = "json" | "yaml";

let yaml: typeof Yaml | undefined;

/**
 * Loads the YAML parser, which `parseConfigSyntax` needs for a YAML text (loadConfigFile calls this for a YAML
 * file). The demo's configuration and many others are JSON, and a start does not pay for a parser it does not
 * use: imported, not required, so that a bundle (the executable) keeps it in a file of its own, which a start
 * never reads unless a YAML file comes (required, it was parsed at every start: bench/FINDINGS.md, "Start").
 */
export async function loadYamlParser(): Promise<void> {
  yaml ??= await import("yaml");
}

function loadedYaml(): typeof Yaml {
  if (yaml === undefined)
    throw new Error("parseConfigSyntax: the YAML parser is not loaded; await loadYamlParser() first");
  return yaml;
}

export function parseConfigSyntax(text: string, format: ConfigFormat): Result<unknown, ConfigProblem[]> {
  const withoutBom = text.startsWith("\uFEFF") ? text.slice(1) : text;
  return format === "json" ? parseJson(withoutBom) : parseYaml(withoutBom);
}

function parseYaml(text: string): Result<unknown, ConfigProblem[]> {
  const { LineCounter, parseDocument, visit } = loadedYaml();
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, merge: true });
  if (document.errors.length > 0) {
    return err(
      document.errors.map((error) => {
        const { line, col } = lineCounter.linePos(error.pos[0]);
        return { path: "", line, column: col, message: describeYamlError(error.code, error.message) };
      }),
    );
  }
  if (document.contents === null) return err([{ path: "", line: 1, column: 1, message: "the file is empty" }]);
  try {
    return ok(document.toJS({ maxAliasCount: 1000 }));
  } catch (error) {
    // An alias without its anchor, or aliases expanding beyond reason, fail only when building the data.
    let offset = 0;
    visit(document, {
      Alias(_key, alias) {
        if (alias.resolve(document)) return undefined;
        offset = alias.range?.[0] ?? 0;
        return visit.BREAK;
      },
    });
    const { line, col } = lineCounter.linePos(offset);
    return err([{ path: "", line, column: col, message: (error as Error).message }]);
  }
}

function describeYamlError(code: string, message: string): string {
  if (code === "DUPLICATE_KEY") return "a key is given twice in the same mapping";
  if (message.startsWith("Source contains multiple documents")) return "the file holds more than one YAML document";
  return message;
}

function parseJson(text: string): Result<unknown, ConfigProblem[]> {
  const problem = scanJson(text);
  if (problem) return err([problem]);
  try {
    return ok(JSON.parse(text));
  } catch (error) {
    return err([{ path: "", line: 1, column: 1, message: (error as Error).message }]);
  }
}

/** Where JSON.parse would fail (Bun's message has no position), or the first key given twice. */
function scanJson(text: string): ConfigProblem | undefined {
  const scanner = new JsonScanner(text);
  try {
    scanner.skipSpace();
    if (scanner.atEnd()) scanner.fail("the file is empty");
    scanner.value(0);
    scanner.skipSpace();
    if (!scanner.atEnd()) scanner.fail(`unexpected ${scanner.describeNext()} after the end of the data`);
    return undefined;
  } catch (error) {
    if (!(error instanceof JsonSyntaxProblem)) throw error;
    const { line, column } = positionOf(text, error.offset);
    return { path: "", line, column, message: error.message };
  }
}

class JsonSyntaxProblem extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

const maxDepth = 512;
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON strings must not hold unescaped control characters
const stringPattern = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const numberPattern = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

class JsonScanner {
  private offset = 0;

  constructor(private readonly text: string) {}

  atEnd(): boolean {
    return this.offset >= this.text.length;
  }

  fail(message: string, offset = this.offset): never {
    throw new JsonSyntaxProblem(message, offset);
  }

  describeNext(): string {
    if (this.atEnd()) return "end of file";
    const next = this.text.slice(this.offset).match(/^[A-Za-z0-9_$.+-]+/)?.[0] ?? this.text[this.offset] ?? "";
    return `"${next.slice(0, 20)}"`;
  }

  skipSpace(): void {
    while (!this.atEnd() && " \t\n\r".includes(this.text[this.offset] ?? "")) this.offset++;
  }

  value(depth: number): void {
    if (depth > maxDepth) this.fail("the data is nested too deeply");
    this.skipSpace();
    const next = this.text[this.offset];
    if (next === "{") this.object(depth);
    else if (next === "[") this.array(depth);
    else if (next === '"') this.string();
    else if (next === "-" || (next !== undefined && next >= "0" && next <= "9")) this.token(numberPattern, "a number");
    else this.literal();
  }

  private literal(): void {
    for (const word of ["true", "false", "null"]) {
      if (this.text.startsWith(word, this.offset)) {
        this.offset += word.length;
        return;
      }
    }
    this.fail(`expected a value but found ${this.describeNext()}`);
  }

  private object(depth: number): void {
    this.offset++;
    const keys = new Set<string>();
    this.skipSpace();
    if (this.text[this.offset] === "}") {
      this.offset++;
      return;
    }
    for (;;) {
      this.skipSpace();
      if (this.text[this.offset] !== '"') {
        this.fail(`expected a property name in double quotes but found ${this.describeNext()}`);
      }
      const keyOffset = this.offset;
      const key = this.string();
      if (keys.has(key)) this.fail(`the key "${key}" is given twice in the same object`, keyOffset);
      keys.add(key);
      this.skipSpace();
      if (this.text[this.offset] !== ":") this.fail(`expected ":" after "${key}" but found ${this.describeNext()}`);
      this.offset++;
      this.value(depth + 1);
      this.skipSpace();
      const separator = this.text[this.offset];
      if (separator !== "," && separator !== "}") this.fail(`expected "," or "}" but found ${this.describeNext()}`);
      this.offset++;
      if (separator === "}") return;
      this.skipSpace();
      if (this.text[this.offset] === "}") this.fail('a "," before "}" is not allowed in JSON');
    }
  }

  private array(depth: number): void {
    this.offset++;
    this.skipSpace();
    if (this.text[this.offset] === "]") {
      this.offset++;
      return;
    }
    for (;;) {
      this.value(depth + 1);
      this.skipSpace();
      const separator = this.text[this.offset];
      if (separator !== "," && separator !== "]") this.fail(`expected "," or "]" but found ${this.describeNext()}`);
      this.offset++;
      if (separator === "]") return;
      this.skipSpace();
      if (this.text[this.offset] === "]") this.fail('a "," before "]" is not allowed in JSON');
    }
  }

  private string(): string {
    stringPattern.lastIndex = this.offset;
    const match = stringPattern.exec(this.text);
    if (!match) this.fail("unterminated or invalid string");
    this.offset += match[0].length;
    return JSON.parse(match[0]) as string;
  }

  private token(pattern: RegExp, what: string): void {
    pattern.lastIndex = this.offset;
    const match = pattern.exec(this.text);
    if (!match) this.fail(`expected ${what} but found ${this.describeNext()}`);
    this.offset += match[0].length;
  }
}

function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - (before.lastIndexOf("\n") + 1) + 1 };
}
