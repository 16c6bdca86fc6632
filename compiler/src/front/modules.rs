//! Finding and parsing the modules a program needs: the library modules built
//! into gph (`prelude/`), and (Tier 2) the user's own modules next to the main
//! file. Returns them parsed, in dependency order.

use gph_syntax::ast::{Entity, Ident, Import, Module, QName};
use gph_syntax::lexer::Sym;
use gph_syntax::{Diagnostic, SourceFile, SourceMap, Span};
use std::collections::HashMap;
use std::path::Path;

include!(concat!(env!("OUT_DIR"), "/library.rs"));

/// A parsed module and the index of its file in the source map.
pub struct Parsed {
    pub name: Sym,
    pub file: usize,
    pub ast: Module,
}

/// Every module of a program, in dependency order (imports first).
pub struct Loaded {
    pub sources: SourceMap,
    pub modules: Vec<Parsed>,
}

/// The Prelude as the library's own modules see it: every entity the
/// Prelude defines, exported or not (its interface is made when the Prelude
/// is renamed; importing it loads the Prelude).
pub const BASE: &str = "Gph.Base";

/// Module names whose imports refer to the built-in library.
pub fn library_source(name: &str) -> Option<(&'static str, &'static str)> {
    LIBRARY
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|&(_, path, src)| (path, src))
}

/// The library's modules a program may import, for messages: "Prelude,
/// Control.DeepSeq, ... and System.IO.Error" (the Prelude first, the
/// others in alphabetical order; not the library's own Gph modules).
fn library_modules() -> String {
    let mut names: Vec<&str> = LIBRARY
        .iter()
        .map(|(n, _, _)| *n)
        .filter(|n| *n != "Prelude" && !n.starts_with("Gph.") && !n.ends_with(".Internal"))
        .collect();
    names.sort_unstable();
    names.insert(0, "Prelude");
    let last = names.pop().unwrap_or_default();
    format!("{} and {last}", names.join(", "))
}

/// The module's name, `Main` when the header is missing.
pub fn module_name(m: &Module) -> Sym {
    m.name
        .as_ref()
        .map_or_else(|| Sym::from("Main"), |i| i.name.clone())
}

/// Whether a module gets the implicit `import Prelude`: not the Prelude,
/// and not the library's `Gph.` modules beneath it (Gph.Prim, and Gph.IO,
/// which the Prelude imports).
fn implicit_prelude(name: &str, m: &Module) -> bool {
    name != "Prelude"
        && !(name.starts_with("Gph.") && library_source(name).is_some())
        && !m.imports.iter().any(|i| &*i.module.name == "Prelude")
}

/// A module's imports, the implicit `import Prelude` included (the
/// loader follows them, the renamer brings their names into scope).
pub fn imports_of(name: &str, m: &Module) -> Vec<Import> {
    let mut v = m.imports.clone();
    if implicit_prelude(name, m) {
        let span = m.span.point();
        v.push(Import {
            module: Ident {
                name: Sym::from("Prelude"),
                span,
            },
            qualified: false,
            alias: None,
            items: None,
            span,
        });
    }
    if library_source(name).is_none() {
        let words: Vec<Import> = v.iter().filter_map(prelude_word).collect();
        v.extend(words);
    }
    v
}

/// GHC's Prelude exports the type `Word`, which gph's library defines
/// above its Prelude (in Gph.Sized, with the other fixed-width integers,
/// whose classes the Prelude's importers define). So a program's import
/// of the Prelude brings `Word` from there too, as that import's list
/// allows: `import Prelude` and `hiding` lists without it do, an item list
/// only when it names it; qualified and renamed alike.
fn prelude_word(i: &Import) -> Option<Import> {
    if &*i.module.name != "Prelude" {
        return None;
    }
    let names_word = |es: &[Entity]| {
        es.iter()
            .any(|e| matches!(e, Entity::Type(q, _) if &*q.name == "Word"))
    };
    let wanted = match &i.items {
        None => true,
        Some((true, hidden)) => !names_word(hidden),
        Some((false, listed)) => names_word(listed),
    };
    wanted.then(|| Import {
        module: Ident {
            name: Sym::from("Gph.Sized"),
            span: i.module.span,
        },
        alias: Some(i.alias.clone().unwrap_or_else(|| i.module.clone())),
        items: Some((
            false,
            vec![Entity::Type(QName::unqual(Sym::from("Word"), i.span), None)],
        )),
        ..i.clone()
    })
}

