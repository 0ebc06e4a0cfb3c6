import { TextField } from "@/components/ui/field";

/** A link's tags as one field, names separated by commas; the workspace's tags are offered as it is typed. */
export function TagsField({
  idPrefix,
  typed,
  tagNames,
  error,
  className,
}: {
  idPrefix: string;
  typed: string | undefined;
  tagNames: string[];
  /** The refusal about the tags, when there is one. */
  error: string | undefined;
  className?: string;
}) {
  const id = `${idPrefix}-tags`;
  return (
    <div className={className}>
      <TextField
        id={id}
        label="Tags"
        optional
        help="Separate tags with commas; a new name creates the tag."
        error={error}
        name="tags"
        list={`${id}-names`}
        defaultValue={typed}
        placeholder="menus, spring"
        autoComplete="off"
      />
      <datalist id={`${id}-names`}>
        {tagNames.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
    </div>
  );
}
