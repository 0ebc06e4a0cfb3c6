import { FoldOnPhone } from "@/components/ui/fold-on-phone";
import { cardClass, mutedClass } from "@/components/ui/styles";
import { requireDashboard } from "@/lib/api/dashboard";
import { TAG_COLORS, TAG_NAME_MAX } from "@/lib/tags/schemas";
import { listTags } from "@/lib/tags/service";
import { can } from "@/lib/workspaces/permissions";
import { dashboardTitle } from "../page-title";
import { AddTagForm, TagList } from "./tag-manager";

export const generateMetadata = () => dashboardTitle("Tags");

export default async function TagsPage() {
  const { principal } = await requireDashboard("/dashboard/tags");
  const { tags } = await listTags(principal);
  const adds = can(principal, "links.create");
  const edits = can(principal, "links.edit_any");
  return (
    <div className="space-y-6">
      <h1 className="m-0 text-2xl font-bold">Tags</h1>
      <p className={mutedClass}>
        Tags group your links: the links list shows them in their colours and filters by them. Renaming or recolouring a tag
        changes it on every link that carries it.
      </p>
      {adds && (
        <section aria-labelledby="add-tag-heading" className={cardClass}>
          <FoldOnPhone label="Add a tag">
            <h2 id="add-tag-heading" className="mt-0 text-lg">
              Add a tag
            </h2>
            <AddTagForm colors={TAG_COLORS} nameMax={TAG_NAME_MAX} />
          </FoldOnPhone>
        </section>
      )}
      <section aria-labelledby="tag-list-heading" className="space-y-3">
        <h2 id="tag-list-heading" className="m-0 text-lg">
          Your tags
        </h2>
        <TagList
          tags={tags}
          colors={TAG_COLORS}
          edits={edits}
          nameMax={TAG_NAME_MAX}
          emptyText={
            adds
              ? "No tags yet. Add one above, or type a tag on a link: it appears here."
              : "No tags yet; the links' creators can add them."
          }
        />
        {tags.length > 0 && !edits && (
          <p className={mutedClass + " m-0"}>Only owners and admins can rename, recolour or delete tags.</p>
        )}
      </section>
    </div>
  );
}
