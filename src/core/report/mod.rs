//! A corpus's charts for people and other tools (`export --by … --format html|json|csv`): the
//! SVG charts and the page that holds them, and the CSV rows of their series. Pure functions of
//! the series (`core::corpus::series`), no I/O.

pub mod chart_svg;
pub mod page;
