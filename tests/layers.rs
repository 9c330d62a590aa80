//! ARCHITECTURE.md checked against the source: its layers over every `crate::…` and `super::…`
//! path in `src/` (use lines and paths written inline: an edge from the file's module to the module
//! it names; the library's layers may only point downwards, and the modules form no cycle), and
//! its text (every module and file it names exists, every `app/update` module is named).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level modules a layer must not import: each layer uses only those below it
/// (core < config < session < app < ui < tui < cli); `headless` is beside the screen layers, under
/// `cli`, the command line, which nothing imports.
const FORBIDDEN: &[(&str, &[&str])] = &[
    ("core", &["config", "session", "app", "ui", "tui", "headless", "cli"]),
    ("config", &["session", "app", "ui", "tui", "headless", "cli"]),
    ("session", &["app", "ui", "tui", "headless", "cli"]),
    ("app", &["ui", "tui", "headless", "cli"]),
    ("ui", &["tui", "headless", "cli"]),
    ("tui", &["headless", "cli"]),
    ("headless", &["app", "ui", "tui", "cli"]),
];

/// Every module with children (a directory, and the crate root) is a group whose files must not
/// import each other in a cycle: its members are the modules directly under it and its own
/// `mod.rs` (named `mod`), which holds the items a `super::Item` path reaches.
fn groups(modules: &BTreeSet<Vec<String>>) -> BTreeSet<Vec<String>> {
    modules.iter().filter(|m| !m.is_empty()).map(|m| m[..m.len() - 1].to_vec()).collect()
}

/// The name of a group's own `mod.rs` among its members.
const OWN_FILE: &str = "mod";

#[test]
fn the_layers_point_downwards_and_form_no_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = read_sources(&root);
    assert!(files.len() > 50, "only {} files found under {}", files.len(), root.display());
    let problems = check(&files);
    assert!(problems.is_empty(), "layer violations:\n{}", problems.join("\n"));
}

#[test]
fn the_checker_finds_a_forbidden_import_and_a_cycle() {
    let files = vec![
        source("core/mod.rs", "pub mod sim;\npub mod judge;"),
        source("core/sim/mod.rs", "pub mod runner;\npub mod assistant;"),
        source("core/sim/runner.rs", "use super::assistant::Assistant;\npub enum RunError {}"),
        // Grouped and inline paths count too; a `tests` module's `super` is its own file.
        source(
            "core/sim/assistant.rs",
            "use crate::core::{judge::X, sim::runner::RunError};\n\
             // crate::app::Ignored: comments do not count\n\
             fn f() { let s = \"crate::tui::Ignored\"; crate::config::Paths::from_env(); }\n\
             #[cfg(test)]\nmod tests { use super::*; }",
        ),
        source("core/judge/mod.rs", "use crate::core::sim::runner::RunError;"),
        // A `mod.rs` is a member of its folder: `browser::draw` one way, `super::Item` back.
        source("ui/mod.rs", "use crate::headless::run::Launch;\nfn f() { browser::draw(); }"),
        source("ui/browser.rs", "use super::file_errors_of_mod_rs;"),
        source("app/mod.rs", "use crate::core::sim::runner::RunError;"),
    ];
    let problems = check(&files).join("\n");
    for expected in [
        "src/core/sim/assistant.rs: core imports config (crate::config::Paths::from_env)",
        "src/ui/mod.rs: ui imports headless (crate::headless::run::Launch)",
        "cycle: core::judge → core::sim → core::judge",
        "cycle: core::sim::assistant → core::sim::runner → core::sim::assistant",
        "cycle: ui::browser → ui::mod → ui::browser",
    ] {
        assert!(problems.contains(expected), "missing `{expected}` in:\n{problems}");
    }
    assert!(!problems.contains("Ignored"), "a comment or a string was read as code:\n{problems}");
    assert!(!problems.contains("app →"), "{problems}");
}

/// The page names files and modules that exist, and every module of `app/update` (where each
/// screen's keys and the verbs between screens live) is among them.
#[test]
fn architecture_md_names_what_exists() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(repo.join("ARCHITECTURE.md")).unwrap();
    let named = named_in(&page);
    assert!(named.len() > 50, "only {} names read", named.len());
    let missing: Vec<&String> = named.iter().filter(|name| !exists(repo, name)).collect();
    assert!(missing.is_empty(), "ARCHITECTURE.md names what does not exist: {missing:?}");
    for entry in std::fs::read_dir(repo.join("src/app/update")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name != "mod.rs" {
            let path = format!("app/update/{name}");
            assert!(page.contains(&format!("`{path}`")), "ARCHITECTURE.md does not name `{path}`");
        }
    }
    // The checker sees a wrong name.
    assert!(!exists(repo, "app/update/gone.rs") && !exists(repo, "tui::effects::carry_out"));
    assert!(exists(repo, "tui::executor::Executor::execute") && exists(repo, "app::drive::handle"));
}

