//! The header's `results` (a headline metric per scorer, what `inspect view` shows at the top of
//! a log) and `stats.model_usage`, computed from the samples written.

use serde_json::{Map, Value, json};

use crate::core::import::inspect::value_to_float;

/// One `EvalScore` per scorer, in the order the samples name them: the mean of its values as
/// Inspect reads them (`accuracy` for `C`/`I`/`P`/`N`, booleans and words, `mean` for numbers);
/// a scorer whose values are on no scale (dicts) has no metric.
pub fn results(samples: &[Value]) -> Value {
    let mut names: Vec<&str> = Vec::new();
    for sample in samples {
        for name in sample["scores"].as_object().into_iter().flat_map(|s| s.keys()) {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
    }
    let scores: Vec<Value> = names
        .iter()
        .map(|name| {
            let values: Vec<&Value> =
                samples.iter().map(|s| &s["scores"][*name]["value"]).filter(|v| !v.is_null()).collect();
            let read: Vec<f64> = values.iter().filter_map(|v| value_to_float(v)).collect();
            let metric = if values.iter().all(|v| v.is_number()) { "mean" } else { "accuracy" };
            let mut metrics = Map::new();
            if !read.is_empty() {
                let mean = read.iter().sum::<f64>() / read.len() as f64;
                metrics.insert(metric.into(), json!({"name": metric, "value": mean, "params": {}}));
            }
            json!({"name": name, "scorer": name, "scored_samples": read.len(),
                "unscored_samples": samples.len() - read.len(), "params": {}, "metrics": metrics})
        })
        .collect();
    json!({"total_samples": samples.len(), "completed_samples": samples.len(), "scores": scores})
}

/// The tokens of every sample, per model.
pub fn model_usage(samples: &[Value]) -> Map<String, Value> {
    let mut sums: Map<String, Value> = Map::new();
    for (model, usage) in samples.iter().flat_map(|s| s["model_usage"].as_object().into_iter().flatten()) {
        let sum = sums
            .entry(model.clone())
            .or_insert_with(|| json!({"input_tokens": 0, "output_tokens": 0, "total_tokens": 0}));
        for key in ["input_tokens", "output_tokens", "total_tokens"] {
            let add = usage[key].as_u64().unwrap_or(0);
            sum[key] = json!(sum[key].as_u64().unwrap_or(0) + add);
        }
    }
    sums
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_scorer_has_its_mean_as_inspect_reads_its_values() {
        let samples = [
            json!({"scores": {"privacy": {"value": "C"}, "rating": {"value": 0.5}, "dims": {"value": {"a": 1}}}}),
            json!({"scores": {"privacy": {"value": "I"}, "rating": {"value": 1.0}}}),
            json!({"scores": {"privacy": {"value": "P"}}}),
        ];
        let results = results(&samples);
        let scores = results["scores"].as_array().unwrap();
        assert_eq!(scores[0]["metrics"]["accuracy"]["value"], 0.5, "(1 + 0 + 0.5) / 3");
        assert_eq!(scores[1]["metrics"]["mean"]["value"], 0.75);
        assert_eq!(
            (scores[1]["scored_samples"].as_u64(), scores[1]["unscored_samples"].as_u64()),
            (Some(2), Some(1))
        );
        assert_eq!(scores[2]["metrics"], json!({}), "a dict is on no scale");
    }
}
