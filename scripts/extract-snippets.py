#!/usr/bin/env python3
"""Writes each ```swift block of the given Markdown files, and of the doc
comments of the given Swift files, into its own target of a package at
OUTPUT that depends on this package. A Swift file's blocks get the context
in scripts/snippet-contexts/<file name> first.

A Markdown block that claims a result is also checked, not only built; the
claims go to OUTPUT/claims.json for scripts/check-snippets:
- `// prints "text"` comments (and `// prints nothing`): the block is an
  executable whose standard output must be exactly those lines, in order;
- test functions (`@Test func …`, or a `func test…()` a reader would call
  from a test): the block becomes a test target, each `func test…()` run
  by a Swift Testing test of its own, and every test must pass."""
import json
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


printed = re.compile(r'//\s*prints\s+(nothing|"((?:[^"\\]|\\.)*)")')
plain_test = re.compile(r"^func (test\w*)\(\)\s*(async)?\s*(throws)?", re.M)


def claims_of(code):
    """What a Markdown block claims: the lines it prints, and its tests."""
    lines = [match.group(2) for match in printed.finditer(code) if match.group(1) != "nothing"]
    prints = bool(printed.search(code))
    tests = "@Test" in code or bool(plain_test.search(code))
    return prints, lines, tests


def test_runners(code):
    """A Swift Testing test for each plain `func test…()` of a block."""
    runners = []
    for match in plain_test.finditer(code):
        name, is_async, throws = match.group(1), match.group(2), match.group(3)
        call = ("try " if throws else "") + ("await " if is_async else "") + f"{name}()"
        effects = ("async " if is_async else "") + ("throws " if throws else "")
        runners.append(f'@Test("{name}, as the example shows") func example_{name}() {effects}{{ {call} }}')
    return runners


shutil.rmtree(output / "Sources", ignore_errors=True)
shutil.rmtree(output / "Tests", ignore_errors=True)
targets = []
test_targets = []
claims = []
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
        code = match.group(1)
        origin = f"{path}, block {index}"
        prints, lines, tests = claims_of(code) if path.suffix == ".md" else (False, [], False)
        if tests:
            # Declarations only: a test target, whose tests must pass.
            folder = output / "Tests" / name
            folder.mkdir(parents=True)
            runners = "\n".join(test_runners(code))
            (folder / "Example.swift").write_text(f"// {origin}\nimport Testing\n" + code + "\n" + runners + "\n")
            test_targets.append(name)
            claims.append({"origin": origin, "target": name, "kind": "tests"})
            continue
        folder = output / "Sources" / name
        folder.mkdir(parents=True)
        if "// Each example runs in a scope of its own." in prelude:
            # It may declare what the context declares for another example.
            code = "do {\n" + code + "}\n"
        (folder / "main.swift").write_text(f"// {origin}\n" + prelude + code)
        targets.append(name)
        if prints:
            claims.append({"origin": origin, "target": name, "kind": "prints", "lines": lines})

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
manifest += [
    f'        .testTarget(name: "{t}", dependencies: [{dependencies}], path: "Tests/{t}"),' for t in test_targets
]
manifest += ["    ],", "    swiftLanguageModes: [.v6]", ")"]
output.mkdir(parents=True, exist_ok=True)
(output / "Package.swift").write_text("\n".join(manifest) + "\n")
(output / "claims.json").write_text(json.dumps(claims, indent=1) + "\n")
print(f"{len(targets) + len(test_targets)} snippets from {len(files)} files, {len(claims)} of them claiming a result")
