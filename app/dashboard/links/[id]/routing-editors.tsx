import type { LinkView } from "@/lib/links/schemas";
import { RulesEditor } from "./rules-editor";
import { ScheduleEditor } from "./schedule-editor";

/** The link page's rules and schedule editors (each its own file, with the "test as" preview beside the rules). */
export function LinkRouting({ link, canEdit, zone }: { link: LinkView; canEdit: boolean; zone: string }) {
  return (
    <>
      <RulesEditor id={link.id} destination={link.destination} rules={link.rules} canEdit={canEdit} />
      {/* Drawn afresh once the browser has told its zone (ViewerTimeZone), so the times are read in it. */}
      <ScheduleEditor key={zone} id={link.id} schedule={link.schedule} canEdit={canEdit} zone={zone} />
    </>
  );
}
