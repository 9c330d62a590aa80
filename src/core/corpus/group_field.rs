//! The fields the rows of a corpus are grouped by (`summary --by`, `--vs`, `chart --by`, the
//! browser's grouped view): their names are this enum's `Display` and `FromStr`.

use serde::Serialize;
use strum::IntoEnumIterator;

use super::row::CorpusRow;

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    strum::Display,
    strum::EnumString,
    strum::EnumIter,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case", ascii_case_insensitive)]
pub enum GroupField {
    Model,
    Defence,
    Domain,
    Persona,
    Category,
    Attack,
    AttackType,
}

impl GroupField {
    /// What a summary groups by when not told (those of them that vary among the episodes).
    pub const DEFAULT: [GroupField; 3] = [GroupField::Model, GroupField::Defence, GroupField::Domain];

    /// A row's value of the field (`-` when it has none).
    pub fn of(self, row: &CorpusRow) -> &str {
        let value = match self {
            GroupField::Model => &row.model,
            GroupField::Defence => &row.defence,
            GroupField::Domain => &row.domain,
            GroupField::Persona => &row.persona,
            GroupField::Category => &row.category,
            GroupField::Attack => &row.attack,
            GroupField::AttackType => &row.attack_type,
        };
        value.as_deref().unwrap_or("-")
    }

    /// The fields there are, for errors: `model, defence, …`.
    pub fn known() -> String {
        GroupField::list(&GroupField::iter().collect::<Vec<_>>())
    }

    /// `model, defence`.
    pub fn list(fields: &[GroupField]) -> String {
        fields.iter().map(|f| f.to_string()).collect::<Vec<_>>().join(", ")
    }

    /// `model,defence,domain`; an unknown field is one line listing the known ones.
    pub fn parse_list(list: &str) -> Result<Vec<GroupField>, String> {
        list.split(',')
            .map(str::trim)
            .filter(|f| !f.is_empty())
            .map(|f| {
                f.parse().map_err(|_| {
                    format!(
                        "unknown --by field '{}': known fields are {}",
                        f.to_lowercase(),
                        GroupField::known()
                    )
                })
            })
            .collect()
    }

    /// Of [`GroupField::DEFAULT`], those on which `rows` differ.
    pub fn varying<'a>(rows: impl IntoIterator<Item = &'a CorpusRow> + Clone) -> Vec<GroupField> {
        GroupField::DEFAULT
            .into_iter()
            .filter(|field| {
                let mut values = rows.clone().into_iter().map(|r| field.of(r));
                let first = values.next();
                values.any(|v| Some(v) != first)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_reads_back_as_written_and_an_unknown_one_is_named() {
        for field in GroupField::iter() {
            assert_eq!(field.to_string().parse::<GroupField>(), Ok(field));
        }
        assert_eq!(
            GroupField::parse_list("Model, attack_type"),
            Ok(vec![GroupField::Model, GroupField::AttackType])
        );
        let err = GroupField::parse_list("model,modle").unwrap_err();
        assert_eq!(
            err,
            "unknown --by field 'modle': known fields are model, defence, domain, persona, category, attack, attack_type"
        );
        assert_eq!(serde_json::to_string(&GroupField::AttackType).unwrap(), "\"attack_type\"");
    }
}
