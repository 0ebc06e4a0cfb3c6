import { Field } from "@/components/ui/field";
import { errorClass } from "@/components/ui/styles";

/**
 * The code's two colours, and the warning when together they make a code many scanners miss:
 * said while the colours change, beside them, not after a download that would be refused.
 */
export function ColourOptions({
  fg,
  bg,
  onFg,
  onBg,
  problem,
}: {
  fg: string;
  bg: string;
  onFg: (colour: string) => void;
  onBg: (colour: string) => void;
  /** Why scanners would miss the code, or null. */
  problem: string | null;
}) {
  return (
    <>
      <ColourField id="qr-fg" label="Foreground colour" value={fg} onChange={onFg} warned={problem !== null} />
      <ColourField id="qr-bg" label="Background colour" value={bg} onChange={onBg} warned={problem !== null} />
      <p id="qr-colour-warning" role="status" className={problem ? errorClass + " m-0 sm:col-span-2" : "sr-only"}>
        {problem}
      </p>
    </>
  );
}

function ColourField({
  id,
  label,
  value,
  onChange,
  warned,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** The colours together make a code many scanners miss: the field points at the warning. */
  warned: boolean;
}) {
  return (
    <Field id={id} label={label} describedBy={warned ? "qr-colour-warning" : undefined}>
      {(control) => (
        <div className="flex items-center gap-2">
          <input
            {...control}
            type="color"
            value={value}
            onChange={(event) => onChange(event.target.value)}
            className="h-9 w-12 cursor-pointer rounded border border-zinc-300 dark:border-zinc-700"
          />
          <code className="text-sm">{value}</code>
        </div>
      )}
    </Field>
  );
}
