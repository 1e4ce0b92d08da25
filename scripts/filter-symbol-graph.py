#!/usr/bin/env python3
"""Removes from every symbol graph in a folder the symbols whose precise
identifier contains a prefix (another module's), and the relationships that
involve them."""
import json
import pathlib
import sys

folder, prefix = pathlib.Path(sys.argv[1]), sys.argv[2]
for path in folder.glob("*.symbols.json"):
    graph = json.loads(path.read_text())
    dropped = {s["identifier"]["precise"] for s in graph["symbols"] if prefix in s["identifier"]["precise"]}
    graph["symbols"] = [s for s in graph["symbols"] if s["identifier"]["precise"] not in dropped]
    graph["relationships"] = [
        r for r in graph["relationships"] if r["source"] not in dropped and r["target"] not in dropped
    ]
    path.write_text(json.dumps(graph))
