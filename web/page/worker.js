// The page's interpreter: gph's WebAssembly module in a worker, so that a
// long run never freezes the page. The page stops a run by ending this
// worker and starting another (a module busy in a run cannot read a
// message); the REPL's session is then rebuilt from its definitions.
import { load } from "./gph.js";

let gph = null;
const ready = fetch("gph.wasm")
  .then((r) => r.arrayBuffer())
  .then((bytes) =>
    load(
      bytes,
      (stream, text) => postMessage({ type: "out", stream, text }),
      (virtualS, reductions) => postMessage({ type: "progress", virtualS, reductions })
    )
  )
  .then(async (g) => {
    gph = g;
    // The repository's programs, for `:load programs/sumEuler.gph`.
    const list = await fetch("files.json").then((r) => r.json());
    const texts = await Promise.all(list.map((p) => fetch(p).then((r) => r.text())));
    list.forEach((p, i) => gph.provide(p, texts[i]));
    postMessage({ type: "ready" });
  })
  .catch((e) => postMessage({ type: "fatal", text: String(e) }));

// A trap (the compiler ran out of the worker's stack, say) leaves the
// module unusable: the page is told and starts a fresh worker.
function guarded(id, f) {
  try {
    postMessage({ type: "done", id, result: f() });
  } catch (e) {
    postMessage({ type: "trap", id, text: String(e && e.message ? e.message : e) });
  }
}

onmessage = async (ev) => {
  await ready;
  const m = ev.data;
  switch (m.type) {
    case "run":
      guarded(m.id, () => {
        const t0 = performance.now();
        const r = gph.run(m.request);
        r.ms = performance.now() - t0;
        return r;
      });
      break;
    case "provide":
      guarded(m.id, () => gph.provide(m.path, m.text));
      break;
    case "repl-start":
      guarded(m.id, () => ({ exit: gph.replStart(m.options || "") }));
      break;
    case "repl":
      // `quiet`: replaying the session after a Stop; its answers are not shown again.
      guarded(m.id, () => ({ exit: gph.replInput(m.line), shown: gph.replShown() }));
      break;
  }
};
