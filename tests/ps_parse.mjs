// Parse PowerShell text (stdin) with tree-sitter-powershell and print what it assigns:
// NAME=value for `$env:NAME = '...' [+ [IO.Path]::PathSeparator + '...']` (a part with a
// non-ASCII character: ('' + '...' + [char]0x00E9 + '...')), NAME for
// Remove-Item 'Env:NAME'. Exits 1 on a syntax error or on anything that would expand.
// Usage: node ps_parse.mjs SEPARATOR < file.ps1   (NODE_PATH: where the packages are)
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
const require = createRequire(process.env.NODE_PATH + "/");
const Parser = (await import(require.resolve("tree-sitter"))).default;
const PowerShell = (await import(require.resolve("tree-sitter-powershell"))).default;
const parser = new Parser();
parser.setLanguage(PowerShell);
const sep = process.argv[2] ?? ":";
const text = readFileSync(0, "utf8");
const tree = parser.parse(text);
if (tree.rootNode.hasError) {
  console.error("syntax error: " + tree.rootNode.toString());
  process.exit(1);
}
const all = (node, type) => node.descendantsOfType(type);
// A verbatim string: no expansion; '' and the typographic quotes doubled stand for one.
const decode = (s) => s.slice(1, -1).replace(/(['\u2018\u2019\u201a\u201b])\1/g, "$1");
// The right side of an assignment, as cdm writes it: verbatim strings, [char]0xNNNN (a UTF-16
// code unit: cdm's text is ASCII), [IO.Path]::PathSeparator, joined with + and grouped with
// ( ); anything else is refused.
const evaluate = (rhs) => {
  const token = /\s*(?:('(?:[^']|'')*')|\[char\]0x([0-9A-Fa-f]{4})|(\[IO\.Path\]::PathSeparator)|([+()]))/y;
  let value = "";
  let t;
  while (token.lastIndex < rhs.length && (t = token.exec(rhs))) {
    if (t[1] !== undefined) value += decode(t[1]);
    else if (t[2] !== undefined) value += String.fromCharCode(parseInt(t[2], 16));
    else if (t[3] !== undefined) value += sep;
  }
  if (token.lastIndex < rhs.trimEnd().length) {
    console.error("not cdm's form of a value: " + rhs);
    process.exit(1);
  }
  return value;
};
for (const statement of all(tree.rootNode, "pipeline").filter((p) => p.parent.type === "statement_list")) {
  const strings = all(statement, "string_literal").map((n) => n.text);
  if (strings.some((s) => !s.startsWith("'"))) {
    console.error("an expandable string: " + statement.text);
    process.exit(1);
  }
  const values = strings.map(decode);
  const m = /^\$env:([A-Za-z_]+) = /.exec(statement.text);
  if (m) {
    if (all(statement, "variable").length !== 1) {
      console.error("a variable on the right: " + statement.text);
      process.exit(1);
    }
    console.log(m[1] + "=" + evaluate(statement.text.slice(m[0].length)));
  } else if (statement.text.startsWith("Remove-Item") && values.length === 1) {
    console.log(values[0].replace(/^Env:/, ""));
  } else {
    console.error("unexpected statement: " + statement.text);
    process.exit(1);
  }
}
