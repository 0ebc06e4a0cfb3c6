import { CONFIG_VARIABLES, resetConfig } from "@/lib/config";
import { type ApiDocument, openApiDocument } from "@/lib/openapi/document";

/**
 * The OpenAPI document (`GET /api/openapi.json`) as a deployment with exactly these settings, and the
 * defaults for everything else, serves it: what it says depends on the settings (its address, the
 * write limit, the price), and a generated file must not depend on whatever the shell has set.
 * No server or database is needed. For scripts only: it rewrites this process's environment.
 */
export function openApiDocumentWith(settings: Readonly<Record<string, string>> = {}): ApiDocument {
  for (const name of CONFIG_VARIABLES) delete process.env[name];
  Object.assign(process.env, settings);
  resetConfig();
  return openApiDocument();
}
