import type { ComponentProps } from "react";
import { buttonClass } from "./styles";

/**
 * A button in one of the house's looks (`buttonClass`): primary for the one thing a form is for,
 * secondary for the rest, danger for what removes, small inside lists. Its type is "button" unless
 * it says "submit", so no button sends a form by accident.
 */
export function Button({
  variant = "secondary",
  type = "button",
  className,
  ...props
}: ComponentProps<"button"> & { variant?: keyof typeof buttonClass }) {
  return <button type={type} className={className ? `${buttonClass[variant]} ${className}` : buttonClass[variant]} {...props} />;
}
