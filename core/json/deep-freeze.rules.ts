/**
 * Freezes `value` and every object and array inside it, so that one record can be handed to every reader:
 * a change through any reference throws (in strict code, which every ES module is) instead of changing what
 * the next reader sees. Walks with a stack of its own, so no depth exhausts the call stack; an object met
 * twice in one value (shared, or in a cycle) is walked once.
 */
export function deepFreeze<T>(value: T): T {
  const pending: unknown[] = [value];
  const seen = new Set<object>();
  while (pending.length > 0) {
    const item = pending.pop();
    if (item === null || typeof item !== "object" || seen.has(item)) continue;
    seen.add(item);
    Object.freeze(item);
    for (const child of Object.values(item)) pending.push(child);
  }
  return value;
}
