import type { ProfileConfig } from "../../core/config/index.ts";

/**
 * A profile's configuration as the rows of its tables (profile-config.schema.ts of each store), one list per
 * table: every row names its profile, and `position` keeps the order the configuration gave, so that a profile
 * reads back exactly as it was written. Both stores write these lists after removing the profile's old rows.
 */
export function profileConfigRowsOf(account: string, config: ProfileConfig) {
  const owner = { account, profile: config.name };
  return {
    visitorIdAttributes: config.visitorIdAttributes.map((attribute, position) => ({
      ...owner,
      position,
      id: attribute.id,
      name: attribute.name,
      parameter: attribute.parameter,
    })),
    attributes: config.attributes.map((attribute, position) => ({
      ...owner,
      position,
      id: attribute.id,
      name: attribute.name,
      type: attribute.type,
      pii: attribute.pii,
      enrichments: attribute.enrichments,
    })),
    audiences: config.audiences.map((audience, position) => ({
      ...owner,
      position,
      id: audience.id,
      name: audience.name,
      conditions: audience.conditions,
    })),
    engines: config.engines.map((engine, position) => ({
      ...owner,
      position,
      id: engine.id,
      name: engine.name,
      enabled: engine.enabled,
      allowedDomains: engine.allowedDomains,
      keys: engine.keys,
      audiences: engine.audiences,
      badges: engine.badges,
      attributes: engine.attributes,
    })),
    fileDefinitions: config.fileDefinitions.map((definition, position) => ({
      ...owner,
      position,
      prefix: definition.prefix,
      event: definition.event,
      visitorIdColumn: definition.visitorId.column,
      visitorIdAttribute: definition.visitorId.attribute,
      columns: definition.columns,
    })),
  };
}
