import { TextField } from "@/components/ui/field";

export type Bounds = { min: number; max: number; default: number };

/** The code's size in pixels and its quiet zone, each a whole number kept within the API's bounds. */
export function DimensionOptions({
  bounds,
  size,
  margin,
  onSize,
  onMargin,
}: {
  bounds: { size: Bounds; margin: Bounds };
  size: number;
  margin: number;
  onSize: (size: number) => void;
  onMargin: (margin: number) => void;
}) {
  return (
    <>
      <NumberField id="qr-size" label="Size (pixels)" bounds={bounds.size} value={size} onChange={onSize} />
      <NumberField
        id="qr-margin"
        label="Quiet zone"
        help="The blank border around the code, counted in the code's small squares; scanners need 2 to 4."
        bounds={bounds.margin}
        value={margin}
        onChange={onMargin}
      />
    </>
  );
}

function NumberField({
  id,
  label,
  help,
  bounds,
  value,
  onChange,
}: {
  id: string;
  label: string;
  help?: string;
  bounds: Bounds;
  value: number;
  onChange: (value: number) => void;
}) {
  return (
    <TextField
      id={id}
      label={label}
      help={help}
      type="number"
      min={bounds.min}
      max={bounds.max}
      value={value}
      onChange={(event) =>
        onChange(Math.min(bounds.max, Math.max(bounds.min, Math.round(Number(event.target.value) || bounds.min))))
      }
    />
  );
}
