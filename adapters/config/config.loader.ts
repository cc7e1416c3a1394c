/**
 * DEC-OPS-03: reading the configuration file. Text -> syntax -> schema -> cross-references -> the domain's
 * ServiceConfig with every default filled in. Problems of one stage are all reported together; a later stage
 * runs only when the earlier ones found nothing, so that no problem is a consequence of another.
 */
import { readFile } from "node:fs/promises";
import { extname } from "node:path";
import {
  type AccountConfig,
  ConfigError,
  defaultLimits,
  type ProfileConfig,
  type ServiceConfig,
} from "../../core/config/index.ts";
import { err, ok, type Result } from "../../core/result.ts";
import { defaultRevisionFilePrefix } from "../../core/revisions/index.ts";
import { describeSchemaProblems } from "./config.problems.ts";
import { checkReferences } from "./config.references.ts";
import { checkConfiguredRevisions } from "./config.revisions.ts";
import { type ConfigFile, ConfigFileSchema, type ProfileFile } from "./config.schema.ts";
import { type ConfigFormat, loadYamlParser, parseConfigSyntax } from "./config.syntax.ts";
import { loadPlanCompiler, trackingPlansOf } from "./tracking-plans.ts";

export type { ConfigFormat } from "./config.syntax.ts";

const formatsByExtension: Readonly<Record<string, ConfigFormat>> = {
  ".json": "json",
  ".yaml": "yaml",
  ".yml": "yaml",
};

/**
 * DEC-OPS-03: the file each configuration returned by parseConfigText was read from, so that problems found
 * only when it is applied at start (an `env` secret not set) name the file like the loader's own.
 */
const configSources = new WeakMap<ServiceConfig, string>();

/** The file (or label) a configuration was read from; undefined for one built in code. */
export function configSourceOf(config: ServiceConfig): string | undefined {
  return configSources.get(config);
}

/** Reads a configuration file; its extension (.json, .yaml, .yml) chooses the format. */
export async function loadConfigFile(path: string): Promise<Result<ServiceConfig, ConfigError>> {
  const format = formatsByExtension[extname(path).toLowerCase()];
  if (!format) {
    return err(new ConfigError(path, [{ path: "", message: "the file name must end in .json, .yaml or .yml" }]));
  }
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    const reasons: Record<string, string> = { ENOENT: "the file does not exist", EACCES: "permission denied" };
    const reason = (code && reasons[code]) ?? (error as Error).message;
    return err(new ConfigError(path, [{ path: "", message: `cannot read the file: ${reason}` }]));
  }
  // The parsers a file needs, loaded when it needs them (config.syntax.ts, tracking-plans.ts).
  if (format === "yaml") await loadYamlParser();
  const read = readConfigText(text, format, path);
  if (!read.ok) return read;
  await loadPlanCompiler(read.value);
  return withCompiledPlans(read.value, path);
}

/**
 * Parses and checks the text of a configuration file; `source` names it in error messages. Synchronous: a YAML
 * text needs `loadYamlParser()`, and a configuration with a tracking plan `loadPlanCompiler()`, awaited before
 * (loadConfigFile does both).
 */
export function parseConfigText(
  text: string,
  format: ConfigFormat,
  source: string,
): Result<ServiceConfig, ConfigError> {
  const read = readConfigText(text, format, source);
  return read.ok ? withCompiledPlans(read.value, source) : read;
}

/** Issue 43: a tracking plan's schemas are compiled now, so one that does not compile stops the start. */
function withCompiledPlans(config: ServiceConfig, source: string): Result<ServiceConfig, ConfigError> {
  const plans = trackingPlansOf(config, source);
  if (!plans.ok) return err(plans.error);
  configSources.set(config, source);
  return ok(config);
}

/** Text -> syntax -> schema -> cross-references -> the ServiceConfig, its tracking plans not compiled yet. */
function readConfigText(text: string, format: ConfigFormat, source: string): Result<ServiceConfig, ConfigError> {
  const parsed = parseConfigSyntax(text, format);
  if (!parsed.ok) return err(new ConfigError(source, parsed.error));
  const schemaProblems = describeSchemaProblems(ConfigFileSchema, parsed.value);
  if (schemaProblems.length > 0) return err(new ConfigError(source, schemaProblems));
  const file = parsed.value as ConfigFile;
  const referenceProblems = [...checkReferences(file), ...checkConfiguredRevisions(file)];
  if (referenceProblems.length > 0) return err(new ConfigError(source, referenceProblems));
  return ok(toServiceConfig(file));
}

/** Fills the defaults the schema documents. */
function toServiceConfig(file: ConfigFile): ServiceConfig {
  return {
    ...(file.nodeId === undefined ? {} : { nodeId: file.nodeId }),
    timing: file.timing ?? "fast",
    limits: { ...defaultLimits, ...file.limits },
    accounts: (file.accounts ?? []).map(
      (account): AccountConfig => ({ name: account.name, profiles: (account.profiles ?? []).map(toProfileConfig) }),
    ),
    users: (file.users ?? []).map((user) => ({
      email: user.email,
      password: user.password,
      disabled: user.disabled ?? false,
      grants: (user.grants ?? []).map((grant) => ({ account: grant.account, profiles: grant.profiles })),
    })),
    apiKeys: (file.apiKeys ?? []).map((apiKey) => ({ id: apiKey.id, user: apiKey.user, key: apiKey.key })),
    revisionFilePrefix: file.revisionFilePrefix ?? defaultRevisionFilePrefix,
    revisions: (file.revisions ?? []).map((revision) => ({
      account: revision.account,
      profile: revision.profile,
      name: revision.name,
      comment: revision.comment ?? "",
      createdBy: revision.createdBy,
      targets: revision.targets,
      files: revision.files.map((file) => ({ name: file.name, text: file.text })),
    })),
  };
}

function toProfileConfig(profile: ProfileFile): ProfileConfig {
  return {
    name: profile.name,
    visitorIdAttributes: profile.visitorIdAttributes ?? [],
    attributes: (profile.attributes ?? []).map((attribute) => ({
      id: attribute.id,
      name: attribute.name,
      type: attribute.type,
      pii: attribute.pii ?? false,
      enrichments: (attribute.enrichments ?? []).map((enrichment) => ({
        when: enrichment.when,
        conditions: enrichment.conditions ?? [],
        action: enrichment.action,
      })),
    })),
    audiences: (profile.audiences ?? []).map((audience) => ({
      id: audience.id,
      name: audience.name,
      conditions: audience.conditions ?? [],
    })),
    engines: (profile.engines ?? []).map((engine) => ({
      id: engine.id,
      name: engine.name ?? engine.id,
      enabled: engine.enabled ?? true,
      allowedDomains: engine.allowedDomains ?? [],
      keys: engine.keys ?? "names",
      audiences: engine.audiences ?? [],
      badges: engine.badges ?? [],
      attributes: engine.attributes ?? [],
    })),
    fileDefinitions: (profile.fileDefinitions ?? []).map((definition) => ({
      prefix: definition.prefix,
      event: definition.event ?? "imported",
      visitorId: definition.visitorId,
      columns: definition.columns ?? [],
    })),
    ...(profile.trackingPlan === undefined
      ? {}
      : {
          trackingPlan: {
            events: profile.trackingPlan.events ?? {},
            ...(profile.trackingPlan.allEvents === undefined ? {} : { allEvents: profile.trackingPlan.allEvents }),
          },
        }),
  };
}
