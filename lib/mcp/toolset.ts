import type { Tool } from "./tool";
import * as definitions from "./tools";

/**
 * Every tool ./tools exports, so that declaring a tool lists it and nothing else can. A module's
 * namespace is sorted by export name, so tools/list gives them in that order.
 */
export const TOOLS: readonly Tool[] = Object.values(definitions);
