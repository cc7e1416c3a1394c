/**
 * DEC-COL-09, DEC-COL-10: decodeURIComponent that keeps the text as it is when it is not valid
 * percent-encoding. The cookie formats collection reads (a TAPID entry's ID, utag_main's value) are
 * percent-encoded each in its own way; both decode with this.
 */
export function decodePercent(text: string): string {
  if (!text.includes("%")) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
