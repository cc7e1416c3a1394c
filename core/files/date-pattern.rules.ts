/**
 * DEC-FIL-01: Java-style date patterns of file definitions (`yyyy-MM-dd HH:mm`, `dd/MM/yyyy`, ...), the
 * common subset of java.text.SimpleDateFormat and java.time.format.DateTimeFormatter: the letters y M d H m
 * s S and literal text, read strictly as DateTimeFormatter reads them (a doubled letter is exactly two
 * digits, and the whole value must match: no trailing text). A pattern
 * using anything else is refused when the configuration is loaded, so an import never meets one.
 * Dates without a zone are read as UTC.
 */
import { err, ok, type Result } from "../result.ts";

/** One piece of a compiled pattern: a number field, or text that must appear as it is. */
export type DatePatternPart =
  | {
      readonly kind: "field";
      readonly letter: "y" | "M" | "d" | "H" | "m" | "s" | "S";
      readonly minDigits: number;
      readonly maxDigits: number;
    }
  | { readonly kind: "literal"; readonly text: string };

export interface DatePattern {
  readonly source: string;
  readonly parts: readonly DatePatternPart[];
}

/** How many digits each letter reads, by how often it is repeated. `null`: that width is not supported. */
function widthOf(letter: string, count: number): { minDigits: number; maxDigits: number } | null {
  switch (letter) {
    case "y":
      // yy is a two-digit year whose century depends on today's date in Java: not supported (use yyyy).
      return count === 2 ? null : { minDigits: 4, maxDigits: 4 };
    case "M":
      // MMM and longer are month names: not supported.
      return count > 2 ? null : count === 2 ? { minDigits: 2, maxDigits: 2 } : { minDigits: 1, maxDigits: 2 };
    case "d":
    case "H":
    case "m":
    case "s":
      return count > 2 ? null : count === 2 ? { minDigits: 2, maxDigits: 2 } : { minDigits: 1, maxDigits: 2 };
    case "S":
      return count === 3 ? { minDigits: 3, maxDigits: 3 } : null;
    default:
      return null;
  }
}

const supported = "y (yyyy), M, MM, d, dd, H, HH, m, mm, s, ss, SSS and literal text (quote letters: 'T')";

/** DEC-FIL-01: compiles a Java-style pattern, or says in words what in it is not supported. */
export function compileDatePattern(source: string): Result<DatePattern, string> {
  const parts: DatePatternPart[] = [];
  const seen = new Set<string>();
  let literal = "";
  const flushLiteral = () => {
    if (literal) parts.push({ kind: "literal", text: literal });
    literal = "";
  };
  for (let index = 0; index < source.length; ) {
    const char = source[index] as string;
    if (char === "'") {
      if (source[index + 1] === "'") {
        literal += "'";
        index += 2;
        continue;
      }
      // Quoted text is literal; inside it, '' is one quote.
      let quoted = "";
      let cursor = index + 1;
      for (;;) {
        const close = source.indexOf("'", cursor);
        if (close === -1) return err(`has a quote (') that is not closed; supported: ${supported}`);
        quoted += source.slice(cursor, close);
        if (source[close + 1] === "'") {
          quoted += "'";
          cursor = close + 2;
          continue;
        }
        index = close + 1;
        break;
      }
      literal += quoted;
      continue;
    }
    if (/[A-Za-z]/.test(char)) {
      let count = 1;
      while (source[index + count] === char) count += 1;
      const width = widthOf(char, count);
      if (!width) return err(`uses "${char.repeat(count)}", which is not supported; supported: ${supported}`);
      if (seen.has(char)) return err(`uses the letter ${char} twice`);
      seen.add(char);
      flushLiteral();
      parts.push({ kind: "field", letter: char as "y", ...width });
      index += count;
      continue;
    }
    literal += char;
    index += 1;
  }
  flushLiteral();
  if (!seen.has("y") || !seen.has("M") || !seen.has("d"))
    return err("must name at least the year (yyyy), the month (M or MM) and the day (d or dd)");
  return ok({ source, parts });
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function isDigit(char: string | undefined): boolean {
  return char !== undefined && char >= "0" && char <= "9";
}

/**
 * DEC-FIL-03: the UTC epoch milliseconds a value stands for under the pattern, or null when it does not
 * match the pattern whole or names a day that does not exist (2023-02-30, 24:00).
 */
export function parseDateWithPattern(pattern: DatePattern, value: string): number | null {
  const text = value.trim();
  const found: Record<string, number> = { y: 1970, M: 1, d: 1, H: 0, m: 0, s: 0, S: 0 };
  let position = 0;
  for (const part of pattern.parts) {
    if (part.kind === "literal") {
      if (!text.startsWith(part.text, position)) return null;
      position += part.text.length;
      continue;
    }
    let digits = 0;
    while (digits < part.maxDigits && isDigit(text[position + digits])) digits += 1;
    if (digits < part.minDigits) return null;
    found[part.letter] = Number(text.slice(position, position + digits));
    position += digits;
  }
  if (position !== text.length) return null;
  const { y, M, d, H, m, s, S } = found as Record<"y" | "M" | "d" | "H" | "m" | "s" | "S", number>;
  if (M < 1 || M > 12 || d < 1 || d > daysInMonth(y, M) || H > 23 || m > 59 || s > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(y, M - 1, d);
  date.setUTCHours(H, m, s, S);
  return date.getTime();
}
