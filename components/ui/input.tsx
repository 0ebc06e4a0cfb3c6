import type { ComponentProps, ReactNode } from "react";
import { inputClass } from "./styles";

/** The house's look for a control, with the caller's classes after it (a width, a tighter padding). */
const controlClass = (className: string | undefined) => (className ? `${inputClass} ${className}` : inputClass);

/** A text, number, date or e-mail control in the house's look; label it with a Field (or TextField). */
export function Input({ className, ...props }: ComponentProps<"input">) {
  return <input className={controlClass(className)} {...props} />;
}

/** A select in the house's look; its options are its children. */
export function Select({ className, ...props }: ComponentProps<"select">) {
  return <select className={controlClass(className)} {...props} />;
}

export function Textarea({ className, ...props }: ComponentProps<"textarea">) {
  return <textarea className={controlClass(className)} {...props} />;
}

/**
 * A checkbox and its words in one label (clicking the words ticks the box, and they are its name).
 * `className` is the label's: a row by default; `inputClassName` the box's.
 */
export function Checkbox({
  label,
  className = "flex items-center gap-2 text-sm",
  inputClassName,
  ...props
}: Omit<ComponentProps<"input">, "type" | "className" | "children"> & {
  label: ReactNode;
  className?: string;
  inputClassName?: string;
}) {
  return (
    <label className={className}>
      <input type="checkbox" className={inputClassName} {...props} />
      {label}
    </label>
  );
}

/**
 * A file chooser that hands over the one file chosen and then forgets it, so choosing the same
 * file again (after a refusal) is a new choice.
 */
export function FileInput({
  onFile,
  className = "block text-sm",
  ...props
}: Omit<ComponentProps<"input">, "type" | "onChange" | "value"> & { onFile: (file: File) => void }) {
  return (
    <input
      type="file"
      className={className}
      {...props}
      onChange={(event) => {
        const file = event.target.files?.[0];
        if (file) onFile(file);
        event.target.value = "";
      }}
    />
  );
}
