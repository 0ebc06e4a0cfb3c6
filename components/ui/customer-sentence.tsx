import Link from "next/link";
import { Fragment } from "react";

/** The dashboard's places a sentence may send the customer to (inCustomerWords writes them so), each linked where it is named. */
const PLACES: Record<string, string> = {
  "in Billing": "/dashboard/billing",
  "in Settings": "/dashboard/settings",
  "on the Domains page": "/dashboard/domains",
};

const NAMED_PLACE = new RegExp(`\\b(${Object.keys(PLACES).join("|")})\\b`);

/** A sentence with the places it names as links ("Choose a plan in Billing": Billing opens Billing). */
export function CustomerSentence({ text }: { text: string }) {
  return text.split(NAMED_PLACE).map((part, index) => {
    const href = PLACES[part];
    if (!href) return <Fragment key={index}>{part}</Fragment>;
    const [preposition, ...place] = part.split(" ");
    return (
      <Fragment key={index}>
        {preposition} <Link href={href}>{place.join(" ")}</Link>
      </Fragment>
    );
  });
}
