/** JSON bodies: how deep and how keyed a request body may be, and freezing a value deeply. */

export { deepFreeze } from "./deep-freeze.rules.ts";
