import { managementError } from "../../core/errors/index.ts";
import { failWith } from "./error-mapping.ts";

/**
 * A whole number from `min` to `max` (digits only, white space around them forgiven); absent or empty is unset;
 * anything else is 400 1400 naming the parameter and what it should be.
 */
export function readWholeNumber(
  field: string,
  input: string | undefined,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  const given = input?.trim();
  if (given === undefined || given === "") return undefined;
  const value = /^\d{1,16}$/.test(given) ? Number(given) : Number.NaN;
  if (!(value >= min && value <= max)) {
    const range = max === Number.MAX_SAFE_INTEGER ? `from ${min}` : `from ${min} to ${max}`;
    failWith(
      managementError("invalidParameter", {
        parameter: field,
        problem: `must be a whole number ${range}, not "${given}"`,
      }),
    );
  }
  return value;
}
