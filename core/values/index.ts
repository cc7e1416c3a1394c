/** Values as text: counting characters, reading decimal numbers and ISO dates, cutting lists into chunks. */

export { characterCount } from "./characters.ts";
export { chunks } from "./chunks.ts";
export { decimalNumberText, readDecimalNumber, readIsoDateTime } from "./value-text.rules.ts";
