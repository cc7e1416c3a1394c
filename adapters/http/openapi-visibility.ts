interface OpenApiDocument {
  paths?: Record<string, unknown>;
  components?: { securitySchemes?: Record<string, unknown> };
}

/**
 * The OpenAPI document as a caller without the admin token reads it: the admin API's paths, /metrics and the
 * admin security scheme left out, everything else as it is. A HEAD's answer loses its length (the whole document's); any
 * other answer (a refusal) passes unchanged.
 */
export async function withoutAdminApi(method: string, answer: Response): Promise<Response> {
  if (answer.status !== 200 || !answer.headers.get("content-type")?.startsWith("application/json")) return answer;
  if (method === "HEAD") {
    const headers = new Headers(answer.headers);
    headers.delete("content-length");
    return new Response(null, { status: answer.status, headers });
  }
  const document = (await answer.json()) as OpenApiDocument;
  const paths = Object.fromEntries(
    Object.entries(document.paths ?? {}).filter(
      ([path]) => path !== "/admin" && !path.startsWith("/admin/") && path !== "/metrics",
    ),
  );
  const { admin: _admin, ...securitySchemes } = document.components?.securitySchemes ?? {};
  const headers = new Headers(answer.headers);
  headers.delete("content-length");
  const publicDocument = { ...document, paths, components: { ...document.components, securitySchemes } };
  return new Response(JSON.stringify(publicDocument), { status: answer.status, headers });
}
