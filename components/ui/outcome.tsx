import { CustomerSentence } from "./customer-sentence";
import { errorClass, noticeClass } from "./styles";

/** A dashboard action's answer in its own words: the sentence of what was done, or the error sentence; null before the first try. */
export type ActionSentence = { ok: true; value: string } | { ok: false; error: string; field?: string } | null;

/** Shows an action's answer: a status for screen readers when it worked, an alert when it did not. */
export function ActionOutcome({ state }: { state: ActionSentence }) {
  if (!state) return null;
  if (!state.ok) return <ErrorSentence error={state.error} />;
  return (
    <p role="status" className={noticeClass + " mt-2"}>
      {state.value}
    </p>
  );
}

/** An action's error sentence, announced as an alert; nothing when there is none. */
export function ErrorSentence({ error }: { error: string | undefined }) {
  if (!error) return null;
  return (
    <p role="alert" className={errorClass + " mt-2"}>
      <CustomerSentence text={error} />
    </p>
  );
}
