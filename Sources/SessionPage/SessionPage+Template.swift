// The page around the recording: its styles and its script, written once
// here. The script reads the recording from the `session-data` element and
// builds everything with text nodes; it asks for nothing over a network.
//
// What a test (or a person with the browser's inspector) reads off the
// rendered page: `#step-count` (the steps), `#step-number` (the step shown),
// `#step-lane` and `#step-sequence` (its log and its sequence number),
// `#state-json` (the state after it, as JSON), `#diff li` (what changed),
// `#inputs li` (one per step), `#query-results li` (a query's steps, for
// the query in the address: `#step=k&query=changed%20progress`).

extension SessionPage {
    static let pageStart = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
        <title>
        """

    static let pageMiddle = """
        </title>
        <style>
        :root { --ink: #1d232b; --muted: #5b6572; --line: #d9dee5; --paper: #ffffff; --wash: #f4f6f9; --mark: #d1242f; --now: #0b63ce; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 14px/1.45 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: var(--wash); }
        header { padding: 12px 20px; background: var(--paper); border-bottom: 1px solid var(--line); }
        header h1 { font-size: 17px; margin: 0 0 2px; }
        header p { margin: 0; color: var(--muted); }
        main { padding: 12px 20px 24px; }
        section { background: var(--paper); border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; margin-bottom: 12px; }
        h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 0 0 8px; }
        #timeline { overflow-x: auto; }
        #timeline svg { display: block; }
        #timeline text { font-size: 11px; fill: var(--ink); }
        .controls { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
        .controls input[type=range] { flex: 1; min-width: 200px; }
        button { font: inherit; padding: 2px 10px; border: 1px solid var(--line); border-radius: 4px; background: var(--wash); cursor: pointer; }
        .columns { display: grid; grid-template-columns: minmax(260px, 1fr) minmax(320px, 1.4fr); gap: 12px; }
        @media (max-width: 800px) { .columns { grid-template-columns: 1fr; } }
        input[type=text] { font: inherit; width: 100%; padding: 4px 6px; border: 1px solid var(--line); border-radius: 4px; }
        #inputs { position: relative; list-style: none; margin: 8px 0 0; padding: 0; max-height: 460px; overflow-y: auto; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
        #inputs li { padding: 2px 6px; border-radius: 3px; cursor: pointer; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        #inputs li.current { background: #dbe9fb; }
        #inputs li.hidden { display: none; }
        #inputs li.segment-start { border-top: 2px solid var(--muted); }
        #inputs li.gap-before { border-top: 2px dashed var(--mark); }
        .lane-name { color: var(--muted); }
        pre { margin: 0; font: 12px/1.4 ui-monospace, Menlo, Consolas, monospace; white-space: pre-wrap; word-break: break-word; }
        #state-json { max-height: 420px; overflow-y: auto; background: var(--wash); padding: 8px; border-radius: 4px; }
        #diff { margin: 0 0 10px; padding-left: 18px; font: 12px/1.5 ui-monospace, Menlo, Consolas, monospace; }
        #diff .none { color: var(--muted); list-style: none; margin-left: -18px; }
        dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0 0 10px; }
        dt { color: var(--muted); }
        dd { margin: 0; font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; word-break: break-word; }
        #query-error { color: var(--mark); }
        #query-results { margin: 6px 0 0; padding-left: 18px; max-height: 160px; overflow-y: auto; }
        .hint { color: var(--muted); font-size: 12px; margin: 4px 0 0; }
        code { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 12px; }
        a { color: var(--now); }
        </style>
        </head>
        <body>
        <header>
          <h1 id="title"></h1>
          <p id="summary"></p>
        </header>
        <main>
          <section>
            <h2>Timeline</h2>
            <div class="controls">
              <label><input type="checkbox" id="by-time"> one column per step, in time order (otherwise lanes line up by entry)</label>
            </div>
            <div id="timeline"></div>
          </section>
          <section>
            <div class="controls">
              <button id="previous" title="previous step (left arrow)">◀</button>
              <input type="range" id="scrubber" min="1" max="1" value="1" aria-label="step">
              <button id="next" title="next step (right arrow)">▶</button>
              <span>step <strong id="step-number">0</strong> of <strong id="step-count">0</strong></span>
            </div>
          </section>
          <div class="columns">
            <section>
              <h2>Inputs</h2>
              <input type="text" id="filter" placeholder="filter: text in an input's type, value or log">
              <ol id="inputs"></ol>
            </section>
            <section>
              <h2>The step</h2>
              <dl>
                <dt>log</dt><dd id="step-lane"></dd>
                <dt>sequence</dt><dd id="step-sequence"></dd>
                <dt>segment</dt><dd id="step-segment"></dd>
                <dt>thread</dt><dd id="step-thread"></dd>
                <dt>time</dt><dd id="step-time"></dd>
                <dt>input</dt><dd id="step-input"></dd>
                <dt>line</dt><dd id="step-line"></dd>
              </dl>
              <h2>What changed</h2>
              <ul id="diff"></ul>
              <h2>State after it</h2>
              <pre id="state-json"></pre>
            </section>
          </div>
          <section>
            <h2>Query</h2>
            <input type="text" id="query" placeholder="changed cart.total · loading: false -> true · first count == 3">
            <p class="hint">
              <code>changed PATH</code> the steps where PATH changed ·
              <code>PATH: A -> B</code> where it went from A to B ·
              <code>PATH == V</code> where it is V after the step ·
              <code>first …</code> only the first of them.
              A path is keys and indices: <code>todos[1].title</code>; values are JSON (<code>true</code>, <code>3</code>, <code>"Eggs"</code>).
            </p>
            <p id="query-error"></p>
            <p id="query-count"></p>
            <ol id="query-results"></ol>
          </section>
        </main>
        <script type="application/json" id="session-data">
        """

    static let pageEnd = """
        </script>
        <script>
        (function () {
          "use strict";
          var data = JSON.parse(document.getElementById("session-data").textContent);
          var lanes = data.lanes, steps = data.steps, segments = data.segments;
          var byId = function (id) { return document.getElementById(id); };
          var laneName = function (lane) { return lanes[lane].name === null ? "(unnamed log)" : lanes[lane].name; };

          // Each step's state before it: the step before in its lane and
          // segment, or the state its segment starts from.
          var segmentStart = {};
          segments.forEach(function (segment) { segmentStart[segment.lane + ":" + segment.number] = segment; });
          var perLane = lanes.map(function () { return []; });
          steps.forEach(function (step, index) { step.index = index + 1; perLane[step.lane].push(step); });
          perLane.forEach(function (list) {
            list.sort(function (a, b) { return a.sequence - b.sequence; });
            var previous = null;
            list.forEach(function (step, position) {
              var sameSegment = previous !== null && previous.segment === step.segment;
              step.position = position;
              step.before = sameSegment ? previous.state : segmentStart[step.lane + ":" + step.segment].state;
              step.segmentStart = !sameSegment;
              step.gapBefore = sameSegment ? step.sequence > previous.sequence + 1
                : step.sequence > segmentStart[step.lane + ":" + step.segment].sequence + 1;
              previous = step;
            });
          });

          // Paths and values.
          var same = function (a, b) { return JSON.stringify(a) === JSON.stringify(b); };
          var show = function (value) { return value === undefined ? "(absent)" : JSON.stringify(value); };
          var isObject = function (value) { return value !== null && typeof value === "object" && !Array.isArray(value); };
          // A key that is not a plain name is written ["like.this"], so
          // that a path shown can be typed back into a query.
          var plainKey = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
          var join = function (path, key) {
            if (typeof key === "number") return path + "[" + key + "]";
            if (!plainKey.test(key)) return path + "[" + JSON.stringify(key) + "]";
            return path === "" ? key : path + "." + key;
          };
          function diff(before, after, path, out) {
            if (same(before, after)) return out;
            if (isObject(before) && isObject(after)) {
              var keys = Object.keys(before).concat(Object.keys(after).filter(function (key) { return !(key in before); }));
              keys.sort().forEach(function (key) { diff(before[key], after[key], join(path, key), out); });
            } else if (Array.isArray(before) && Array.isArray(after)) {
              for (var index = 0; index < Math.max(before.length, after.length); index += 1) {
                diff(before[index], after[index], join(path, index), out);
              }
            } else {
              out.push((path === "" ? "(the whole state)" : path) + ": " + show(before) + " → " + show(after));
            }
            return out;
          }
          function parsePath(text) {
            var parts = [], rest = text.trim(), match;
            if (rest === "") throw new Error("a path is needed");
            while (rest !== "") {
              if ((match = /^\\.?([A-Za-z_$][A-Za-z0-9_$]*)/.exec(rest)) !== null) {
                parts.push(match[1]);
              } else if ((match = /^\\[(\\d+)\\]/.exec(rest)) !== null) {
                parts.push(Number(match[1]));
              } else if ((match = /^\\[("(?:[^"\\\\]|\\\\.)*")\\]/.exec(rest)) !== null) {
                parts.push(JSON.parse(match[1]));
              } else {
                throw new Error("not a path: " + text.trim() + " (names joined by dots, [2] for an index, "
                  + "[\\"a.b\\"] for a key with other characters)");
              }
              rest = rest.slice(match[0].length);
            }
            return parts;
          }
          function valueAt(value, parts) {
            for (var index = 0; index < parts.length; index += 1) {
              if (value === null || typeof value !== "object") return undefined;
              var part = parts[index];
              if (typeof part === "number" ? !Array.isArray(value) : Array.isArray(value)) return undefined;
              if (!Object.prototype.hasOwnProperty.call(value, part)) return undefined;
              value = value[part];
            }
            return value;
          }
          function literal(text) {
            try { return JSON.parse(text); } catch (error) { return text.trim(); }
          }

          // The timeline: a row per lane (per lane and thread, where its
          // inputs ran on several threads), a tick per step.
          var rows = [];
          lanes.forEach(function (lane, index) {
            if (lane.threads.length <= 1) {
              rows.push({ lane: index, thread: null, label: laneName(index) });
            } else {
              lane.threads.forEach(function (thread) {
                rows.push({ lane: index, thread: thread, label: laneName(index) + " · " + thread });
              });
            }
          });
          var rowOf = function (step) {
            for (var index = 0; index < rows.length; index += 1) {
              var row = rows[index];
              if (row.lane === step.lane && (row.thread === null || row.thread === step.thread)) return index;
            }
            return 0;
          };
          var hue = function (text) {
            var hash = 0;
            for (var index = 0; index < text.length; index += 1) hash = (hash * 31 + text.charCodeAt(index)) % 360;
            return hash;
          };
          var svgNamespace = "http://www.w3.org/2000/svg";
          var element = function (name, attributes) {
            var node = document.createElementNS(svgNamespace, name);
            Object.keys(attributes).forEach(function (key) { node.setAttribute(key, attributes[key]); });
            return node;
          };
          var ticks = [], matched = {};
          function drawTimeline() {
            var byTime = byId("by-time").checked;
            var labelWidth = 20 + Math.max.apply(null, rows.map(function (row) { return row.label.length; }).concat([4])) * 6.5;
            var column = 7, rowHeight = 26;
            var columns = byTime ? steps.length : Math.max.apply(null, perLane.map(function (list) { return list.length; }).concat([1]));
            var svg = element("svg", { width: labelWidth + columns * column + 20, height: rows.length * rowHeight + 8, role: "img" });
            rows.forEach(function (row, index) {
              var label = element("text", { x: 4, y: index * rowHeight + 18 });
              label.textContent = row.label;
              svg.appendChild(label);
              svg.appendChild(element("line", { x1: labelWidth, x2: labelWidth + columns * column, y1: index * rowHeight + 13, y2: index * rowHeight + 13, stroke: "#d9dee5" }));
            });
            ticks = [];
            steps.forEach(function (step) {
              var x = labelWidth + (byTime ? step.index - 1 : step.position) * column;
              var y = rowOf(step) * rowHeight + 4;
              if (step.segmentStart) {
                svg.appendChild(element("line", { x1: x - 1, x2: x - 1, y1: y - 3, y2: y + 21, stroke: "#5b6572", "stroke-width": 2 }));
              }
              if (step.gapBefore) {
                svg.appendChild(element("line", { x1: x - 1, x2: x - 1, y1: y - 3, y2: y + 21, stroke: "#d1242f", "stroke-width": 2, "stroke-dasharray": "3 2" }));
              }
              var tick = element("rect", { x: x, y: y + 2, width: column - 2, height: 14, rx: 1, fill: "hsl(" + hue(step.type) + ",55%,55%)" });
              var tip = element("title", {});
              tip.textContent = "step " + step.index + " · " + laneName(step.lane) + " #" + step.sequence + " · " + step.type;
              tick.appendChild(tip);
              tick.addEventListener("click", function () { go(step.index); });
              tick.style.cursor = "pointer";
              svg.appendChild(tick);
              ticks[step.index] = tick;
            });
            var holder = byId("timeline");
            holder.textContent = "";
            holder.appendChild(svg);
            markTicks();
          }
          function markTicks() {
            steps.forEach(function (step) {
              var tick = ticks[step.index];
              if (!tick) return;
              var current = step.index === shown;
              tick.setAttribute("stroke", current ? "#0b63ce" : matched[step.index] ? "#d1242f" : "none");
              tick.setAttribute("stroke-width", current ? 3 : 2);
            });
          }

          // The list of inputs.
          var items = [];
          steps.forEach(function (step) {
            var item = document.createElement("li");
            var lane = document.createElement("span");
            lane.className = "lane-name";
            lane.textContent = step.index + ". " + (lanes.length > 1 ? laneName(step.lane) + " " : "");
            item.appendChild(lane);
            item.appendChild(document.createTextNode(step.type + " " + JSON.stringify(step.value)));
            if (step.segmentStart && step.position > 0) item.classList.add("segment-start");
            if (step.gapBefore) item.classList.add("gap-before");
            item.title = "line " + step.line;
            item.addEventListener("click", function () { go(step.index); });
            step.text = (laneName(step.lane) + " " + step.type + " " + JSON.stringify(step.value)).toLowerCase();
            byId("inputs").appendChild(item);
            items[step.index] = item;
          });
          byId("filter").addEventListener("input", function (event) {
            var text = event.target.value.toLowerCase();
            steps.forEach(function (step) { items[step.index].classList.toggle("hidden", text !== "" && step.text.indexOf(text) < 0); });
          });

          // One step shown.
          var shown = 0;
          function stepFromAddress() {
            var match = /(?:^#|&)step=(\\d+)/.exec(location.hash);
            var number = match ? Number(match[1]) : 1;
            return Math.min(Math.max(number, steps.length === 0 ? 0 : 1), steps.length);
          }
          function go(number) {
            var query = byId("query").value.trim();
            var target = "#step=" + number + (query === "" ? "" : "&query=" + encodeURIComponent(query));
            if (location.hash === target) render(); else location.hash = target;
          }
          function setText(id, text) { byId(id).textContent = text; }
          function render() {
            shown = stepFromAddress();
            setText("step-number", String(shown));
            byId("scrubber").value = String(shown);
            items.forEach(function (item, index) { if (item) item.classList.toggle("current", index === shown); });
            var diffList = byId("diff");
            diffList.textContent = "";
            if (shown === 0) {
              setText("state-json", segments.length > 0 ? JSON.stringify(segments[0].state, null, 2) : "");
              markTicks();
              return;
            }
            var step = steps[shown - 1];
            setText("step-lane", laneName(step.lane));
            setText("step-sequence", String(step.sequence));
            setText("step-segment", String(step.segment) + (step.segmentStart ? " (starts here)" : "") + (step.gapBefore ? " · entries missing before it" : ""));
            setText("step-thread", step.thread === null ? "(not recorded)" : step.thread);
            setText("step-time", step.time === null ? "(not recorded)" : new Date(step.time * 1000).toISOString());
            setText("step-input", step.type + " " + JSON.stringify(step.value));
            setText("step-line", String(step.line));
            var changes = diff(step.before, step.state, "", []);
            if (changes.length === 0) {
              var none = document.createElement("li");
              none.className = "none";
              none.textContent = "nothing: the state after it equals the state before it";
              diffList.appendChild(none);
            }
            changes.forEach(function (change) {
              var item = document.createElement("li");
              item.textContent = change;
              diffList.appendChild(item);
            });
            setText("state-json", JSON.stringify(step.state, null, 2));
            // The list scrolls to the step; the page does not move.
            var list = byId("inputs"), item = items[shown];
            if (item && item.offsetTop < list.scrollTop) {
              list.scrollTop = item.offsetTop;
            } else if (item && item.offsetTop + item.offsetHeight > list.scrollTop + list.clientHeight) {
              list.scrollTop = item.offsetTop + item.offsetHeight - list.clientHeight;
            }
            markTicks();
          }

          // Queries.
          function query(text) {
            var first = false, match, predicate, path;
            text = text.trim();
            if (/^first\\s+/i.test(text)) { first = true; text = text.replace(/^first\\s+/i, ""); }
            if ((match = /^changed\\s+(.+)$/i.exec(text)) !== null) {
              path = parsePath(match[1]);
              predicate = function (step) { return !same(valueAt(step.before, path), valueAt(step.state, path)); };
            } else if ((match = /^(.+?)\\s*:\\s*(.+?)\\s*->\\s*(.+)$/.exec(text)) !== null) {
              path = parsePath(match[1]);
              var from = literal(match[2]), to = literal(match[3]);
              predicate = function (step) { return same(valueAt(step.before, path), from) && same(valueAt(step.state, path), to); };
            } else if ((match = /^(.+?)\\s*==\\s*(.+)$/.exec(text)) !== null) {
              path = parsePath(match[1]);
              var wanted = literal(match[2]);
              predicate = function (step) { return same(valueAt(step.state, path), wanted); };
            } else {
              throw new Error("not a query: write changed PATH, PATH: A -> B or PATH == V");
            }
            var found = steps.filter(predicate);
            return first ? found.slice(0, 1) : found;
          }
          function runQuery(text) {
            var results = byId("query-results");
            results.textContent = "";
            setText("query-error", "");
            setText("query-count", "");
            matched = {};
            if (text.trim() !== "") {
              try {
                var found = query(text);
                setText("query-count", found.length === 1 ? "1 step" : found.length + " steps");
                found.forEach(function (step) {
                  matched[step.index] = true;
                  var item = document.createElement("li");
                  var link = document.createElement("a");
                  link.href = "#step=" + step.index + "&query=" + encodeURIComponent(text.trim());
                  link.textContent = "step " + step.index + ": " + laneName(step.lane) + " #" + step.sequence + " " + step.type;
                  item.appendChild(link);
                  results.appendChild(item);
                });
              } catch (error) {
                setText("query-error", error.message);
              }
            }
            markTicks();
          }
          byId("query").addEventListener("input", function (event) { runQuery(event.target.value); });
          // A query in the address (#step=k&query=…) is run as the page opens.
          function queryFromAddress() {
            var match = /(?:^#|&)query=([^&]*)/.exec(location.hash);
            if (match === null) return;
            var text = decodeURIComponent(match[1].replace(/\\+/g, " "));
            if (byId("query").value !== text) {
              byId("query").value = text;
              runQuery(text);
            }
          }

          // Moving.
          byId("scrubber").addEventListener("input", function (event) { go(Number(event.target.value)); });
          byId("previous").addEventListener("click", function () { if (shown > 1) go(shown - 1); });
          byId("next").addEventListener("click", function () { if (shown < steps.length) go(shown + 1); });
          document.addEventListener("keydown", function (event) {
            if (event.target.tagName === "INPUT" && event.target.type === "text") return;
            if (event.key === "ArrowLeft" && shown > 1) go(shown - 1);
            if (event.key === "ArrowRight" && shown < steps.length) go(shown + 1);
          });
          byId("by-time").addEventListener("change", drawTimeline);
          window.addEventListener("hashchange", function () { queryFromAddress(); render(); });

          setText("title", data.title);
          var threads = lanes.reduce(function (sum, lane) { return sum + lane.threads.length; }, 0);
          setText("summary", steps.length + " inputs · " + lanes.length + (lanes.length === 1 ? " log" : " logs")
            + " (" + lanes.map(function (lane, index) { return laneName(index); }).join(", ") + ") · "
            + segments.length + (segments.length === 1 ? " segment" : " segments")
            + (threads > lanes.length ? " · " + threads + " threads" : ""));
          setText("step-count", String(steps.length));
          byId("scrubber").max = String(Math.max(steps.length, 1));
          byId("by-time").checked = lanes.length === 1;
          drawTimeline();
          queryFromAddress();
          render();
        })();
        </script>
        </body>
        </html>

        """
}
