// The playground's page (docs/web.md): an editor, the interpreter in a
// worker (worker.js), the run's output, profile and statistics, a REPL and
// the lessons.
import { EditorView, basicSetup } from "codemirror";
import { StreamLanguage } from "@codemirror/language";
import { haskell } from "@codemirror/legacy-modes/mode/haskell";
import { setDiagnostics } from "@codemirror/lint";
import { marked } from "marked";

const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------ the editor

const editor = new EditorView({
  parent: $("editor"),
  extensions: [basicSetup, StreamLanguage.define(haskell)],
  doc: "",
});
const source = () => editor.state.doc.toString();
function setSource(text) {
  editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: text } });
}
window.gphSetSource = setSource; // for the tests (web/test/e2e.mjs)

// The compiler's diagnostics, marked where they point (lines and columns
// from 1, columns in characters).
function markDiagnostics(diags) {
  const doc = editor.state.doc;
  const pos = ([line, col]) => {
    const l = doc.line(Math.min(Math.max(line, 1), doc.lines));
    return Math.min(l.from + col - 1, l.to);
  };
  const marks = diags
    .filter((d) => d.file === programName())
    .map((d) => {
      const from = pos(d.from);
      let to = pos(d.to);
      if (to <= from) to = Math.min(from + 1, doc.length);
      return { from, to, severity: d.severity, message: d.message, markClass: "cm-diag-" + d.severity };
    });
  editor.dispatch(setDiagnostics(editor.state, marks));
}

// ------------------------------------------------------------ the worker

let worker = null;
let ready = null;
let nextId = 0;
const pending = new Map();
// Where the module's text goes now: "out" (a run) or "transcript" (the REPL).
let sink = "out";
// Replaying the REPL's session after a Stop: its answers are not shown again.
let quiet = false;

function startWorker() {
  worker = new Worker("worker.js", { type: "module" });
  ready = new Promise((resolve) => {
    worker.onmessage = (ev) => {
      const m = ev.data;
      if (m.type === "ready") resolve();
      else if (m.type === "progress") {
        if (busy && !quiet)
          $("status").textContent =
            `running… virtual ${(m.virtualS * 1000).toFixed(1)} ms · ${(m.reductions / 1e6).toFixed(1)} M reductions`;
      }
      else if (m.type === "out") {
        if (!quiet) write(sink, m.text, m.stream === 2);
      } else if (m.type === "done" || m.type === "trap") {
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (p) (m.type === "done" ? p.resolve(m.result) : p.reject(new Error(m.text)));
      } else if (m.type === "fatal") {
        write("out", "gph: the interpreter could not start: " + m.text + "\n", true);
      }
    };
  });
}

function ask(msg) {
  return ready.then(
    () =>
      new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        worker.postMessage({ ...msg, id });
      })
  );
}

function write(where, text, isErr) {
  const el = $(where);
  if (isErr) {
    const s = document.createElement("span");
    s.className = "stderr";
    s.textContent = text;
    el.appendChild(s);
  } else {
    el.appendChild(document.createTextNode(text));
  }
  el.parentElement.scrollTop = el.parentElement.scrollHeight;
}

let busy = false;
// The REPL's session being rebuilt after a Stop: inputs wait for it.
let restoring = Promise.resolve();
// Inputs the REPL has finished (for the tests: web/test/e2e.mjs).
window.gphReplDone = 0;
function setBusy(b, what) {
  busy = b;
  $("run").disabled = b;
  $("stop").disabled = !b;
  $("status").textContent = b ? what : $("status").textContent;
}

// Stop: the module cannot be interrupted in the middle of a run, so the
// worker is ended and a fresh one started; the REPL's session is rebuilt
// from its definitions.
async function stop() {
  if (!busy) return;
  worker.terminate();
  for (const p of pending.values()) p.reject(new Error("Interrupted."));
  pending.clear();
  startWorker();
  $("status").textContent = "stopped";
  restoring = restoreRepl();
  await restoring;
}

