/**
 * Inspection (issue 32, the web console): one stored event explained (how its visitor ID was chosen, what it
 * changed in its visitor's profile) and one visitor looked up (its group, profile, latest events and what each
 * engine answers of it). Reads only.
 */

export type { ProfileChange, ProfileChangeKind, ProfileView } from "./inspect.rules.ts";
export {
  type EngineAnswerView,
  type EventExplanation,
  type InspectedVisitor,
  InspectService,
  type InspectServiceDeps,
  type VisitorQuery,
} from "./inspect.use-cases.ts";
