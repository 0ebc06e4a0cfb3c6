import { type ComponentProps, type ReactNode, useId } from "react";
import { FieldError } from "./field-error";
import { Input, Select } from "./input";
import { labelClass, mutedClass } from "./styles";

/** What a field hands its control: the id its label names, and the invalid mark and descriptions when there are any. */
export type ControlProps = { id: string; "aria-invalid"?: true; "aria-describedby"?: string };

type FieldParts = {
  /** The control's id, which the label names; one of React's own (useId) when left out. */
  id?: string;
  label: ReactNode;
  /** A muted "(optional)" after the label. */
  optional?: boolean;
  /** The label's class instead of the standard one: "sr-only" where the page names the control for the eye already. */
  labelClassName?: string;
  /** A sentence under the control, which describes it. */
  help?: ReactNode;
  /** The help's class instead of the standard muted line: "sr-only" to have it read out and not shown. */
  helpClassName?: string;
  /**
   * The refusal about this field (an action's sentence when its `field` names this one): shown
   * under the control, which is marked invalid, described by it, and focused when it arrives.
   */
  error?: string;
  /** Ids of other elements that describe the control (a warning that belongs to two fields). */
  describedBy?: string;
  /** The class of the element around label, control, help and error. */
  className?: string;
};

/**
 * The control's id and what describes it: the refusal first (the reason it is marked invalid),
 * then the help, then anything else named.
 */
export function controlProps(
  id: string,
  { error, help, describedBy }: { error?: string; help?: boolean; describedBy?: string },
): ControlProps {
  const described = [error ? `${id}-error` : undefined, help ? `${id}-help` : undefined, describedBy].filter(Boolean).join(" ");
  return { id, ...(error && { "aria-invalid": true as const }), ...(described && { "aria-describedby": described }) };
}

/**
 * A label, its control, the help under it and the refusal about it, paired by id: the control is
 * drawn by `children` with the props it is handed (spread them on it). For a text input or a
 * select, TextField and SelectField say it in one element.
 */
export function Field({
  id,
  label,
  optional = false,
  labelClassName = labelClass,
  help,
  helpClassName = `${mutedClass} m-0 mt-1`,
  error,
  describedBy,
  className,
  children,
}: FieldParts & { children: (control: ControlProps) => ReactNode }) {
  const generated = useId();
  const controlId = id ?? generated;
  return (
    <div className={className}>
      <label htmlFor={controlId} className={labelClassName}>
        {label}
        {optional && (
          <>
            {" "}
            <span className={mutedClass}>(optional)</span>
          </>
        )}
      </label>
      {children(controlProps(controlId, { error, help: help !== undefined, describedBy }))}
      {help !== undefined && (
        <p id={`${controlId}-help`} className={helpClassName}>
          {help}
        </p>
      )}
      <FieldError id={`${controlId}-error`} error={error} />
    </div>
  );
}

/** The props of a field's part and of its control, apart: `className` is the field's, `controlClassName` the control's. */
function split<Control extends { className?: string }>(
  props: FieldParts & Omit<Control, "id" | "className"> & { controlClassName?: string },
): [FieldParts, Control] {
  const { id, label, optional, labelClassName, help, helpClassName, error, describedBy, className, controlClassName, ...rest } =
    props;
  return [
    { id, label, optional, labelClassName, help, helpClassName, error, describedBy, className },
    { ...rest, className: controlClassName } as unknown as Control,
  ];
}

type TextFieldProps = FieldParts & Omit<ComponentProps<"input">, "id" | "className" | "children"> & { controlClassName?: string };

/** A labelled text input (any type a text box takes): the field's parts and the input's attributes in one element. */
export function TextField(props: TextFieldProps) {
  const [field, input] = split<ComponentProps<"input">>(props);
  return <Field {...field}>{(control) => <Input {...input} {...control} />}</Field>;
}

type SelectFieldProps = FieldParts & Omit<ComponentProps<"select">, "id" | "className"> & { controlClassName?: string };

/** A labelled select; its options are its children. */
export function SelectField(props: SelectFieldProps) {
  const [field, select] = split<ComponentProps<"select">>(props);
  return <Field {...field}>{(control) => <Select {...select} {...control} />}</Field>;
}
