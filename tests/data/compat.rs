//! Compatibility with the official implementations of the protocols and formats we speak,
//! installed from PyPI into the test venv (`tests/support/python.rs`).

use crate::support::python;

/// The venv holds exactly the pinned versions of the implementations the other tests check us
/// against (a test against a different version would check something else).
#[test]
fn the_test_venv_holds_the_pinned_official_implementations() {
    let pinned = |name: &str| {
        include_str!("../python/requirements.txt")
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{name}==")))
            .unwrap_or_else(|| panic!("{name} is not pinned"))
            .to_string()
    };
    let script =
        "import importlib.metadata as m, sys\nfor name in sys.argv[1:]: print(name, m.version(name))";
    let names = ["a2a-sdk", "mcp", "inspect_ai", "junitparser"];
    let printed = python::run_script(script, &names);
    for (line, name) in printed.lines().zip(names) {
        assert_eq!(line, format!("{name} {}", pinned(name)));
    }
    assert_eq!(printed.lines().count(), names.len());
}
