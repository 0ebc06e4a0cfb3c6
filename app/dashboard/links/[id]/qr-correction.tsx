import { SelectField } from "@/components/ui/field";
import { Checkbox } from "@/components/ui/input";
import type { QrLevel } from "@/lib/qr/schemas";

/** The error-correction levels in words: how much of the code may be covered or damaged and still scan. */
export const LEVEL_NAMES: Record<QrLevel, string> = {
  L: "Low: 7% may be damaged",
  M: "Medium: 15% may be damaged",
  Q: "High: 25% may be damaged",
  H: "Highest: 30% may be damaged",
};

/** How much damage the code survives (automatic unless chosen), and whether it carries the logo in its centre. */
export function CorrectionOptions({
  level,
  onLevel,
  logo,
  withLogo,
  onWithLogo,
}: {
  /** The level chosen, or "" for automatic. */
  level: QrLevel | "";
  onLevel: (level: QrLevel | "") => void;
  /** Whose logo the code would carry: the link's own, the workspace's default, or none. */
  logo: "link" | "workspace" | "none";
  withLogo: boolean;
  onWithLogo: (on: boolean) => void;
}) {
  return (
    <>
      <SelectField
        id="qr-level"
        label="Error correction"
        help="How much of the code may be covered or damaged and still scan; more makes a denser code."
        value={level}
        onChange={(event) => onLevel(event.target.value as QrLevel | "")}
      >
        <option value="">Automatic ({withLogo ? "highest, with a logo" : "medium"})</option>
        {(Object.keys(LEVEL_NAMES) as QrLevel[]).map((option) => (
          <option key={option} value={option}>
            {LEVEL_NAMES[option]}
          </option>
        ))}
      </SelectField>
      <Checkbox
        className="flex items-end gap-2 pb-2 text-sm"
        inputClassName="h-4 w-4"
        checked={withLogo}
        disabled={logo === "none"}
        onChange={(event) => onWithLogo(event.target.checked)}
        label={
          <>
            Logo in the centre {logo === "workspace" ? "(the workspace's default)" : logo === "none" ? "(upload one first)" : ""}
          </>
        }
      />
    </>
  );
}
