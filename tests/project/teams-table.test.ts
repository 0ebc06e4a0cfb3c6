import { type Action, permissionTable } from "@/lib/workspaces/permissions";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

/** Each row of docs/teams.md's "Who may do what" table, and the actions of the permission table it stands for. */
const ROWS: Record<string, Action[]> = {
  "read links, QR artwork, logos, analytics, members, domains": ["links.read", "analytics.read", "members.read", "domains.read"],
  "create links": ["links.create"],
  "edit (repoint, archive, restore, restyle) any link": ["links.edit_any"],
  "edit own links": ["links.edit_own"],
  "invite, re-send and revoke invitations": ["members.invite"],
  "change roles": ["members.change_role"],
  "remove members": ["members.remove"],
  "make, demote or remove an owner": ["members.manage_owners"],
  "rename the workspace": ["workspace.rename"],
  "manage domains": ["domains.manage"],
  "manage billing (checkout, portal)": ["billing.manage"],
  "manage webhooks (add, change, test, read the delivery log)": ["webhooks.manage"],
  "download the signed escrow of every code": ["escrow.read"],
  "claim the API key": ["api_key.claim"],
  "revoke the API key": ["api_key.revoke"],
  "see and revoke every connected app (anyone sees and revokes their own)": ["apps.manage"],
};

const COLUMNS = ["owner", "admin", "member", "viewer", "api_key"] as const;

function readmeTable(): Map<string, string[]> {
  const section = readFileSync("docs/teams.md", "utf8");
  // The formatter pads the cells, so the header is found by its words, not its spacing.
  const header = /^\|\s*Action\s*\|\s*owner\s*\|\s*admin\s*\|\s*member\s*\|\s*viewer\s*\|\s*API key\s*\|$/m;
  const lines = section.slice(section.search(header)).split("\n").slice(2);
  const rows = new Map<string, string[]>();
  for (const line of lines) {
    if (!line.startsWith("|")) break;
    const [label, ...cells] = line
      .split("|")
      .slice(1, -1)
      .map((cell) => cell.trim());
    rows.set(label!, cells);
  }
  return rows;
}

describe("the Teams table in docs/teams.md", () => {
  it("says exactly what lib/workspaces/permissions.ts decides, for every action", () => {
    const table = permissionTable();
    const readme = readmeTable();
    expect([...readme.keys()]).toEqual(Object.keys(ROWS));
    expect(Object.values(ROWS).flat().sort()).toEqual(Object.keys(table).sort());
    for (const [label, actions] of Object.entries(ROWS)) {
      for (const action of actions) {
        const rule = table[action];
        const expected = COLUMNS.map((column) =>
          (column === "api_key" ? rule.apiKey : rule.roles.includes(column)) ? "yes" : "no",
        );
        expect(readme.get(label), `${label} (${action})`).toEqual(expected);
      }
    }
  });
});