// When a trap ended the module (the compiler out of the worker's stack).
async function trapped(e) {
  if (e.message === "Interrupted.") {
    write(sink, "Interrupted.\n", true);
    return;
  }
  write(sink, "gph: the interpreter stopped: " + e.message +
    " (the browser build's stack is small: docs/web.md); it starts afresh\n", true);
  worker.terminate();
  startWorker();
  await restoreRepl();
}

// ------------------------------------------------------------ running

const programName = () => "Main.hs";

async function runProgram() {
  if (busy) return;
  saveToUrl();
  $("out").textContent = "";
  showTab("output");
  sink = "out";
  const options = ["--pes", $("pes").value, "--sched", $("sched").value];
  const gridName = $("grid").value;
  let grid = null;
  if (gridName) {
    grid = { name: gridName, text: await fetch(gridName).then((r) => r.text()) };
    options.splice(0, 2); // the grid says how many PEs
  }
  const request = {
    source: source(),
    name: programName(),
    args: $("args").value.split(/\s+/).filter((w) => w),
    stdin: $("stdin").value,
    options,
    grid,
    profile: true,
    trace: true,
    eventlog: true,
  };
  setBusy(true, "running…");
  try {
    const r = await ask({ type: "run", request });
    markDiagnostics(r.diagnostics || []);
    showResults(r);
    window.gphLastResult = r; // for the tests (web/test/e2e.mjs)
    const vt = r.stats_json && r.stats_json.virtual_time_s;
    $("status").textContent =
      `exit ${r.exit} · ${(r.ms / 1000).toFixed(2)} s` + (vt != null ? ` · virtual ${(vt * 1000).toFixed(3)} ms` : "");
  } catch (e) {
    await trapped(e);
  } finally {
    setBusy(false);
  }
}

let lastFiles = {};
function showResults(r) {
  $("svg").innerHTML = r.profile || "No profile (the program did not run).";
  $("table").innerHTML = "";
  if (r.stats) {
    const pre = document.createElement("pre");
    pre.textContent = r.stats;
    $("table").appendChild(statsTable(r.stats_json) || pre);
  }
  lastFiles = {
    trace: r.trace && new Blob([r.trace], { type: "application/json" }),
    eventlog: r.eventlog && new Blob([new Uint8Array(r.eventlog)], { type: "application/octet-stream" }),
    svg: r.profile && new Blob([r.profile], { type: "image/svg+xml" }),
  };
}

// --stats-json as a table: a row per PE, a column per number.
function statsTable(json) {
  if (!json || !json.per_pe || !json.per_pe.length) return null;
  const cols = Object.keys(json.per_pe[0]).filter((k) => typeof json.per_pe[0][k] === "number");
  const t = document.createElement("table");
  const head = t.insertRow();
  for (const c of cols) {
    const th = document.createElement("th");
    th.textContent = c.replace(/_/g, " ");
    head.appendChild(th);
  }
  for (const pe of json.per_pe) {
    const row = t.insertRow();
    for (const c of cols) {
      const v = pe[c];
      row.insertCell().textContent = Number.isInteger(v) ? v : v.toFixed(6);
    }
  }
  const div = document.createElement("div");
  const p = document.createElement("p");
  p.textContent = Object.entries(json)
    .filter(([, v]) => typeof v !== "object")
    .map(([k, v]) => `${k.replace(/_/g, " ")}: ${v}`)
    .join(" · ");
  div.append(p, t);
  return div;
}

for (const [id, name] of [["dl-trace", "trace.json"], ["dl-eventlog", "gph.eventlog"], ["dl-svg", "profile.svg"]]) {
  $(id).onclick = (ev) => {
    ev.preventDefault();
    const blob = lastFiles[id.slice(3)];
    if (!blob) return;
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = name;
    a.click();
  };
}

// ------------------------------------------------------------ the REPL

