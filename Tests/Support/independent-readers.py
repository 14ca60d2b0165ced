"""Reads Suite's output with parsers nobody on the project wrote, and prints what they saw as JSON.

Usage: independent-readers.py FORMAT FILE
  markdown  markdown-it-py (CommonMark): headings, block tokens, and each inline's text
  ics       Python's icalendar, from bytes and from a text-mode read: every VTODO's fields
  csv       Python's csv module: the rows
  xml       Python's xml.etree: well-formedness and the text of every <text> element
  todotxt   pytodotxt: every task's description, priority, dates, contexts, projects and attributes
"""
import json
import sys


def markdown(path):
    from markdown_it import MarkdownIt

    with open(path, encoding="utf-8", newline="") as handle:
        source = handle.read()
    tokens = MarkdownIt("commonmark").parse(source)
    headings, blocks, inlines, inline_kinds = [], [], [], set()
    pending_heading = None
    for token in tokens:
        blocks.append(token.type)
        if token.type == "heading_open":
            pending_heading = int(token.tag[1:])
        elif token.type == "inline":
            parts = []
            for child in token.children or []:
                inline_kinds.add(child.type)
                if child.type in ("softbreak", "hardbreak"):
                    parts.append("\n")
                else:
                    parts.append(child.content)
            text = "".join(parts)
            if pending_heading is not None:
                headings.append([pending_heading, text])
                pending_heading = None
            else:
                inlines.append(text)
    return {"headings": headings, "blocks": sorted(set(blocks)), "inlineKinds": sorted(inline_kinds), "texts": inlines}


def ics(path):
    import icalendar

    def todos(calendar):
        result = []
        for todo in calendar.walk("VTODO"):
            item = {}
            for key in ("UID", "SUMMARY", "DESCRIPTION", "X-BUNDLE-EVENT", "X-BUNDLE-PREPOSITION", "STATUS"):
                if key in todo:
                    item[key] = str(todo[key])
            result.append(item)
        return result

    with open(path, "rb") as handle:
        from_bytes = todos(icalendar.Calendar.from_ical(handle.read()))
    # Text mode with universal newlines: a lone CR would end a line here.
    with open(path, encoding="utf-8") as handle:
        from_text = todos(icalendar.Calendar.from_ical(handle.read()))
    return {"bytes": from_bytes, "text": from_text}


def csv_rows(path):
    import csv

    with open(path, encoding="utf-8", newline="") as handle:
        return {"rows": list(csv.reader(handle))}


def xml(path):
    import xml.etree.ElementTree as tree

    root = tree.parse(path).getroot()
    texts = ["".join(element.itertext()) for element in root.iter() if element.tag.split("}")[-1] == "text"]
    titles = ["".join(element.itertext()) for element in root.iter() if element.tag.split("}")[-1] == "title"]
    return {"texts": texts, "titles": titles}


def todotxt(path):
    import pytodotxt

    todos = pytodotxt.TodoTxt(path, encoding="utf-8")
    todos.parse()
    tasks = []
    for task in todos.tasks:
        tasks.append({
            "description": task.description or "",
            "priority": task.priority,
            "completed": bool(task.is_completed),
            "creationDate": task.creation_date.isoformat() if task.creation_date else None,
            "contexts": list(task.contexts),
            "projects": list(task.projects),
            "attributes": {key: list(values) for key, values in task.attributes.items()},
        })
    return {"tasks": tasks}


if __name__ == "__main__":
    kind, path = sys.argv[1], sys.argv[2]
    readers = {"markdown": markdown, "ics": ics, "csv": csv_rows, "xml": xml, "todotxt": todotxt}
    json.dump(readers[kind](path), sys.stdout, ensure_ascii=True)
