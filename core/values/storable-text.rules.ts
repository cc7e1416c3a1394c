/**
 * Text as every store keeps it and finds it again (docs/decisions.md, "Text that a store cannot keep").
 *
 * PostgreSQL refuses U+0000 in a text column; libSQL keeps it but reads the text back cut short at it; the
 * in-memory store keeps it. Inside a JSON document (an event's parameters, a data layer, a visitor's
 * attributes) it is written `\u0000`, which every store keeps. So the service never keeps text holding U+0000 on
 * its own, and a name or value holding one names nothing stored: a use case answers it as unknown (or refuses
 * it, where it would be kept) before it asks a store, and every store answers the same.
 *
 * An entry of a PostgreSQL index holds at most 2,704 bytes, so text that is indexed (a visitor ID, a trace id)
 * has a limit in bytes too.
 */

/** Whether every store keeps `text` as it is and finds it again: it holds no U+0000. */
export function isStorableText(text: string): boolean {
  return !text.includes("\u0000");
}

/**
 * The most bytes (UTF-8) of a text the stores index beside an account's and a profile's names (a visitor ID, a
 * trace id): PostgreSQL's index entries hold at most 2,704 bytes, the names take up to 250 of them.
 */
export const maxIndexedTextBytes = 2_048;

/** The length of `text` in UTF-8, a lone surrogate counted as the three bytes of the U+FFFD a store writes for it. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let at = 0; at < text.length; at += 1) {
    const unit = text.charCodeAt(at);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && (text.charCodeAt(at + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      at += 1;
    } else bytes += 3;
  }
  return bytes;
}

/** Whether every store keeps `text` as it is in an index: storable (isStorableText), at most maxIndexedTextBytes. */
export function isIndexableText(text: string): boolean {
  return isStorableText(text) && utf8ByteLength(text) <= maxIndexedTextBytes;
}
