import type { DbClient } from "@/lib/db/client";
import { type DepartedEndpoint, liveEndpointCreators, retireEndpointsOf } from "./store/endpoints";

/** What a person's leaving did to the workspace's webhook endpoints. */
export type RetiredEndpoints = { disabled: DepartedEndpoint[]; rotationDue: DepartedEndpoint[] };

/**
 * A person who leaves, is removed or loses admin rights keeps no endpoint receiving the workspace's
 * events: the live endpoints they created are disabled, and those whose secret they saw are flagged
 * for rotation. In the caller's transaction, before anything it announces is written to the outbox.
 */
export function retireEndpointsOfPerson(
  client: DbClient,
  person: { workspaceId: string; userId: string; now: Date },
): Promise<RetiredEndpoints> {
  return retireEndpointsOf(client, person);
}

/** The people whose leaving would disable a live endpoint of the workspace. */
export function endpointCreators(workspaceId: string): Promise<string[]> {
  return liveEndpointCreators(workspaceId);
}
