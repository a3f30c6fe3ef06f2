#!/usr/bin/env python3
"""Turns the page swift-argument-parser's generate-manual plugin wrote for a program into the
installed man page (called by tools/packaging/generate-man).

    finish.py GENERATED SECTIONS [COMMANDS]

GENERATED is the plugin's mdoc page. Its DESCRIPTION is the program's --help discussion, one
line per paragraph with blank lines between: the paragraphs become .Pp paragraphs, the one that
starts "Exit codes:" becomes EXIT STATUS (a list, one item per code) and the one that starts
"Example:" or "Examples:" becomes EXAMPLES (literal). The synthesized `help` subcommand the
plugin lists for a program without subcommands goes. SECTIONS is hand-written mdoc (.Sh
ENVIRONMENT, FILES, SEE ALSO, ...) added in the order man-pages(7) gives. COMMANDS, when given,
is what `oa-repl -c help` prints: it becomes a COMMANDS section. The page goes to standard output.
"""
import re
import sys

ORDER = ["NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES", "SEE ALSO"]


def text_line(line):
    """A line of running text, safe from being read as a request."""
    line = line.replace("\\", "\\e")
    return "\\&" + line if line.startswith((".", "'")) else line


def split_sections(lines):
    """The page's header lines and its sections, as (name, body lines)."""
    header, sections = [], []
    for line in lines:
        if line.startswith(".Sh "):
            sections.append([line[4:].strip().strip('"'), []])
        elif sections:
            sections[-1][1].append(line)
        else:
            header.append(line)
    return header, sections


def exit_status(paragraph):
    body = paragraph[len("Exit codes:"):].strip().rstrip(".")
    out = [".Bl -tag -width Ds -compact"]
    for item in re.split(r";\s+(?=\d+ )", body):
        code, _, meaning = item.partition(" ")
        out += [".It " + code, text_line(meaning)]
    return out + [".El"]


def examples(paragraph):
    first, *rest = paragraph.split("\n")
    lines = [line.strip() for line in rest] if first.strip() == "Examples:" else [first.partition(":")[2].strip()]
    return [".Bd -literal -offset indent"] + [text_line(line) for line in lines if line] + [".Ed"]


def description(body):
    """DESCRIPTION's paragraphs and option list; EXIT STATUS and EXAMPLES taken out of it."""
    list_start = next((i for i, line in enumerate(body) if line.startswith(".Bl")), len(body))
    prose, options = "\n".join(body[:list_start]), body[list_start:]
    paragraphs = [p.strip("\n") for p in re.split(r"\n\s*\n", prose) if p.strip()]
    kept, moved = [], {}
    for paragraph in paragraphs:
        if paragraph.startswith("Exit codes:"):
            moved["EXIT STATUS"] = exit_status(paragraph)
        elif re.match(r"Examples?:", paragraph):
            moved["EXAMPLES"] = examples(paragraph)
        else:
            kept += [".Pp"] + [text_line(line) for line in paragraph.split("\n")]
    return kept[1:] + [".Pp"] + clean_options(options), moved


def clean_options(lines):
    """The option list without the synthesized help subcommand and without stray .Pp."""
    out, skip = [], 0
    for i, line in enumerate(lines):
        if skip:
            skip -= 1
            continue
        if line == ".It Em help":
            skip = 4  # its summary, .Bl, .It Ar subcommands..., .El
            continue
        if line == ".Pp" and i + 1 < len(lines) and lines[i + 1].startswith((".It", ".El")):
            continue
        out.append(line)
    return out


def commands_section(text):
    """oa-repl's command list: `usage  summary` lines, then a closing paragraph."""
    entries, tail = [], []
    for line in text.splitlines():
        if not line.strip():
            continue
        parts = re.split(r"\s{2,}", line, maxsplit=1)
        if len(parts) == 2:
            entries += ['.It Li "' + parts[0].replace("\\", "\\e").replace('"', "\\(dq") + '"', text_line(parts[1])]
        else:
            tail.append(text_line(line))
    intro = ["Typed at the prompt, given to", ".Fl c", "or piped in, one per line:"]
    return intro + [".Bl -tag -width Ds"] + entries + [".El", ".Pp"] + tail


def main():
    generated, sections_file = sys.argv[1], sys.argv[2]
    header, sections = split_sections(open(generated).read().splitlines())
    header = ['.Os "OpenAgents Mirror"' if line == ".Os" else line for line in header if not line.startswith('.\\"')]
    found = {}
    for name, body in sections:
        if name == "SYNOPSIS":
            body = [line for line in body if line != ".Ar subcommand"]
        if name == "DESCRIPTION":
            body, moved = description(body)
            found.update(moved)
        if name == "EXIT STATUS" and "EXIT STATUS" in found:
            continue
        found[name] = body
    if len(sys.argv) > 3:
        found["COMMANDS"] = commands_section(open(sys.argv[3]).read())
    for name, body in split_sections(open(sections_file).read().splitlines())[1]:
        found[name] = body
    unknown = set(found) - set(ORDER)
    if unknown:
        sys.exit(f"finish.py: sections with no place in the page: {', '.join(sorted(unknown))}")
    out = ['.\\" Made by tools/packaging/generate-man from the program\'s --help (swift-argument-parser\'s generate-manual) and ' + sections_file + '.']
    out += header
    for name in ORDER:
        if name in found:
            out.append(".Sh " + (f'"{name}"' if " " in name else name))
            out += found[name]
    print("\n".join(out))


main()
