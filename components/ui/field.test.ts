import { parseDocument } from "htmlparser2";
import { createElement, type ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Button } from "./button";
import { controlProps, SelectField, TextField } from "./field";
import { Checkbox } from "./input";

type Element = { name: string; attribs: Record<string, string>; children: Node[] };
type Node = Element | { type: string; data?: string; children?: Node[] };

/** The elements of the markup React renders, in document order. */
function elements(element: ReactElement): Element[] {
  const found: Element[] = [];
  const walk = (nodes: Node[]) => {
    for (const node of nodes) {
      if ("name" in node) found.push(node);
      if (node.children) walk(node.children);
    }
  };
  walk(parseDocument(renderToStaticMarkup(element)).children as Node[]);
  return found;
}

const text = (node: Node): string =>
  "data" in node && node.data !== undefined ? node.data : (node.children ?? []).map(text).join("");

const one = (found: Element[], name: string) => {
  const matching = found.filter((element) => element.name === name);
  expect(matching).toHaveLength(1);
  return matching[0]!;
};

describe("Field", () => {
  it("names the control by its label, and describes it by the refusal and the help, marking it invalid", () => {
    const found = elements(
      createElement(TextField, {
        id: "slug",
        label: "Custom slug",
        help: "Leave it empty.",
        error: "That slug is taken.",
        name: "slug",
      }),
    );
    const label = one(found, "label");
    const input = one(found, "input");
    expect(label.attribs.for).toBe("slug");
    expect(input.attribs).toMatchObject({
      id: "slug",
      name: "slug",
      "aria-invalid": "true",
      "aria-describedby": "slug-error slug-help",
    });
    const help = found.find((element) => element.attribs.id === "slug-help")!;
    const error = found.find((element) => element.attribs.id === "slug-error")!;
    expect(text(help)).toBe("Leave it empty.");
    expect(error.attribs.role).toBe("alert");
    expect(text(error)).toBe("That slug is taken.");
  });

  it("pairs label and control with an id of React's own when none is given", () => {
    const found = elements(
      createElement(SelectField, { label: "Role", name: "role" }, createElement("option", { value: "member" }, "member")),
    );
    const id = one(found, "select").attribs.id;
    expect(id).toBeTruthy();
    expect(one(found, "label").attribs.for).toBe(id);
  });

  it("claims nothing without a refusal: no invalid mark, no alert, only the descriptions there are", () => {
    const found = elements(createElement(TextField, { id: "title", label: "Title", optional: true, describedBy: "title-note" }));
    const input = one(found, "input");
    expect(input.attribs["aria-invalid"]).toBeUndefined();
    expect(input.attribs["aria-describedby"]).toBe("title-note");
    expect(found.some((element) => element.attribs.role === "alert")).toBe(false);
    expect(text(one(found, "label"))).toBe("Title (optional)");
    expect(controlProps("title", {})).toEqual({ id: "title" });
  });

  it("keeps the field's class on the field and the control's on the control", () => {
    const found = elements(createElement(TextField, { id: "tag", label: "Tag", className: "grow", controlClassName: "w-36" }));
    expect(found[0]!.attribs.class).toBe("grow");
    expect(one(found, "input").attribs.class).toMatch(/^block w-full .* w-36$/);
  });
});

describe("Button and Checkbox", () => {
  it("makes a button that sends no form unless it says so", () => {
    expect(one(elements(createElement(Button, null, "Cancel")), "button").attribs.type).toBe("button");
    expect(one(elements(createElement(Button, { type: "submit", variant: "primary" }, "Save")), "button").attribs).toMatchObject({
      type: "submit",
      class: expect.stringContaining("bg-accent"),
    });
  });

  it("puts a checkbox inside its label, so its words are its name", () => {
    const found = elements(createElement(Checkbox, { label: "All on this page", name: "all" }));
    expect(found.map((element) => element.name)).toEqual(["label", "input"]);
    expect(found[1]!.attribs).toMatchObject({ type: "checkbox", name: "all" });
    expect(text(found[0]!)).toBe("All on this page");
  });
});
