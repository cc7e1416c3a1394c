/** The names of the `{placeholders}` in a message template, as a union of string literals. */
export type Placeholders<S extends string> = S extends `${string}{${infer Name}}${infer Rest}`
  ? Name | Placeholders<Rest>
  : never;

/** The values a template needs: one string or number per placeholder. */
export type TemplateValues<S extends string> = { readonly [K in Placeholders<S>]: string | number };

/** The arguments after the code: nothing for a plain message, the values for a template with placeholders. */
export type TemplateArgs<S extends string> = [Placeholders<S>] extends [never] ? [] : [values: TemplateValues<S>];

const placeholder = /\{([a-z_]+)\}/gi;

/** Fills every `{name}` of a template with its value; a value that is missing leaves the placeholder as it is. */
export function fillTemplate(template: string, values: Readonly<Record<string, string | number>>): string {
  return template.replace(placeholder, (whole, name: string) =>
    Object.hasOwn(values, name) ? String(values[name]) : whole,
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A regular expression that matches any filling of the template (each placeholder stands for one or more characters). */
export function templatePattern(template: string): RegExp {
  const parts = template.split(placeholder);
  // split with a capturing group alternates literal text and placeholder names.
  const source = parts.map((part, index) => (index % 2 === 0 ? escapeRegExp(part) : ".+?")).join("");
  return new RegExp(`^${source}$`, "s");
}
