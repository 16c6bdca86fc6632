// The module's interface (web/src/lib.rs), for the worker and for Node:
// JSON in the module's memory, text out through `gph.write`.
export async function load(bytes, onWrite, onProgress = () => {}) {
  const decoder = new TextDecoder();
  let memory = null;
  const { instance } = await WebAssembly.instantiate(bytes, {
    gph: {
      now_ms: () => performance.now(),
      write: (stream, ptr, len) =>
        onWrite(stream, decoder.decode(new Uint8Array(memory.buffer, ptr, len))),
      progress: (virtualS, reductions) => onProgress(virtualS, reductions),
    },
  });
  const x = instance.exports;
  memory = x.memory;
  const encoder = new TextEncoder();
  // Calls `f(ptr, len)` with `text` in the module's memory.
  const call = (f, text) => {
    const bytes = encoder.encode(text);
    const p = x.gph_alloc(bytes.length);
    new Uint8Array(memory.buffer, p, bytes.length).set(bytes);
    try {
      return f(p, bytes.length);
    } finally {
      x.gph_free(p, bytes.length);
    }
  };
  const result = () =>
    JSON.parse(decoder.decode(new Uint8Array(memory.buffer, x.gph_result_ptr(), x.gph_result_len())));
  return {
    // A run: {source, name, args, stdin, options, grid, profile, trace, eventlog}.
    run(request) {
      const exit = call(x.gph_run, JSON.stringify(request));
      return { ...result(), exit };
    },
    // Makes `text` the file at `path` (for :load and a program's imports).
    provide(path, text) {
      const a = encoder.encode(path);
      const p = x.gph_alloc(a.length);
      new Uint8Array(memory.buffer, p, a.length).set(a);
      try {
        call((q, m) => x.gph_provide_file(p, a.length, q, m), text);
      } finally {
        x.gph_free(p, a.length);
      }
    },
    replStart(options) {
      return call(x.gph_repl_start, options || "");
    },
    replInput(line) {
      return call(x.gph_repl_input, line);
    },
    // What the last input gave the page to show: {kind: "dot" | "profile"
    // | "trace" | "eventlog", bytes}, or null.
    replShown() {
      const k = x.gph_repl_shown();
      if (!k) return null;
      const bytes = new Uint8Array(memory.buffer, x.gph_result_ptr(), x.gph_result_len()).slice();
      return { kind: ["", "dot", "profile", "trace", "eventlog"][k], bytes };
    },
  };
}
