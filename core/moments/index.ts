/** Moments (MOM-*, DEC-MOM-*): what an engine answers of a visitor, and who may ask it. */

export type { VisitorData } from "./moments.rules.ts";
export { type EngineReading, type MomentsAnswer, type MomentsQuery, MomentsService } from "./moments.use-cases.ts";
