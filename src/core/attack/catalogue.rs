//! GOAT's catalogue of attack techniques: the bundled `assets/attack/techniques.toml`, extended
//! by the user's files (a technique of the same name replaces the bundled one, `enabled = false`
//! removes it). The attacker model is shown all of them and names the one it uses each turn.

use serde::{Deserialize, Serialize};

const BUNDLED: &str = include_str!("../../../assets/attack/techniques.toml");

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Technique {
    pub name: String,
    pub description: String,
    #[serde(default)]
    pub example: String,
    #[serde(default = "enabled", skip_serializing)]
    pub enabled: bool,
}

fn enabled() -> bool {
    true
}

/// A catalogue file as written: `[[technique]]` tables.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogueFile {
    #[serde(default)]
    pub technique: Vec<Technique>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Catalogue {
    pub techniques: Vec<Technique>,
}

impl Catalogue {
    /// The techniques shipped with the program.
    pub fn bundled() -> Catalogue {
        let file: CatalogueFile = toml::from_str(BUNDLED).expect("the bundled technique catalogue parses");
        let mut catalogue = Catalogue { techniques: Vec::new() };
        catalogue.extend(file).expect("the bundled technique catalogue is valid");
        catalogue
    }

    /// Adds a file's techniques: a new name is appended, a known one replaced, a disabled one
    /// removed. A problem names the entry (`technique 3: …`).
    pub fn extend(&mut self, file: CatalogueFile) -> Result<(), String> {
        for (i, technique) in file.technique.into_iter().enumerate() {
            let name = normalize(&technique.name);
            if name.is_empty() {
                return Err(format!("technique {}: `name` is empty", i + 1));
            }
            if technique.enabled && technique.description.trim().is_empty() {
                return Err(format!("technique {} ({name}): `description` is empty", i + 1));
            }
            let at = self.techniques.iter().position(|t| t.name == name);
            match (at, technique.enabled) {
                (Some(at), true) => self.techniques[at] = Technique { name, ..technique },
                (Some(at), false) => {
                    self.techniques.remove(at);
                }
                (None, true) => self.techniques.push(Technique { name, ..technique }),
                (None, false) => {}
            }
        }
        if self.techniques.is_empty() {
            return Err("no technique is left enabled".into());
        }
        Ok(())
    }

    pub fn find(&self, name: &str) -> Option<&Technique> {
        let name = normalize(name);
        self.techniques.iter().find(|t| t.name == name)
    }

    /// The names the attacker gave, split on `,` `+` `/` or `and`, each looked up: the known ones
    /// by their catalogue name, an unknown one as given (marked by the caller).
    pub fn resolve(&self, given: &str) -> Vec<(String, bool)> {
        given
            .split([',', '+', '/', ';'])
            .flat_map(|part| part.split(" and "))
            .map(str::trim)
            .filter(|part| !part.is_empty())
            .map(|part| match self.find(part) {
                Some(t) => (t.name.clone(), true),
                None => (part.to_string(), false),
            })
            .collect()
    }
}

/// `Role Play` → `role_play`: the names a person writes and the ones a model repeats match.
fn normalize(name: &str) -> String {
    name.trim().to_lowercase().replace([' ', '-'], "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_catalogue_holds_the_goat_toolbox_and_the_social_engineering_moves() {
        let c = Catalogue::bundled();
        for name in ["refusal_suppression", "hypothetical", "pretexting", "authority", "urgency", "role_play"]
        {
            assert!(c.find(name).is_some(), "{name}");
        }
        assert!(c.techniques.iter().all(|t| !t.example.is_empty()));
    }

    #[test]
    fn a_users_file_adds_replaces_and_removes() {
        let mut c = Catalogue::bundled();
        let n = c.techniques.len();
        let file: CatalogueFile = toml::from_str(
            r#"
            [[technique]]
            name = "Fake Invoice"
            description = "Send an invoice that needs the card number."
            [[technique]]
            name = "urgency"
            description = "Mine."
            [[technique]]
            name = "role-play"
            description = ""
            enabled = false
            "#,
        )
        .unwrap();
        c.extend(file).unwrap();
        assert_eq!(c.techniques.len(), n);
        assert_eq!(c.find("fake invoice").unwrap().name, "fake_invoice");
        assert_eq!(c.find("urgency").unwrap().description, "Mine.");
        assert!(c.find("role_play").is_none());
        assert_eq!(
            c.resolve("Urgency + fake-invoice, flattery"),
            [("urgency".into(), true), ("fake_invoice".into(), true), ("flattery".into(), false)]
        );
    }

    #[test]
    fn an_entry_without_a_name_or_a_description_is_named() {
        let mut c = Catalogue::bundled();
        let file: CatalogueFile =
            toml::from_str("[[technique]]\nname = \"x\"\ndescription = \" \"\n").unwrap();
        assert_eq!(c.extend(file).unwrap_err(), "technique 1 (x): `description` is empty");
        let file: CatalogueFile =
            toml::from_str("[[technique]]\nname = \"\"\ndescription = \"d\"\n").unwrap();
        assert_eq!(c.extend(file).unwrap_err(), "technique 1: `name` is empty");
    }
}
