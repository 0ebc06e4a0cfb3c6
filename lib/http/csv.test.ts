import { describe, expect, it } from "vitest";
import { csvCell, csvRow, csvTable } from "./csv";

describe("csvCell", () => {
  it.each([
    ['=HYPERLINK("https://evil.example","click")', '"\'=HYPERLINK(""https://evil.example"",""click"")"'],
    ["+1+2", '"\'+1+2"'],
    ["-2+3", '"\'-2+3"'],
    ["@SUM(A1)", '"\'@SUM(A1)"'],
    ["\tcmd", '"\'\tcmd"'],
    ["\rcmd", '"\'\rcmd"'],
  ])("prefixes the formula %j with a quote and quotes the field", (value, written) => {
    expect(csvCell(value)).toBe(written);
  });

  it.each([
    [";=1+1", '"\';=1+1"'],
    [" =1+1", '"\' =1+1"'],
    ['"=1+1', '"\'""=1+1"'],
    [", @SUM(A1)", '"\', @SUM(A1)"'],
    ["|-2", '"\'|-2"'],
    ["\uff1d1+1", '"\'\uff1d1+1"'],
  ])("prefixes %j, a formula behind separator-like characters, with a quote", (value, written) => {
    expect(csvCell(value)).toBe(written);
  });

  it("quotes every text cell, doubling its quotes, and prefixes nothing that starts with text", () => {
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
    expect(csvCell("https://example.com/a-b?x=1")).toBe('"https://example.com/a-b?x=1"');
    expect(csvCell("Menu = 2")).toBe('"Menu = 2"');
  });

  it("writes numbers as they are (a negative count is no formula) and nothing for null", () => {
    expect(csvCell(-3)).toBe("-3");
    expect(csvCell(null)).toBe("");
    expect(csvCell(undefined)).toBe("");
  });
});

describe("csvTable", () => {
  it("writes the header and rows with CRLF line ends", () => {
    expect(csvTable(["key", "scans"], [["=x", 2]])).toBe('"key","scans"\r\n"\'=x",2\r\n');
    expect(csvRow(["a", 1])).toBe('"a",1\r\n');
  });
});