/// The top-level folders a name of the page starts from: the library's modules (under `src/`)
/// and the repository's folders.
const SRC: &[&str] = &["app", "cli", "config", "core", "headless", "session", "tui", "ui"];
const REPO: &[&str] = &["tests", "docs", "benches", "examples", "fuzz", "themes", "assets"];

/// Every code span of the page that is a path (`app/stack.rs`, `tests/layers.rs`) or a module
/// path (`session::loader`, `app::drive::handle`) from one of those folders.
fn named_in(page: &str) -> BTreeSet<String> {
    let fences = regex::Regex::new(r"(?s)```.*?```").unwrap();
    let page = fences.replace_all(page, "");
    let spans = regex::Regex::new(r"`([^`\n]+)`").unwrap();
    let name = regex::Regex::new(r"^[a-z_]+(?:(?:/[a-z_0-9.-]+)+/?|(?:::[A-Za-z_0-9]+)+)$").unwrap();
    spans
        .captures_iter(&page)
        .map(|c| c[1].to_string())
        .filter(|span| name.is_match(span))
        .filter(|span| {
            let first = span.split([':', '/']).next().unwrap_or("");
            SRC.contains(&first) || REPO.contains(&first)
        })
        .collect()
}

/// A path exists as a file or folder; a module path names a module, or an item of one (a
/// function, or a type and maybe one of its methods).
fn exists(repo: &Path, name: &str) -> bool {
    if !name.contains("::") {
        let first = name.split('/').next().unwrap_or("");
        let base = if SRC.contains(&first) { repo.join("src") } else { repo.to_path_buf() };
        return base.join(name).exists();
    }
    let segments: Vec<&str> = name.split("::").collect();
    let module = |n: usize| {
        let path = repo.join("src").join(segments[..n].join("/"));
        path.is_dir() || path.with_extension("rs").is_file()
    };
    let Some(n) = (1..=segments.len()).rev().find(|&n| module(n)) else { return false };
    match &segments[n..] {
        [] | [_] => true,
        [item, ..] => item.starts_with(char::is_uppercase),
    }
}

struct Source {
    /// Relative to `src/`, with `/`.
    path: String,
    text: String,
}

fn source(path: &str, text: &str) -> Source {
    Source { path: path.to_string(), text: text.to_string() }
}

