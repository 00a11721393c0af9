#!/usr/bin/env python3
"""The rules PowerShell text of cdm's must keep, for what a parser cannot see: checked over
each golden PowerShell text and the live ones (tests/cli/ps_rules.sh), where no PowerShell
can be run.

  ascii       only ASCII: Windows PowerShell 5.1 reads a script without a BOM, and a native
              program's output piped to Out-String, in the ANSI or OEM code page, so any
              other character arrives changed ([char]0x00E9 spells one instead)
  ps51        no syntax that PowerShell 5.1 lacks: && and || (pipeline chains), ??, ??=,
              ?. and ?[ (7.0 and 7.1), the ternary ? :
  balanced    every string, brace, bracket and parenthesis closed
  verbatim    activation and deactivation texts (--data): single-quoted strings only, so
              that no '$', '`' or '"' of a path is ever expanded
  strict      under Set-StrictMode -Version Latest, reading a variable that was never set
              stops the script: every variable read is set before it in the text (or a
              parameter, a loop variable, an automatic one that is always set); $env: reads
              are exempt; $LASTEXITCODE is unset until a native program ran

Usage: ps_rules.py [--data] FILE...   (- for standard input). Prints "RULE: FILE:LINE: what"
for each violation; exits 1 when there is one.
"""
import re
import sys

AUTOMATIC = {
    "_", "true", "false", "null", "args", "input", "executioncontext", "psversiontable",
    "pwd", "home", "host", "profile", "erroractionpreference", "psscriptroot", "this",
    "pscmdlet", "myinvocation", "psboundparameters", "error", "?", "^", "$",
}
PS7_ONLY = {"&&": "&& (PowerShell 7)", "||": "|| (PowerShell 7)", "??": "?? (PowerShell 7)",
            "??=": "??= (PowerShell 7)", "?.": "?. (PowerShell 7.1)", "?[": "?[ (PowerShell 7.1)"}
# foreach ($n in 'a', 'b') { ... Set-Variable -Name $n ... }: sets each name it lists
SET_EACH = re.compile(r"foreach\s*\(\s*\$(\w+)\s+in\s+((?:'[^']*'\s*,?\s*)+)\)\s*\{[^}]*"
                      r"Set-Variable\s+-Name\s+\$\1\b", re.I)
VAR = re.compile(r"\$(?:\{([^}]*)\}|([A-Za-z_][A-Za-z0-9_]*:)?([A-Za-z0-9_]+|[?^$]))")


class Text:
    def __init__(self, name, text, data):
        self.name, self.text, self.data = name, text, data
        self.problems = []
        self.defined = set()

    def line(self, i):
        return self.text.count("\n", 0, i) + 1

    def say(self, rule, i, what):
        self.problems.append("%s: %s:%d: %s" % (rule, self.name, self.line(i), what))


def var_key(scope, name):
    scope = (scope or "").lower().rstrip(":")
    return scope, name.lower()


def read_var(t, i, scope, name):
    scope, name = var_key(scope, name)
    if scope in ("env", "function", "variable", "alias"):
        return
    if name == "lastexitcode":
        t.say("strict", i, "$LASTEXITCODE is unset until a native program ran; read it with "
              "Get-Variable LASTEXITCODE -Scope Global -ValueOnly -ErrorAction SilentlyContinue")
    elif name not in AUTOMATIC and name not in t.defined:
        t.say("strict", i, "$%s%s is read before it is set" % (scope + ":" if scope else "", name))


def scan_double(t, i):
    """A double-quoted string from i: its end, and each variable it expands read."""
    if t.data:
        t.say("verbatim", i, "an expandable (double-quoted) string in a data text")
    j = i + 1
    while j < len(t.text):
        c = t.text[j]
        if c == "`":
            j += 2
            continue
        if c == '"':
            if t.text[j + 1:j + 2] == '"':
                j += 2
                continue
            return j + 1
        if c == "$":
            m = VAR.match(t.text, j)
            if m and not t.text.startswith("$(", j):
                read_var(t, j, m.group(2), m.group(1) or m.group(3))
                j = m.end()
                continue
        j += 1
    t.say("balanced", i, "a double-quoted string is not closed")
    return j


def scan_single(t, i):
    j = i + 1
    while j < len(t.text):
        if t.text[j] == "'":
            if t.text[j + 1:j + 2] == "'":
                j += 2
                continue
            return j + 1
        j += 1
    t.say("balanced", i, "a single-quoted string is not closed")
    return j


def next_code(text, j):
    """The first character after j that is not a blank on the same line."""
    while j < len(text) and text[j] in " \t":
        j += 1
    return text[j:j + 2]


def scan(t):
    text, i, stack, prev = t.text, 0, [], ""
    pairs = {"(": ")", "{": "}", "[": "]"}
    for k, ch in enumerate(text):
        if ord(ch) > 127:
            t.say("ascii", k, "the character %r (U+%04X)" % (ch, ord(ch)))
    while i < len(text):
        c = text[i]
        if text.startswith("<#", i):
            end = text.find("#>", i)
            i = len(text) if end < 0 else end + 2
        elif c == "#":
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
        elif c == "'":
            i = scan_single(t, i)
        elif c == '"':
            i = scan_double(t, i)
        elif c == "@" and text[i + 1:i + 2] in ("'", '"'):
            t.say("verbatim" if t.data else "balanced", i, "a here-string")
            i += 2
        elif c == "$" and not text.startswith("$(", i):
            m = VAR.match(text, i)
            if not m:
                i += 1
                continue
            scope, name = m.group(2), m.group(1) or m.group(3)
            after = next_code(text, m.end())
            # set: assigned, a [type] parameter, a foreach or param() variable
            if (after[:1] == "=" and after != "==") or after in ("+=", "-=") or prev == "]" \
                    or re.search(r"(foreach\s*\(|param\s*\()[^)]*$", text[max(0, i - 200):i], re.I):
                t.defined.add(var_key(scope, name)[1])
            else:
                read_var(t, i, scope, name)
            i, prev = m.end(), "$"
        elif c in pairs:
            stack.append((pairs[c], i))
            i, prev = i + 1, c
        elif c in ")}]":
            if not stack or stack[-1][0] != c:
                t.say("balanced", i, "an unmatched %r" % c)
            else:
                stack.pop()
            i, prev = i + 1, c
        elif c in "&|?":
            op = next((o for o in ("??=", "&&", "||", "??", "?.", "?[") if text.startswith(o, i)), None)
            if op:
                t.say("ps51", i, PS7_ONLY[op])
                i += len(op)
            else:
                if c == "?" and next_code(text, i + 1)[:1] not in ("{", "|", ""):
                    t.say("ps51", i, "the ternary ? : (PowerShell 7)")
                i += 1
            prev = c
        else:
            m = SET_EACH.match(text, i) if c in "fF" else None
            if m:
                t.defined.update(n.lower() for n in re.findall(r"'([^']*)'", m.group(2)))
            if not c.isspace():
                prev = c
            i += 1
    for closer, at in stack:
        t.say("balanced", at, "%r is not closed" % {")": "(", "}": "{", "]": "["}[closer])


def main(argv):
    data = "--data" in argv
    problems = []
    for name in [a for a in argv if a != "--data"]:
        text = sys.stdin.read() if name == "-" else open(name, encoding="utf-8", errors="replace").read()
        t = Text(name, text, data)
        scan(t)
        problems += t.problems
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
