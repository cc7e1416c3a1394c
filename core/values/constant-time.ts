/**
 * Whether two strings are equal, in a time that depends on their length and not on where they first differ
 * (no early exit: every code unit is looked at). For checking a secret's digest against a stored one, so that
 * how long a refusal takes does not tell a guesser how much of it was right. Plain arithmetic on code units,
 * which every runtime has: the core needs no crypto API for it. The length is not hidden; digests of one kind
 * all have the same.
 */
export function equalInConstantTime(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index += 1) difference |= a.charCodeAt(index) ^ b.charCodeAt(index);
  return difference === 0;
}
