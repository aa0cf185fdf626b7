//! The shape of `src/`, checked: arrows between rooms run one way, rooms
//! stay small, and `server/` keeps few entries (CONTRIBUTING.md, "Rooms").
//!
//! A room's arrows are the paths its non-test code names: every
//! `crate::a::b` and `super::x`, and each item of a `crate::a::{b, c}`
//! group. Among the children of `server/`, and among the top-level modules
//! of `src/`, these arrows must form no circle.

#![allow(clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The most entries (files and folders) directly in `server/`.
const MAX_SERVER_ENTRIES: usize = 12;
/// The most lines in one file of `server/` or `transport/`, its test
/// module left out (doc comments count).
const MAX_FILE_LINES: usize = 500;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).expect("read a source folder") {
            let path = entry.expect("read a folder entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The module path of a file under `src/`: `server/gate/mod.rs` is
/// `["server", "gate"]`, `lib.rs` is `[]`.
fn module_of(file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src()).expect("a file under src/");
    let mut segments: Vec<String> = relative
        .with_extension("")
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    if matches!(segments.last().map(String::as_str), Some("mod" | "lib")) {
        segments.pop();
    }
    segments
}

/// The code of a file without comments and without `#[cfg(test)]` modules.
fn non_test_code(file: &Path, source: &str) -> String {
    without_test_modules(file, source)
        .lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A file without its `#[cfg(test)]` modules, comments kept.
fn without_test_modules(file: &Path, source: &str) -> String {
    let mut code = String::new();
    let mut rest = source;
    while let Some(at) = rest.find("#[cfg(test)]") {
        code.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let trimmed = after.trim_start();
        let is_module = trimmed.starts_with("mod ") || trimmed.starts_with("pub(crate) mod ");
        if !is_module {
            code.push_str("#[cfg(test)]");
            rest = after;
            continue;
        }
        // Braces are counted, not parsed: a lone one in a string or a char
        // would hide the module's end, and the whole file would count.
        let Some(end) = test_module_end(after) else {
            let module = trimmed.lines().next().unwrap_or_default();
            panic!(
                "{}: the end of `#[cfg(test)] {module}` is not found by counting braces: \
                 write a lone brace in a string or char escaped (\"\\u{{7b}}\")",
                file.display()
            );
        };
        rest = &after[end..];
    }
    code.push_str(rest);
    code
}

/// Where a `mod name { ... }` or `mod name;` at the start of `text` ends.
fn test_module_end(text: &str) -> Option<usize> {
    let open = text.find(['{', ';'])?;
    if text.as_bytes()[open] == b';' {
        return Some(open + 1);
    }
    let mut depth = 0usize;
    for (at, byte) in text.bytes().enumerate().skip(open) {
        match byte {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(at + 1);
                }
            }
            _ => {}
        }
    }
    None
}

fn is_ident(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// The modules `code`, written in module `module`, names by `crate::` and
/// `super::` paths, each as an absolute module path.
fn named_paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let starts = ["crate::", "super::"]
            .iter()
            .find(|head| bytes[at..].starts_with(head.as_bytes()));
        let preceded = at > 0 && (is_ident(bytes[at - 1]) || bytes[at - 1] == b':');
        let Some(head) = starts.filter(|_| !preceded) else {
            at += 1;
            continue;
        };
        let mut base: Vec<String> = if *head == "crate::" {
            Vec::new()
        } else {
            module[..module.len().saturating_sub(1)].to_vec()
        };
        at += head.len();
        loop {
            let start = at;
            while at < bytes.len() && is_ident(bytes[at]) {
                at += 1;
            }
            let segment = &code[start..at];
            if segment == "super" {
                base.pop();
            } else if !segment.is_empty() {
                base.push(segment.to_owned());
            }
            if bytes[at..].starts_with(b"::{") {
                at += 3;
                for item in group_items(&code[at..]) {
                    let mut path = base.clone();
                    path.push(item);
                    found.push(path);
                }
                break;
            }
            if bytes[at..].starts_with(b"::") && !segment.is_empty() {
                at += 2;
                continue;
            }
            found.push(base);
            break;
        }
    }
    found
}

