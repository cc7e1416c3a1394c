/**
 * Values as text (counting characters, reading decimal numbers and ISO dates, comparing digests in constant
 * time, telling which text every store keeps), cutting lists into chunks, and three small disciplines for work by
 * key: one after another (KeyedTurns), spaced in time (KeyedPace), and a few at once with the others waiting
 * their turn (KeyedPlaces).
 */

export { characterCount } from "./characters.ts";
export { chunks } from "./chunks.ts";
