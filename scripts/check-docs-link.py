#!/usr/bin/env python3
"""Fails unless a page of a DocC site links to another page of that site.

    check-docs-link.py SITE FROM_PATH TO_PATH

The paths are documentation paths, as in the site's URLs
(ducksstyle/portingfromrxducks, statecore/disposable). The link must be in
the page's content, resolved (a topic reference with the target's URL, not
code voice or an unresolved link), and the target page must be in the site.
"""
import json
import pathlib
import sys

site, source, target = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
source_path = site / "data/documentation" / f"{source}.json"
target_path = site / "data/documentation" / f"{target}.json"
target_url = f"/documentation/{target}"

page = json.loads(source_path.read_text())
linked = {identifier for identifier, reference in page["references"].items()
          if reference.get("type") == "topic" and reference.get("url") == target_url}
content = json.dumps(page.get("primaryContentSections", [])) + json.dumps(page.get("abstract", []))
used = {identifier for identifier in linked if f'"identifier": "{identifier}"' in content}

if not used:
    sys.exit(f"{source_path}: no resolved link to {target_url} in the page's content")
if not target_path.is_file():
    sys.exit(f"{source_path} links to {target_url}, but {target_path} is not in the site")
print(f"/documentation/{source} links to {target_url}")