// What rebuilds the session after a Stop: its start, `:set`s, `:load`s,
// imports and definitions (not its evaluations and queries).
let replStarted = false;
let replHistory = [];
const QUERY = /^:(t|type|i|info|k|kind|steps?|sprint|print|stats|sparks|messages|browse|sc|help|\?|n|next|c|continue|stop|abandon)\b/;
const DEFINITION = /^(let|import|data|type|newtype|class|instance)\b|^[a-z_][\w']*(\s+[^=]*)?\s*=(?![=>])|^:(set|unset|l|load|r|reload|m|module)\b/;

async function ensureRepl() {
  if (!replStarted) {
    replStarted = true;
    await ask({ type: "repl-start", options: "" });
  }
}

async function restoreRepl() {
  if (!replStarted) return;
  quiet = true;
  try {
    await ask({ type: "provide", path: programName(), text: source() }).catch(() => {});
    await ask({ type: "repl-start", options: "" });
    for (const line of replHistory) await ask({ type: "repl", line });
  } catch (e) {
    // A line that failed before fails again: nothing to show.
  } finally {
    quiet = false;
  }
}

async function replInput(line) {
  await restoring;
  if (busy) return;
  sink = "transcript";
  write("transcript", "gph> " + line + "\n");
  setBusy(true, "evaluating…");
  try {
    await ensureRepl();
    const r = await ask({ type: "repl", line });
    if (r.shown) await show(r.shown, line);
    if (DEFINITION.test(line.trim()) && !QUERY.test(line.trim())) replHistory.push(line);
    $("next").hidden = !/^:(step|n|next)\b/.test(line.trim());
  } catch (e) {
    await trapped(e);
  } finally {
    setBusy(false);
    $("status").textContent = "";
    window.gphReplDone++;
  }
}

// What an input gave to show. `:graph`: DOT, which Graphviz compiled to
// WebAssembly (@viz-js/viz, loaded the first time) draws into the
// transcript; `:profile`: the activity profile's SVG, shown there too;
// `:trace FILE`, `:eventlog FILE`: the file, to download.
let viz = null;
async function show({ kind, bytes }, line) {
  const t = $("transcript");
  if (kind === "dot" || kind === "profile") {
    let svg;
    if (kind === "dot") {
      if (!viz) viz = await import("@viz-js/viz").then((m) => m.instance());
      svg = viz.renderSVGElement(new TextDecoder().decode(bytes));
    } else {
      svg = new DOMParser().parseFromString(new TextDecoder().decode(bytes), "image/svg+xml").documentElement;
    }
    svg.classList.add("graph");
    t.appendChild(svg);
  } else {
    const name = line.trim().split(/\s+/)[1] || (kind === "trace" ? "trace.json" : "gph.eventlog");
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([bytes]));
    a.download = name.split("/").pop();
    a.textContent = `download ${a.download} (${bytes.length} bytes)`;
    t.appendChild(a);
  }
  t.appendChild(document.createTextNode("\n"));
}

$("line").addEventListener("keydown", (ev) => {
  if (ev.key === "Enter") {
    const line = $("line").value;
    $("line").value = "";
    replInput(line);
  }
});
$("next").onclick = () => replInput(":next");
$("load-editor").onclick = async () => {
  await ensureRepl();
  // The worker knows the editor's text as a file of that name.
  await ask({ type: "provide", path: programName(), text: source() });
  showTab("repl");
  replInput(":load " + programName());
};

// ------------------------------------------------------------ tabs, menus

function showTab(name) {
  for (const b of document.querySelectorAll(".tabs button")) b.classList.toggle("on", b.dataset.tab === name);
  for (const p of document.querySelectorAll(".pane")) p.classList.toggle("on", p.id === name);
}
for (const b of document.querySelectorAll(".tabs button")) b.onclick = () => showTab(b.dataset.tab);

$("run").onclick = runProgram;
$("stop").onclick = stop;
document.addEventListener("keydown", (ev) => {
  if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) runProgram();
});

async function loadExample(path, args) {
  setSource(await fetch(path).then((r) => r.text()));
  if (args !== undefined) $("args").value = args;
}

// ------------------------------------------------------------ lessons