/// The first segment of each top-level item of a `{...}` group, `text`
/// starting just after its `{`.
fn group_items(text: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for character in text.chars() {
        match character {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(character);
    }
    items.push(current);
    items
        .iter()
        .filter_map(|item| {
            let first: String = item
                .trim()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            (!first.is_empty() && first != "self").then_some(first)
        })
        .collect()
}

/// The arrows between the children of `scope`: child -> children it names.
fn arrows(scope: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let mut arrows: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(&src()) {
        let module = module_of(&file);
        if module.len() <= scope.len() || module[..scope.len()] != *scope {
            continue;
        }
        let from = module[scope.len()].clone();
        let code = non_test_code(
            &file,
            &fs::read_to_string(&file).expect("read a source file"),
        );
        for path in named_paths(&code, &module) {
            if path.len() > scope.len()
                && path[..scope.len()] == *scope
                && path[scope.len()] != from
            {
                arrows
                    .entry(from.clone())
                    .or_default()
                    .insert(path[scope.len()].clone());
            }
        }
    }
    arrows
}

/// The first circle in `arrows`, if any, as the rooms along it.
fn circle(arrows: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        room: &str,
        arrows: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|seen| seen == room) {
            let mut found = path[at..].to_vec();
            found.push(room.to_owned());
            return Some(found);
        }
        if done.contains(room) {
            return None;
        }
        path.push(room.to_owned());
        for next in arrows.get(room).into_iter().flatten() {
            if let Some(found) = visit(next, arrows, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(room.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    arrows
        .keys()
        .find_map(|room| visit(room, arrows, &mut Vec::new(), &mut done))
}

#[test]
fn no_circle_among_the_rooms_of_server() {
    let arrows = arrows(&["server"]);
    assert!(arrows.len() > 5, "the scan found the rooms: {arrows:?}");
    assert_eq!(circle(&arrows), None, "arrows: {arrows:#?}");
}

#[test]
fn no_circle_among_the_top_level_modules() {
    let arrows = arrows(&[]);
    assert!(
        arrows.contains_key("transport"),
        "the scan found the modules: {arrows:?}"
    );
    assert_eq!(circle(&arrows), None, "arrows: {arrows:#?}");
}

#[test]
fn the_circle_finder_finds_one() {
    let arrows: BTreeMap<String, BTreeSet<String>> = [("a", "b"), ("b", "c"), ("c", "a")]
        .into_iter()
        .map(|(from, to)| (from.to_owned(), BTreeSet::from([to.to_owned()])))
        .collect();
    assert_eq!(circle(&arrows).map(|rooms| rooms.len()), Some(4));
    let code = "use crate::server::{gate::Verified, legacy::{Session}};\nuse super::super::notify;";
    let module: Vec<String> = ["server", "round", "finish"].map(String::from).to_vec();
    let paths = named_paths(code, &module);
    assert!(
        paths.contains(&vec!["server".into(), "gate".into()]),
        "{paths:?}"
    );
    assert!(
        paths.contains(&vec!["server".into(), "legacy".into()]),
        "{paths:?}"
    );
    assert!(
        paths.contains(&vec!["server".into(), "notify".into()]),
        "{paths:?}"
    );
}

#[test]
fn server_has_few_entries() {
    let entries = fs::read_dir(src().join("server"))
        .expect("read server/")
        .filter_map(Result::ok)
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect::<BTreeSet<_>>();
    assert!(
        entries.len() <= MAX_SERVER_ENTRIES,
        "server/ has {} entries, mod.rs counted: {entries:?}",
        entries.len()
    );
}

#[test]
fn files_of_server_and_transport_stay_small() {
    let mut large = Vec::new();
    for room in ["server", "transport"] {
        for file in rust_files(&src().join(room)) {
            let source = fs::read_to_string(&file).expect("read a source file");
            let lines = without_test_modules(&file, &source).lines().count();
            if lines > MAX_FILE_LINES {
                large.push((file.display().to_string(), lines));
            }
        }
    }
    assert!(
        large.is_empty(),
        "over {MAX_FILE_LINES} lines of non-test code: {large:?}"
    );
}
