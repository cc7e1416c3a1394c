/** JSON bodies: how deep and how keyed a request body may be, and freezing a value deeply. */

export { deepFreeze } from "./deep-freeze.rules.ts";
export {
  defaultJsonBodyRules,
  describeJsonBodyProblem,
  findStructureProblem,
  type JsonBodyProblem,
  type JsonBodyRules,
  type JsonObject,
  readJsonObjectBody,
} from "./json-body.rules.ts";
