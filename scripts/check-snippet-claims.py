#!/usr/bin/env python3
"""Checks what the README's and guides' examples claim, against what they do.

Reads PACKAGE/claims.json (written by extract-snippets.py, after the
package was built with its tests): runs each example that says what it
prints and compares its output, line for line; runs the tests of the
examples that have tests, which must all pass. Exits non-zero, saying which
example and what differs, when a claim does not hold."""
import json
import pathlib
import subprocess
import sys

package = pathlib.Path(sys.argv[1])
claims = json.loads((package / "claims.json").read_text())
binaries = pathlib.Path(
    subprocess.run(
        ["swift", "build", "--package-path", str(package), "--show-bin-path"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
)
failures = []
checked = 0
for claim in claims:
    if claim["kind"] != "prints":
        continue
    try:
        run = subprocess.run(
            [str(binaries / claim["target"])], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        failures.append(f"{claim['origin']}: did not finish within 120 s")
        continue
    printed = run.stdout.splitlines()
    checked += 1
    if run.returncode != 0:
        failures.append(f"{claim['origin']}: exited with {run.returncode}\n{run.stderr}")
    elif printed != claim["lines"]:
        failures.append(
            f"{claim['origin']}: prints {printed}, but its comments say it prints {claim['lines']}"
        )
tests = [claim for claim in claims if claim["kind"] == "tests"]
if tests:
    run = subprocess.run(
        ["swift", "test", "--package-path", str(package), "--skip-build"],
        capture_output=True, text=True, timeout=1200, stdin=subprocess.DEVNULL,
    )
    output = run.stdout + run.stderr
    if run.returncode != 0:
        origins = ", ".join(claim["origin"] for claim in tests)
        failures.append(f"the examples' tests failed ({origins}):\n" + "\n".join(output.splitlines()[-60:]))
    else:
        checked += len(tests)
for failure in failures:
    print(f"example claim not kept: {failure}", file=sys.stderr)
print(f"{checked} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
