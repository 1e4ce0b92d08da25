#!/usr/bin/env python3
"""Writes each ```swift block of the given Markdown files, and of the doc
comments of the given Swift files, into its own executable target of a
package at OUTPUT that depends on this package. A Swift file's blocks get
the context in scripts/snippet-contexts/<file name> first."""
import pathlib
import re
import shutil
import sys

output = pathlib.Path(sys.argv[1])
files = [pathlib.Path(name) for name in sys.argv[2:]]
block = re.compile(r"^```swift\n(.*?)^```", re.M | re.S)
contexts = pathlib.Path(__file__).parent / "snippet-contexts"


def doc_comment_text(source):
    """The text of a Swift file's `///` comments, one line per line."""
    lines = []
    for line in source.split("\n"):
        stripped = line.strip()
        if stripped == "///":
            lines.append("")
        elif stripped.startswith("/// "):
            lines.append(stripped[4:])
    return "\n".join(lines) + "\n"


shutil.rmtree(output / "Sources", ignore_errors=True)
targets = []
for path in files:
    text = path.read_text()
    prelude = ""
    if path.suffix == ".swift":
        # A symbol doc's example: the names it assumes (an app's reducer, a
        # test store) come from the context file named after the source.
        text = doc_comment_text(text)
        context = contexts / path.name
        if block.search(text):
            if not context.exists():
                sys.exit(f"{path}: its doc comments have examples; write their context in {context}")
            prelude = context.read_text() + "\n"
    for index, match in enumerate(block.finditer(text), start=1):
        name = re.sub(r"[^A-Za-z0-9]", "_", f"{path.parent.name}_{path.stem}_{index}").strip("_")
        folder = output / "Sources" / name
        folder.mkdir(parents=True)
        code = match.group(1)
        if "// Each example runs in a scope of its own." in prelude:
            # It may declare what the context declares for another example.
            code = "do {\n" + code + "}\n"
        (folder / "main.swift").write_text(f"// {path}, block {index}\n" + prelude + code)
        targets.append(name)

products = [
    "ReactorStyle", "DucksStyle", "ReceiverStyle", "DeltaStyle", "StateInspector", "StateConformance", "StateTesting",
    "ReactorStyleTesting", "DucksStyleTesting", "ReceiverStyleTesting", "DeltaStyleTesting",
]
dependencies = ", ".join(f'.product(name: "{p}", package: "main")' for p in products)
manifest = [
    "// swift-tools-version: 6.0",
    "import PackageDescription",
    "let package = Package(",
    '    name: "Snippets",',
    "    platforms: [.macOS(.v15), .iOS(.v18)],",
    '    dependencies: [.package(name: "main", path: "../..")],',
    "    targets: [",
]
manifest += [f'        .executableTarget(name: "{t}", dependencies: [{dependencies}]),' for t in targets]
manifest += ["    ],", "    swiftLanguageModes: [.v6]", ")"]
output.mkdir(parents=True, exist_ok=True)
(output / "Package.swift").write_text("\n".join(manifest) + "\n")
print(f"{len(targets)} snippets from {len(files)} files")
