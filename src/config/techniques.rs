//! The GOAT technique catalogue a search uses: the bundled one, extended by the config
//! directory's `techniques.toml` (if there is one) and the files given with `--techniques`, in
//! that order. A file that cannot be read or parsed stops with `path:line:column: problem`.

use std::path::{Path, PathBuf};

use crate::core::attack::catalogue::{Catalogue, CatalogueFile};

use super::Paths;

pub fn load(paths: &Paths, files: &[PathBuf]) -> anyhow::Result<Catalogue> {
    let mut catalogue = Catalogue::bundled();
    let own = paths.techniques_file();
    let own = own.exists().then_some(own);
    for path in own.iter().chain(files) {
        extend(&mut catalogue, path)?;
    }
    Ok(catalogue)
}

fn extend(catalogue: &mut Catalogue, path: &Path) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("{}: cannot read the technique catalogue: {e}", path.display()))?;
    let file: CatalogueFile = super::toml_file::parse(&text, path, "technique catalogue")?;
    catalogue.extend(file).map_err(|problem| anyhow::anyhow!("{}: {problem}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_directorys_file_then_the_given_ones_extend_the_bundled_catalogue() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_path_buf();
        let paths = Paths {
            config_dir: d.clone(),
            dataset_dir: d.clone(),
            episodes_dir: d.clone(),
            log_dir: d.clone(),
            cache_dir: d,
        };
        std::fs::write(paths.techniques_file(), "[[technique]]\nname = \"flattery\"\ndescription = \"d\"\n")
            .unwrap();
        let given = dir.path().join("mine.toml");
        std::fs::write(&given, "[[technique]]\nname = \"flattery\"\ndescription = \"mine\"\n").unwrap();
        let c = load(&paths, std::slice::from_ref(&given)).unwrap();
        assert_eq!(c.find("flattery").unwrap().description, "mine");
        std::fs::write(&given, "[[technique]]\nname = \"x\"\ndescriptio = \"typo\"\n").unwrap();
        let problem = format!("{:#}", load(&paths, &[given]).unwrap_err());
        assert!(
            problem.contains("mine.toml:") && problem.contains("invalid technique catalogue"),
            "{problem}"
        );
    }
}
