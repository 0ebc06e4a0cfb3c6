import { describe, expect, it } from "vitest";
import { foldedKey } from "./link-cache";

describe("the cache's fold groups every typed form PostgreSQL folds together", () => {
  it.each([
    ["go.example/MENU", "go.example/menu"],
    ["go.example/CAFÉ", "go.example/café"],
    ["go.example/ΣΑΣ", "go.example/σασ"],
    ["go.example/İstanbul", "go.example/istanbul"],
    ["go.example/MAÑANA", "go.example/mañana"],
  ])("%s with %s", (typed, stored) => expect(foldedKey(typed)).toBe(foldedKey(stored)));
});
