//! Privacy and security attack files and the ratings file (reference §1.2–1.4).
//!
//! Parsed loosely as JSON values, like MASEval: unknown keys are ignored,
//! missing ones take the reference's defaults, a wrong shape gives no items.

use serde_json::{Map, Value};

use super::error::DatasetError;

/// One privacy item with its category, in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct PrivacyItem {
    pub category: String,
    pub item: Map<String, Value>,
}

/// One security attack with its category (`legacy` for the old format) and key.
#[derive(Debug, Clone, PartialEq)]
pub struct SecurityItem {
    pub category: String,
    pub key: String,
    pub item: Map<String, Value>,
}

/// Parses JSON text; the error names `file` and the line/column.
pub fn parse_json(file: &str, text: &str) -> Result<Value, DatasetError> {
    serde_json::from_str(text).map_err(|e| DatasetError::Json {
        file: file.to_string(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })
}

/// `{ "categories": { <name>: { "items": [ ... ] } } }`.
pub fn privacy_items(doc: &Value) -> Vec<PrivacyItem> {
    let Some(categories) = doc.get("categories").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (category, body) in categories {
        let Some(items) = body.get("items").and_then(Value::as_array) else {
            continue;
        };
        for item in items {
            // A non-object item would crash MASEval; here it is skipped.
            if let Some(item) = item.as_object() {
                out.push(PrivacyItem { category: category.clone(), item: item.clone() });
            }
        }
    }
    out
}

/// New format (`security_attacks`) if that key exists, otherwise the legacy
/// `toolkit_attacks` + `final_package_attacks`, merged with the latter winning.
pub fn security_items(doc: &Value) -> Vec<SecurityItem> {
    if let Some(new) = doc.get("security_attacks") {
        let mut out = Vec::new();
        let Some(categories) = new.as_object() else {
            return out;
        };
        for (category, attacks) in categories {
            let Some(attacks) = attacks.as_object() else {
                continue;
            };
            for (key, item) in attacks {
                if let Some(item) = item.as_object() {
                    out.push(SecurityItem {
                        category: category.clone(),
                        key: key.clone(),
                        item: item.clone(),
                    });
                }
            }
        }
        return out;
    }
    // Python's `{**toolkit, **final}`: a key keeps its first position, the value
    // of final_package wins; serde_json's preserve_order map does the same.
    let mut merged: Map<String, Value> = Map::new();
    for part in ["toolkit_attacks", "final_package_attacks"] {
        if let Some(obj) = doc.get(part).and_then(Value::as_object) {
            for (k, v) in obj {
                merged.insert(k.clone(), v.clone());
            }
        }
    }
    merged
        .into_iter()
        .filter_map(|(key, item)| match item {
            Value::Object(item) => Some(SecurityItem { category: "legacy".into(), key, item }),
            _ => None,
        })
        .collect()
}

/// Ratings are kept only when they are a non-empty value (Python truthiness).
pub fn ratings_value(doc: Value) -> Option<Value> {
    let truthy = match &doc {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    };
    truthy.then_some(doc)
}

/// A string field, or `None` when absent or not a string.
pub fn str_field<'a>(item: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    item.get(key).and_then(Value::as_str)
}

/// A list of strings; non-string entries are skipped.
pub fn str_list(item: &Map<String, Value>, key: &str) -> Vec<String> {
    item.get(key)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default()
}
