/**
 * A text's length in characters (code points), not UTF-16 units: four emoji are four characters, not eight.
 * Limits stated in characters (a password's least, a revision name's most) count with it.
 */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}