const LESSONS = [
  ["lessons/1-laziness.md", "1 Laziness"],
  ["lessons/2-sparks.md", "2 Sparks"],
  ["lessons/3-gum.md", "3 GUM"],
  ["lessons/4-eden.md", "4 Eden"],
  ["lessons/5-heterogeneity.md", "5 Grids"],
  ["lessons/6-skeletons.md", "6 Skeletons"],
];

async function showLesson(path) {
  const md = await fetch(path).then((r) => r.text());
  const pane = $("lesson");
  pane.innerHTML = marked.parse(md);
  // The lessons' pictures lie beside them.
  const base = path.slice(0, path.lastIndexOf("/") + 1);
  for (const img of pane.querySelectorAll("img")) {
    const src = img.getAttribute("src");
    if (src && !/^([a-z]+:|\/)/.test(src)) img.src = base + src;
  }
  document.querySelector('.tabs button[data-tab="lesson"]').hidden = false;
  showTab("lesson");
  // Each REPL example is one click away: its `gph>` lines, in the REPL.
  for (const code of pane.querySelectorAll("pre code")) {
    const lines = code.textContent.split("\n");
    const inputs = lines.filter((l) => l.startsWith("gph> ")).map((l) => l.slice(5));
    const isProgram = code.className.includes("language-haskell");
    if (!inputs.length && !isProgram) continue;
    const b = document.createElement("button");
    b.className = "try";
    b.textContent = isProgram ? "Edit and run" : "Run in the REPL";
    b.onclick = async () => {
      if (isProgram) {
        setSource(code.textContent);
        runProgram();
        return;
      }
      showTab("repl");
      for (const i of inputs) await replInput(i);
    };
    code.parentElement.before(b);
  }
}

for (const [path, name] of LESSONS) {
  const a = document.createElement("a");
  a.textContent = name;
  a.onclick = () => showLesson(path);
  $("lessons").appendChild(a);
}

// ------------------------------------------------------------ sharing

// The program and its settings travel in the URL's fragment (never sent to
// a server), as base64 of UTF-8 JSON.
function saveToUrl() {
  const state = { s: source(), a: $("args").value, p: $("pes").value, g: $("grid").value, h: $("sched").value };
  const bytes = new TextEncoder().encode(JSON.stringify(state));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  history.replaceState(null, "", "#p=" + btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""));
}

function loadFromUrl() {
  const m = location.hash.match(/^#p=([\w-]+)/);
  if (!m) return false;
  try {
    const bin = atob(m[1].replace(/-/g, "+").replace(/_/g, "/"));
    const state = JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
    setSource(state.s || "");
    $("args").value = state.a || "";
    if (state.p) $("pes").value = state.p;
    if (state.g !== undefined) $("grid").value = state.g;
    if (state.h) $("sched").value = state.h;
    return true;
  } catch (e) {
    return false;
  }
}

$("share").onclick = async () => {
  saveToUrl();
  try {
    await navigator.clipboard.writeText(location.href);
    $("status").textContent = "link copied";
  } catch (e) {
    $("status").textContent = "the link is in the address bar";
  }
};

// ------------------------------------------------------------ start

async function start() {
  startWorker();
  const files = await fetch("files.json").then((r) => r.json());
  for (const f of files.filter((f) => f.startsWith("programs/"))) {
    const o = document.createElement("option");
    o.value = f;
    o.textContent = f.slice("programs/".length);
    $("examples").appendChild(o);
  }
  for (const g of await fetch("grids.json").then((r) => r.json())) {
    const o = document.createElement("option");
    o.value = g;
    o.textContent = g.replace(/^grids\//, "").replace(/\.toml$/, "");
    $("grid").appendChild(o);
  }
  $("examples").onchange = () => {
    if ($("examples").value) loadExample($("examples").value, $("examples").value.endsWith("sumEuler.gph") ? "1 2000 100" : "");
  };
  if (!loadFromUrl()) await loadExample("programs/sumEuler.gph", "1 2000 100");
  await ready;
  $("status").textContent = "ready";
}
start();
