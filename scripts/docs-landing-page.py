#!/usr/bin/env python3
"""Gives a merged DocC site the landing page of an article-only archive.

`docc merge` in this toolchain only synthesizes a landing page: a title and
a grid of the merged modules. This keeps that page (its place in the
navigator, its title, its grid, reordered as the modules are given) and adds
the article's abstract and content, with the references and images they use.

    docs-landing-page.py SITE ARTICLE_ARCHIVE MODULE...
"""
import json
import pathlib
import shutil
import sys

site, article_archive, modules = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3:]

landing_path = site / "data/documentation.json"
landing = json.loads(landing_path.read_text())
(article_path,) = (article_archive / "data/documentation").glob("*.json")
article = json.loads(article_path.read_text())

landing["abstract"] = article["abstract"]
landing["primaryContentSections"] = article["primaryContentSections"]
landing["references"].update(article["references"])

# The grid lists the modules in the order given (the core, the flavours, the
# kits), not alphabetically.
module_ids = {reference["url"].rsplit("/", 1)[-1]: identifier for identifier, reference in landing["references"].items()
              if reference.get("type") == "topic" and reference.get("kind") == "symbol"}
missing = [module for module in modules if module.lower() not in module_ids]
if missing:
    sys.exit(f"the merged site has no module page for {', '.join(missing)}")
landing["topicSections"] = [{"title": "Modules", "identifiers": [module_ids[module.lower()] for module in modules]}]

landing_path.write_text(json.dumps(landing))

# Images the article shows (copied under the article's bundle identifier).
images = article_archive / "images"
if images.is_dir():
    shutil.copytree(images, site / "images", dirs_exist_ok=True)
