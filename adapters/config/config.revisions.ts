/**
 * DEC-REV-01, DEC-REV-02: the checks of configured revisions the schema cannot make: the account and
 * profile must be configured in the same file, and the revision must be one the admin API would accept
 * (member names in the naming scheme, the main loader present, targets unique), so that a start never
 * fails half-way through publishing; and no two configured revisions of a profile may share a target: the
 * one published later would stop the other being the latest, and each start would publish both again
 * (a configured revision is published whenever it is not the latest of its targets). Runs on a file that
 * already fits the schema.
 */

import type { ConfigProblem } from "../../core/config/index.ts";
import { defaultRevisionFilePrefix, type PublicationProblem, validatePublication } from "../../core/revisions/index.ts";
import type { ConfigFile } from "./config.schema.ts";

export function checkConfiguredRevisions(file: ConfigFile): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const prefix = file.revisionFilePrefix ?? defaultRevisionFilePrefix;
  const profilesByAccount = new Map(
    (file.accounts ?? []).map((account) => [
      account.name,
      new Set((account.profiles ?? []).map((profile) => profile.name)),
    ]),
  );
  const encoder = new TextEncoder();

  /** `account/profile/target` → the revision that holds it. */
  const targetOwners = new Map<string, string>();
  (file.revisions ?? []).forEach((revision, r) => {
    const path = `/revisions/${r}`;
    revision.targets.forEach((target, t) => {
      const key = JSON.stringify([revision.account, revision.profile, target]);
      const owner = targetOwners.get(key);
      if (owner === undefined) targetOwners.set(key, path);
      else if (owner !== path) {
        problems.push({
          path: `${path}/targets/${t}`,
          message: `${revision.account}/${revision.profile}'s target "${target}" is given to ${owner} already: one configured revision a target (found ${JSON.stringify(target)})`,
        });
      }
    });
    const profiles = profilesByAccount.get(revision.account);
    if (!profiles)
      problems.push({ path: `${path}/account`, message: `no account "${revision.account}" is configured` });
    else if (!profiles.has(revision.profile))
      problems.push({
        path: `${path}/profile`,
        message: `account "${revision.account}" has no profile "${revision.profile}"`,
      });

    const validated = validatePublication(
      {
        account: revision.account,
        profile: revision.profile,
        name: revision.name,
        comment: revision.comment ?? "",
        createdBy: revision.createdBy,
        targets: revision.targets,
        files: revision.files.map((member) => ({ name: member.name, size: encoder.encode(member.text).byteLength })),
      },
      prefix,
    );
    if (!validated.ok) {
      for (const problem of validated.error) problems.push(toConfigProblem(problem, path, revision));
    }
  });
  return problems;
}

function toConfigProblem(
  problem: PublicationProblem,
  path: string,
  revision: NonNullable<ConfigFile["revisions"]>[number],
): ConfigProblem {
  if (problem.field === "files" && problem.index !== undefined) {
    return {
      path: `${path}/files/${problem.index}/name`,
      message: `${problem.problem} (found ${JSON.stringify(revision.files[problem.index]?.name)})`,
    };
  }
  if (problem.field === "targets" && problem.index !== undefined) {
    return {
      path: `${path}/targets/${problem.index}`,
      message: `${problem.problem} (found ${JSON.stringify(revision.targets[problem.index])})`,
    };
  }
  return { path: `${path}/${problem.field}`, message: problem.problem };
}
