import { errorFor, FieldError, fieldProps } from "@/components/ui/field-error";
import { inputClass, labelClass, mutedClass } from "@/components/ui/styles";

type Answer = { ok: true } | { ok: false; error: string; field?: string } | null | undefined;

/** A link's tags as one field, names separated by commas; the workspace's tags are offered as it is typed. */
export function TagsField({
  idPrefix,
  typed,
  tagNames,
  state,
}: {
  idPrefix: string;
  typed: string | undefined;
  tagNames: string[];
  state: Answer;
}) {
  const id = `${idPrefix}-tags`;
  return (
    <>
      <label htmlFor={id} className={labelClass}>
        Tags <span className={mutedClass}>(optional)</span>
      </label>
      <input
        id={id}
        name="tags"
        list={`${id}-names`}
        defaultValue={typed}
        placeholder="menus, spring"
        autoComplete="off"
        className={inputClass}
        {...fieldProps("tags", `${id}-error`, state, `${id}-help`)}
      />
      <datalist id={`${id}-names`}>
        {tagNames.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
      <p id={`${id}-help`} className={mutedClass + " m-0 mt-1 text-sm"}>
        Separate tags with commas; a new name creates the tag.
      </p>
      <FieldError id={`${id}-error`} error={errorFor("tags", state)} />
    </>
  );
}
