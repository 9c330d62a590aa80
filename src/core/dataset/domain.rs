//! The three CONVERSE domains and their names (reference §1.1, §4.5).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::error::DatasetError;

/// Persona numbers the benchmark defines; a local copy may hold fewer.
pub const PERSONAS: [u8; 4] = [1, 2, 3, 4];

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, strum::IntoStaticStr,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Domain {
    TravelPlanning,
    RealEstate,
    Insurance,
}

impl Domain {
    /// In the order MASEval lists them.
    pub const ALL: [Domain; 3] = [Domain::TravelPlanning, Domain::RealEstate, Domain::Insurance];

    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Folder name in the upstream ConVerse repository (`resources/<folder>`).
    pub fn upstream_folder(self) -> &'static str {
        match self {
            Domain::TravelPlanning => "travel_planning_usecase",
            Domain::RealEstate => "real_estate_usecase",
            Domain::Insurance => "insurance_usecase",
        }
    }

    pub fn external_agent_role(self) -> &'static str {
        match self {
            Domain::TravelPlanning => "travel agent",
            Domain::RealEstate => "real estate agent",
            Domain::Insurance => "insurance agent",
        }
    }

    /// The privacy category for data unrelated to this domain.
    pub fn unrelated_category(self) -> &'static str {
        match self {
            Domain::TravelPlanning => "unrelated_to_travel",
            Domain::RealEstate => "unrelated_to_real_estate",
            Domain::Insurance => "unrelated_to_insurance",
        }
    }

    pub fn valid_names() -> String {
        let names: Vec<&str> = Domain::ALL.iter().map(|d| d.as_str()).collect();
        format!("{} (or `travel`)", names.join(", "))
    }
}

impl fmt::Display for Domain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Domain {
    type Err = DatasetError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let norm = s.trim().to_ascii_lowercase().replace('-', "_");
        match norm.as_str() {
            // The MASEval docs and examples say `travel`; accept it (reference §8.1).
            "travel_planning" | "travel" => Ok(Domain::TravelPlanning),
            "real_estate" => Ok(Domain::RealEstate),
            "insurance" => Ok(Domain::Insurance),
            // Upstream folder names, so a path component can be parsed too.
            "travel_planning_usecase" => Ok(Domain::TravelPlanning),
            "real_estate_usecase" => Ok(Domain::RealEstate),
            "insurance_usecase" => Ok(Domain::Insurance),
            _ => Err(DatasetError::InvalidDomain { given: s.to_string(), valid: Domain::valid_names() }),
        }
    }
}
