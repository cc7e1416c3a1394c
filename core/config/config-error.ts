/**
 * DEC-OPS-03: "an invalid file stops the start with a message naming the bad field". Every problem found in a
 * configuration, whether by the loader reading the file or at start when it is applied, is a JSON pointer into
 * the file plus a sentence for a person.
 */

export interface ConfigProblem {
  /** JSON pointer into the file (`/users/2/email`); empty for the file as a whole. */
  readonly path: string;
  readonly message: string;
  /** For syntax errors: where the parser stopped, 1-based. */
  readonly line?: number;
  readonly column?: number;
}

export class ConfigError {
  constructor(
    /** The file name (or another label) printed at the start of each line. */
    readonly source: string,
    readonly problems: readonly ConfigProblem[],
  ) {}

  withSource(source: string): ConfigError {
    return new ConfigError(source, this.problems);
  }

  /** One line per problem: `svc.config.yaml: /users/2/email: must be an e-mail address`. */
  format(): string {
    return this.problems.map((problem) => `${this.source}: ${describeLocation(problem)}${problem.message}`).join("\n");
  }
}

function describeLocation(problem: ConfigProblem): string {
  const where = problem.line === undefined ? "" : `line ${problem.line}, column ${problem.column ?? 1}: `;
  return problem.path === "" ? where : `${where}${problem.path}: `;
}