/// The library's files (`main.rs`, the binary, only calls `cli::main`).
fn read_sources(root: &Path) -> Vec<Source> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(root) {
        let path = entry.unwrap().into_path();
        if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            if rel != "main.rs" {
                out.push(Source { text: std::fs::read_to_string(&path).unwrap(), path: rel });
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// A file's module path: `core/sim/runner.rs` → `core::sim::runner`, `core/sim/mod.rs` → `core::sim`.
fn module_of(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = path.trim_end_matches(".rs").split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// An import: the module path it names (from the crate root) and how it was written.
struct Import {
    target: Vec<String>,
    written: String,
}

fn check(files: &[Source]) -> Vec<String> {
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(&f.path)).collect();
    let groups = groups(&modules);
    let mut problems = Vec::new();
    // group prefix → (from member → to member → first file and path that made the edge)
    let mut graphs: BTreeMap<Vec<String>, BTreeMap<String, BTreeMap<String, String>>> = BTreeMap::new();
    for file in files {
        let own = module_of(&file.path);
        for import in imports(&file.text, &own, &modules) {
            let top = import.target.first().map(String::as_str).unwrap_or("");
            for (layer, banned) in FORBIDDEN {
                if own.first().map(String::as_str) == Some(layer) && banned.contains(&top) {
                    problems.push(format!("src/{}: {layer} imports {top} ({})", file.path, import.written));
                }
            }
            for group in &groups {
                let (Some(from), Some(to)) =
                    (member(&own, group, &modules), member(&import.target, group, &modules))
                else {
                    continue;
                };
                if from != to {
                    graphs
                        .entry(group.clone())
                        .or_default()
                        .entry(from)
                        .or_default()
                        .entry(to)
                        .or_insert_with(|| format!("src/{}: {}", file.path, import.written));
                }
            }
        }
    }
    for (group, graph) in &graphs {
        for cycle in cycles(graph) {
            let name = |m: &str| group.iter().map(String::as_str).chain([m]).collect::<Vec<_>>().join("::");
            let mut line = format!(
                "cycle: {}",
                cycle.iter().chain(cycle.first()).map(|m| name(m)).collect::<Vec<_>>().join(" → ")
            );
            for (i, from) in cycle.iter().enumerate() {
                let to = &cycle[(i + 1) % cycle.len()];
                line.push_str(&format!("\n    {} → {}: {}", name(from), name(to), graph[from][to]));
            }
            problems.push(line);
        }
    }
    problems
}

/// The member of `group` that `path` lies in: the next segment when it names a module, else the
/// group's own file (the path is the group, or an item of it).
fn member(path: &[String], group: &[String], modules: &BTreeSet<Vec<String>>) -> Option<String> {
    if path.len() < group.len() || path[..group.len()] != *group {
        return None;
    }
    if path.len() > group.len() && modules.contains(&path[..=group.len()]) {
        Some(path[group.len()].clone())
    } else {
        Some(OWN_FILE.to_string())
    }
}

/// One cycle per strongly connected component of more than one member (Tarjan's algorithm).
fn cycles(graph: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<Vec<String>> {
    struct Tarjan<'a> {
        graph: &'a BTreeMap<String, BTreeMap<String, String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        components: Vec<Vec<&'a str>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a str) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            for w in self.graph.get(v).into_iter().flat_map(|e| e.keys()) {
                if !self.index.contains_key(w.as_str()) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w.as_str()]);
                    self.low.insert(v, low);
                } else if self.stack.contains(&w.as_str()) {
                    let low = self.low[v].min(self.index[w.as_str()]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let at = self.stack.iter().rposition(|s| *s == v).unwrap();
                let component = self.stack.split_off(at);
                if component.len() > 1 {
                    self.components.push(component);
                }
            }
        }
    }
    let mut t = Tarjan {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        components: Vec::new(),
    };
    for v in graph.keys() {
        if !t.index.contains_key(v.as_str()) {
            t.visit(v);
        }
    }
    // A shortest cycle through each member names the edges to cut.
    let mut found: Vec<Vec<String>> = Vec::new();
    for component in &t.components {
        let inside: BTreeSet<&str> = component.iter().copied().collect();
        for start in &inside {
            let cycle = shortest_cycle(graph, start, &inside);
            let mut key = cycle.clone();
            key.sort();
            if !found.iter().any(|c| {
                let mut k = c.clone();
                k.sort();
                k == key
            }) {
                found.push(cycle);
            }
        }
    }
    found
}

fn shortest_cycle(
    graph: &BTreeMap<String, BTreeMap<String, String>>,
    start: &str,
    inside: &BTreeSet<&str>,
) -> Vec<String> {
    let mut previous: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in graph.get(v).into_iter().flat_map(|e| e.keys()).map(String::as_str) {
            if w == start {
                let mut path = vec![v.to_string()];
                let mut at = v;
                while at != start {
                    at = previous[at];
                    path.push(at.to_string());
                }
                path.reverse();
                return path;
            }
            if inside.contains(w) && !previous.contains_key(w) {
                previous.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    unreachable!("{start} is in a strongly connected component")
}

/// Every `crate::…` / `super::…` / `self::…` path in `text` (comments and literals left out), and
/// every `use child::…` of a child module, resolved from the crate root. Grouped imports give one
/// path per leaf.
fn imports(text: &str, own: &[String], modules: &BTreeSet<Vec<String>>) -> Vec<Import> {
    let code = code_only(text);
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    // Inline modules (`mod tests { … }`) add a level that `super` climbs out of.
    let mut inline: Vec<(usize, String)> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                while inline.last().is_some_and(|(d, _)| *d > depth) {
                    inline.pop();
                }
            }
            _ => {}
        }
        let boundary = i == 0 || !is_ident(bytes[i - 1]) && bytes[i - 1] != b':';
        if boundary && let Some(name) = inline_mod_at(&code[i..]) {
            inline.push((depth + 1, name));
        }
        let child_path = if boundary { child_path_at(&code[i..], own, modules) } else { None };
        if boundary
            && (child_path.is_some()
                || code[i..].starts_with("crate::")
                || code[i..].starts_with("super::")
                || code[i..].starts_with("self::"))
        {
            i += child_path.unwrap_or(0);
            let (paths, end) = parse_tree(&code, i);
            let mut here: Vec<String> = own.to_vec();
            here.extend(inline.iter().map(|(_, n)| n.clone()));
            for path in paths {
                let mut segments: Vec<&str> = path.iter().map(String::as_str).collect();
                let mut target: Vec<String> = if segments[0] == "crate" { Vec::new() } else { here.clone() };
                if matches!(segments[0], "crate" | "self") {
                    segments.remove(0);
                }
                while segments.first() == Some(&"super") {
                    target.pop();
                    segments.remove(0);
                }
                target.extend(segments.iter().filter(|s| **s != "self").map(|s| s.to_string()));
                out.push(Import { target, written: path.join("::") });
            }
            i = end;
            continue;
        }
        i += 1;
    }
    out
}

