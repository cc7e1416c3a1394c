/** Names: which names and e-mail addresses the configuration and the APIs accept. */

export { emailPatternSource, fitsCombinedLength, maxCombinedNameLength } from "./names.rules.ts";
