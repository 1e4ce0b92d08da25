#!/usr/bin/env python3
"""Removes from every symbol graph in a folder the symbols whose precise
identifier contains a prefix (another module's), and the relationships that
involve them.

With a third argument, the documented module's name, the members that module
declares in extensions of the other module's types are kept: their precise
identifiers start with the other module's type and carry the extending
module's marker (`17DucksStyleTestingE` for DucksStyleTesting), so
`TestScheduler.start(...)` from DucksStyleTesting stays in DucksStyleTesting's
archive while StateCore's own `TestScheduler` members go."""
import json
import pathlib
import sys

folder, prefix = pathlib.Path(sys.argv[1]), sys.argv[2]
own = f"{len(sys.argv[3])}{sys.argv[3]}E" if len(sys.argv) > 3 else None
for path in folder.glob("*.symbols.json"):
    graph = json.loads(path.read_text())
    dropped = {
        s["identifier"]["precise"]
        for s in graph["symbols"]
        if prefix in s["identifier"]["precise"] and not (own and own in s["identifier"]["precise"])
    }
    graph["symbols"] = [s for s in graph["symbols"] if s["identifier"]["precise"] not in dropped]
    graph["relationships"] = [
        r for r in graph["relationships"] if r["source"] not in dropped and r["target"] not in dropped
    ]
    path.write_text(json.dumps(graph))
