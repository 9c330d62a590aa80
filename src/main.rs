//! converse-tui: the command line is `cli::main`.

fn main() -> std::process::ExitCode {
    converse_tui::cli::main()
}