/// `NAME::…` (or `use NAME::…`) at the start of `s` where NAME is a child module of `own`: a
/// path relative to the file's own module, as a `mod.rs` writes `pub use child::Item` or
/// `child::draw(…)`. Returns where the path starts.
fn child_path_at(s: &str, own: &[String], modules: &BTreeSet<Vec<String>>) -> Option<usize> {
    let skip = if s.starts_with("use ") { 4 } else { 0 };
    let rest = &s[skip..];
    let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    let mut child = own.to_vec();
    child.push(name.clone());
    (!name.is_empty() && rest[name.len()..].starts_with("::") && modules.contains(&child)).then_some(skip)
}

/// `mod NAME {` at the start of `s`: the inline module's name.
fn inline_mod_at(s: &str) -> Option<String> {
    let rest = s.strip_prefix("mod ")?.trim_start();
    let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    rest[name.len()..].trim_start().starts_with('{').then_some(name)
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Parses a path tree at `start` (`a::b::{c, d::{e}}`): its leaf paths and where it ends.
fn parse_tree(code: &str, start: usize) -> (Vec<Vec<String>>, usize) {
    let bytes = code.as_bytes();
    let mut prefix = Vec::new();
    let mut i = start;
    loop {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let begin = i;
        while i < bytes.len() && is_ident(bytes[i]) {
            i += 1;
        }
        if i > begin {
            prefix.push(code[begin..i].to_string());
        }
        if code[i..].starts_with("::") {
            i += 2;
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if bytes.get(i) == Some(&b'{') {
                let mut leaves = Vec::new();
                i += 1;
                loop {
                    while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b',') {
                        i += 1;
                    }
                    if i >= bytes.len() || bytes[i] == b'}' {
                        return (leaves, i + 1);
                    }
                    let (inner, end) = parse_tree(code, i);
                    for leaf in inner {
                        leaves.push(prefix.iter().cloned().chain(leaf).collect());
                    }
                    // Skip `as alias` and anything else up to the next item.
                    i = end;
                    while i < bytes.len() && bytes[i] != b',' && bytes[i] != b'}' {
                        i += 1;
                    }
                }
            }
            if bytes.get(i) == Some(&b'*') {
                return (vec![prefix], i + 1);
            }
            continue;
        }
        return (vec![prefix], i.max(start + 1));
    }
}

/// `r` opens a raw string only at the start of a word (or after `b`: `br"…"`).
fn starts_word(chars: &[char], i: usize) -> bool {
    let before = |k: usize| k == 0 || !(chars[k - 1].is_alphanumeric() || chars[k - 1] == '_');
    before(i) || chars[i - 1] == 'b' && before(i - 1)
}

/// `text` with comments, string and character literals blanked out (lengths kept).
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let blank = |out: &mut String, c: char| out.push(if c == '\n' { '\n' } else { ' ' });
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut nesting = 0;
            loop {
                if i >= chars.len() {
                    break;
                }
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    nesting += 1;
                    blank(&mut out, ' ');
                    blank(&mut out, ' ');
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    nesting -= 1;
                    blank(&mut out, ' ');
                    blank(&mut out, ' ');
                    i += 2;
                    if nesting == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && starts_word(&chars, i) {
            // Raw string: r"…", r#"…"#, …
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            let close: String = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            let close: Vec<char> = close.chars().collect();
            j += 1;
            while j < chars.len() && chars[j..].iter().take(close.len()).ne(close.iter()) {
                j += 1;
            }
            let end = (j + close.len()).min(chars.len());
            for &ch in &chars[i..end] {
                blank(&mut out, ch);
            }
            i = end;
        } else if c == '"' {
            blank(&mut out, c);
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
                if i < chars.len() {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
            }
            if i < chars.len() {
                blank(&mut out, chars[i]);
                i += 1;
            }
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{1b}'), else a lifetime.
            let literal_end = if next == Some('\\') {
                chars[i + 2..].iter().position(|&ch| ch == '\'').map(|p| i + 2 + p)
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match literal_end {
                Some(end) => {
                    for &ch in &chars[i..=end] {
                        blank(&mut out, ch);
                    }
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            // Byte offsets into the result must stay on character boundaries.
            out.push(if c.is_ascii() { c } else { ' ' });
            i += 1;
        }
    }
    out
}