/// Loads the main file and everything it imports. `main_text` is the main
/// file's source; `dir` is where user modules are looked for.
pub fn load(main_name: &str, main_text: &str, dir: Option<&Path>) -> (Loaded, Vec<Diagnostic>) {
    let mut sources = SourceMap::default();
    let mut diags = Vec::new();
    let mut parsed: HashMap<Sym, Option<Parsed>> = HashMap::new();
    let main_idx = sources.add(main_name, unlit_if_literate(main_name, main_text));
    let (main_ast, d) = gph_syntax::parse_file(&sources.files[main_idx]);
    diags.extend(d);
    let Some(main_ast) = main_ast else {
        return (
            Loaded {
                sources,
                modules: Vec::new(),
            },
            diags,
        );
    };
    let main_mod = module_name(&main_ast);
    let mut order: Vec<Sym> = Vec::new();
    // Depth-first post-order over imports; `visiting` catches cycles.
    let mut stack: Vec<(Sym, Vec<Import>, usize)> = Vec::new();
    let main_imports = imports_of(&main_mod, &main_ast);
    parsed.insert(
        main_mod.clone(),
        Some(Parsed {
            name: main_mod.clone(),
            file: main_idx,
            ast: main_ast,
        }),
    );
    stack.push((main_mod.clone(), main_imports, 0));
    let mut visiting: Vec<Sym> = vec![main_mod.clone()];
    while let Some((name, imports, next)) = stack.last_mut() {
        if *next >= imports.len() {
            order.push(name.clone());
            visiting.pop();
            stack.pop();
            continue;
        }
        let imp = imports[*next].clone();
        *next += 1;
        let target = if &*imp.module.name == BASE {
            Sym::from("Prelude")
        } else {
            imp.module.name.clone()
        };
        if visiting.contains(&target) {
            diags.push(
                Diagnostic::error(
                    imp.module.span,
                    format!("module imports form a cycle: {} imports {target}", name),
                )
                .with_help("gph needs the module imports of a program to form no cycle"),
            );
            continue;
        }
        if parsed.contains_key(&target) {
            continue;
        }
        let library = library_source(&target);
        let found: Option<(String, String)> = match library {
            Some((path, src)) => Some((path.to_string(), src.to_string())),
            None => dir.and_then(|d| user_module(d, &target)),
        };
        let Some((path, text)) = found else {
            parsed.insert(target.clone(), None);
            diags.push(
                Diagnostic::error(imp.module.span, format!("could not find module `{target}`"))
                    .with_help(format!(
                        "a module `A.B` of your own is the file A/B.gph, A/B.hs or A/B.lhs beside the main file; \
                         the library has {}",
                        library_modules()
                    )),
            );
            continue;
        };
        let text = unlit_if_literate(&path, &text);
        let idx = sources.add(path, text);
        let (ast, d) = gph_syntax::parse_file(&sources.files[idx]);
        // The library's own warnings (its LANGUAGE pragmas) are not the
        // program's business.
        diags.extend(d.into_iter().filter(|d| library.is_none() || d.is_error()));
        match ast {
            Some(ast) => {
                let got = module_name(&ast);
                if got != target {
                    diags.push(Diagnostic::error(
                        ast.name.as_ref().map_or(Span::default(), |i| i.span),
                        format!("file for module `{target}` declares module `{got}`"),
                    ));
                }
                let imports = imports_of(&target, &ast);
                parsed.insert(
                    target.clone(),
                    Some(Parsed {
                        name: target.clone(),
                        file: idx,
                        ast,
                    }),
                );
                visiting.push(target.clone());
                stack.push((target, imports, 0));
            }
            None => {
                parsed.insert(target, None);
            }
        }
    }
    let modules = order
        .into_iter()
        .filter_map(|n| parsed.remove(&n).flatten())
        .collect();
    (Loaded { sources, modules }, diags)
}

/// The endings of a user module's file, the one looked for first first.
const USER_ENDINGS: [&str; 3] = ["gph", "hs", "lhs"];

/// The file of a user's module `A.B` beside the main file: `A/B.gph`,
/// `A/B.hs` or `A/B.lhs`, the first that exists.
fn user_module(dir: &Path, module: &str) -> Option<(String, String)> {
    let base = dir.join(module.replace('.', "/"));
    USER_ENDINGS.iter().find_map(|ext| {
        let p = base.with_extension(ext);
        let text = gph_syntax::files::read(&p).ok()?;
        Some((p.display().to_string(), text))
    })
}

/// Whether the source map's file `name` is a library module's (built into
/// gph) rather than a file of the user's.
pub fn is_library_file(name: &str) -> bool {
    LIBRARY.iter().any(|&(_, path, _)| path == name)
}

/// The files that would have been taken instead of the user module file
/// `path` had they existed (`A/B.gph` for `A/B.hs`): a program compiled
/// with `path` is compiled the same way only while they do not exist.
pub fn looked_for_first(path: &str) -> Vec<String> {
    let p = Path::new(path);
    let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
    USER_ENDINGS
        .iter()
        .take_while(|&&e| e != ext)
        .map(|e| p.with_extension(e).display().to_string())
        .collect()
}

/// The program text of a file: without the UTF-8 byte order mark some
/// editors put first (GHC skips it too), and unlit when literate.
fn unlit_if_literate(path: &str, text: &str) -> String {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if path.ends_with(".lhs") {
        unlit(text)
    } else {
        text.to_string()
    }
}

/// The program in a literate Haskell file (Haskell 2010 report, section
/// 10.4, as GHC's unlit reads it): the lines between `\begin{code}` and
/// `\end{code}`, and outside those the bird-track lines (`> code`, the `>`
/// read as a space). Every other line becomes empty, so that line and
/// column numbers stay those of the file.
pub fn unlit(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_code = false;
    for line in text.lines() {
        let code = if in_code {
            in_code = !line.starts_with("\\end{code}");
            in_code.then(|| line.to_string())
        } else if line.starts_with("\\begin{code}") {
            in_code = true;
            None
        } else {
            line.strip_prefix('>').map(|rest| format!(" {rest}"))
        };
        out.push_str(code.as_deref().unwrap_or(""));
        out.push('\n');
    }
    out
}

/// A file with the standard name for a REPL or test snippet.
pub fn snippet(text: &str) -> SourceFile {
    SourceFile::new("<input>", text)
}
