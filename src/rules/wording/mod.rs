//! What the catalogue's words teach: a category inferred from a failure's
//! wording when no rule names it.
//!
//! The examples are the catalogue's own labelled lines: every rule's
//! samples (labelled by the rule's category, or as harmless for benign and
//! marker rules), its counter-samples (harmless), and the fixtures'
//! evidence (their case's category) and benign lines (harmless). `build.rs`
//! gathers them into a table in the binary, so a rule added with samples
//! retrains the model; the model itself is counted from that table the
//! first time a failure needs it.
//!
//! The model is a multinomial naive Bayes over words and pairs of adjacent
//! words, with equal priors and add-one smoothing: deterministic, and each
//! answer explained by the words that weighed most for it.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::category::Category;

mod features;
pub use features::{features, NOT_TAUGHT};

/// Below this share of the evidence the winning category stays unsaid.
pub const THRESHOLD: f64 = 0.85;

/// At least this many of a line's words must be known to the model.
const MIN_KNOWN_WORDS: usize = 2;

/// How many of the deciding words an inference names.
const DECIDING_WORDS: usize = 4;

/// A category inferred from a line's wording.
#[derive(Debug, Clone, PartialEq)]
pub struct Inference {
    /// The category the words point to.
    pub category: Category,
    /// Its share of the evidence, 0 to 1 (the naive Bayes posterior).
    pub score: f64,
    /// The words that weighed most for it, strongest first.
    pub words: Vec<String>,
}

/// Counts of words by class, from labelled lines.
#[derive(Debug)]
pub struct WordingModel {
    /// The classes: a category, or `None` for harmless wording.
    classes: Vec<Option<Category>>,
    /// How many words (and pairs) each class's lines hold.
    totals: Vec<u32>,
    /// How many distinct words (and pairs) the lines hold.
    vocabulary: u32,
    counts: Counts,
}

/// For each known word (or pair of words), how often each class's lines
/// use it.
#[derive(Debug)]
enum Counts {
    /// Counted by `build.rs`: (word, [(class, count)]), sorted by word.
    Table(&'static [(&'static str, &'static [(u8, u32)])]),
    /// Counted at run time, from lines given to [`WordingModel::train`].
    Map(HashMap<String, Vec<u32>>),
}

impl WordingModel {
    /// Counts a model from labelled lines (`None`: harmless wording).
    /// Lines labelled with a category that is no crash cause, or
    /// `unknown`, teach nothing.
    pub fn train<'a>(examples: impl IntoIterator<Item = (&'a str, Option<Category>)>) -> WordingModel {
        let mut classes: Vec<Option<Category>> = Vec::new();
        let mut counts: HashMap<String, Vec<u32>> = HashMap::new();
        let mut totals: Vec<u32> = Vec::new();
        for (text, label) in examples {
            if label.is_some_and(|c| !teaches(c)) {
                continue;
            }
            let class = match classes.iter().position(|c| *c == label) {
                Some(class) => class,
                None => {
                    classes.push(label);
                    totals.push(0);
                    classes.len() - 1
                }
            };
            for word in features(text) {
                let row = counts.entry(word).or_default();
                if row.len() <= class {
                    row.resize(class + 1, 0);
                }
                row[class] += 1;
                totals[class] += 1;
            }
        }
        let vocabulary = counts.len() as u32;
        WordingModel { classes, totals, vocabulary, counts: Counts::Map(counts) }
    }

    /// The model of the built-in catalogue, counted by `build.rs` (the
    /// same counting as [`WordingModel::train`] over the same lines).
    pub fn builtin() -> &'static WordingModel {
        static MODEL: OnceLock<WordingModel> = OnceLock::new();
        MODEL.get_or_init(|| WordingModel {
            classes: BUILTIN_CLASSES.iter().map(|label| label.parse::<Category>().ok()).collect(),
            totals: BUILTIN_TOTALS.to_vec(),
            vocabulary: BUILTIN_VOCABULARY,
            counts: Counts::Table(BUILTIN_COUNTS),
        })
    }

    /// The word's log-likelihood in each class (add-one smoothed), when
    /// the model knows it.
    fn likelihood(&self, word: &str) -> Option<Vec<f64>> {
        let mut row = vec![0u32; self.classes.len()];
        match &self.counts {
            Counts::Table(table) => {
                let at = table.binary_search_by(|(known, _)| (*known).cmp(word)).ok()?;
                for &(class, count) in table[at].1 {
                    row[usize::from(class)] = count;
                }
            }
            Counts::Map(map) => row[..].iter_mut().zip(map.get(word)?).for_each(|(r, c)| *r = *c),
        }
        let vocabulary = f64::from(self.vocabulary);
        let smoothed = row.iter().zip(&self.totals);
        Some(
            smoothed
                .map(|(&count, &total)| ((f64::from(count) + 1.0) / (f64::from(total) + vocabulary)).ln())
                .collect(),
        )
    }

    /// The category the line's words point to, when they point clearly
    /// enough (see [`THRESHOLD`]) to one that is a crash cause.
    pub fn infer(&self, line: &str) -> Option<Inference> {
        let words: Vec<(String, Vec<f64>)> =
            features(line).filter_map(|w| self.likelihood(&w).map(|row| (w, row))).collect();
        let known_words = words.iter().filter(|(w, _)| !w.contains(' ')).count();
        if known_words < MIN_KNOWN_WORDS {
            return None;
        }
        let mut scores = vec![0.0; self.classes.len()];
        for (_, row) in &words {
            for (score, weight) in scores.iter_mut().zip(row.iter()) {
                *score += weight;
            }
        }
        let best = (0..scores.len()).max_by(|&a, &b| scores[a].total_cmp(&scores[b]))?;
        let top = scores[best];
        let share = 1.0 / scores.iter().map(|s| (s - top).exp()).sum::<f64>();
        let category = self.classes[best]?;
        if share < THRESHOLD {
            return None;
        }
        // The words that set the winner furthest apart from the others.
        let mut deciding: Vec<(f64, &str)> = words
            .iter()
            .map(|(word, row)| {
                let rival = (0..row.len()).filter(|&c| c != best).map(|c| row[c]).fold(f64::MIN, f64::max);
                (row[best] - rival, word.as_str())
            })
            .filter(|(margin, _)| *margin > 0.0)
            .collect();
        deciding.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        let mut named: Vec<String> = Vec::new();
        for (_, word) in deciding {
            if named.len() == DECIDING_WORDS {
                break;
            }
            if !named.iter().any(|n| n == word) {
                named.push(word.to_string());
            }
        }
        Some(Inference { category, score: share, words: named })
    }
}

/// Whether lines labelled with this category teach the model: crash
/// causes do, but `unknown` (no wording in common) and outcomes that are
/// no crash do not. `build.rs` keeps the same list ([`NOT_TAUGHT`]).
fn teaches(category: Category) -> bool {
    !NOT_TAUGHT.contains(&category.name())
}

include!(concat!(env!("OUT_DIR"), "/builtin_wording.rs"));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_worded_unlike_any_sample_gets_its_category_and_why() {
        // XLA's words (jax-ml/jax), which no rule's sample nor fixture has;
        // the catalogue's out-of-memory lines teach them.
        let line = "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1073741824 bytes.";
        assert!(!BUILTIN_WORDING.iter().any(|(text, _)| text.contains("RESOURCE_EXHAUSTED")));
        let inference = WordingModel::builtin().infer(line).expect("a category");
        assert_eq!(inference.category, Category::CudaOom);
        assert!(inference.score >= THRESHOLD && inference.score <= 1.0, "{inference:?}");
        assert!(
            inference.words.iter().any(|w| w.contains("allocate") || w.contains("memory")),
            "{inference:?}"
        );
    }

    #[test]
    fn the_table_build_rs_counted_is_the_model_its_lines_train() {
        let labelled = BUILTIN_WORDING.iter().map(|(text, label)| (*text, label.parse::<Category>().ok()));
        let trained = WordingModel::train(labelled);
        let table = WordingModel::builtin();
        assert_eq!(trained.classes, table.classes);
        assert_eq!((&trained.totals, trained.vocabulary), (&table.totals, table.vocabulary));
        let Counts::Map(map) = &trained.counts else { unreachable!() };
        for word in map.keys() {
            assert_eq!(trained.likelihood(word), table.likelihood(word), "{word}");
        }
        // Every label is a category the binary knows (an unknown name
        // would silently count as harmless).
        for label in BUILTIN_CLASSES.iter().filter(|l| !l.is_empty()) {
            assert!(label.parse::<Category>().is_ok(), "{label}");
        }
    }

    #[test]
    fn lines_of_no_crash_cause_teach_nothing() {
        for &category in Category::ALL {
            let taught = category.is_crash() && category != Category::Unknown;
            assert_eq!(teaches(category), taught, "{category}");
        }
    }

    #[test]
    fn harmless_wording_gets_no_category() {
        let model = WordingModel::builtin();
        assert_eq!(model.infer("Request 7f3a was cancelled by the client"), None);
        assert_eq!(model.infer("INFO:     Application startup complete."), None);
        // Too few words the catalogue knows: no guess.
        assert_eq!(model.infer("zxqv wrtp"), None);
    }

    #[test]
    fn a_rule_with_samples_for_new_words_teaches_them() {
        // A driver whose kernel module is missing, in words no sample has.
        let line = "Error: NVIDIA kernel module is not loaded on this host";
        let builtin = || BUILTIN_WORDING.iter().map(|(text, label)| (*text, label.parse::<Category>().ok()));
        let before = WordingModel::train(builtin());
        assert_eq!(before.infer(line), None);
        // A rule for it, with two samples.
        let samples = [
            "NVRM: the NVIDIA kernel module is not loaded; run modprobe nvidia",
            "nvidia-smi: NVIDIA kernel module nvidia not loaded",
        ];
        let rule = samples.iter().map(|s| (*s, Some(Category::CudaDriverMismatch)));
        let after = WordingModel::train(builtin().chain(rule));
        let inference = after.infer(line).expect("a category");
        assert_eq!(inference.category, Category::CudaDriverMismatch);
        assert!(
            inference.words.iter().any(|w| w.contains("module") || w.contains("loaded")),
            "{inference:?}"
        );
    }

    #[test]
    fn words_are_split_at_case_and_punctuation_and_numbers_left_out() {
        let words: Vec<String> = features("torch.OutOfMemoryError: 2.00 GiB at 0x7f3a9c").collect();
        // `of` alone is filler, in a pair it stays; `error` says nothing.
        assert_eq!(words[..3], ["torch", "out", "memory"]);
        assert!(words.contains(&"gi".to_string()) || words.contains(&"gib".to_string()));
        assert!(!words.iter().any(|w| w.contains("7f3a")));
        assert!(words.contains(&"out of".to_string()));
    }

    #[test]
    fn modules_wrappers_and_call_sites_are_not_the_failures_words() {
        let line = "ray.exceptions.RayTaskError(NotImplementedError): ray::TaskRunner.run() (pid=14879, ip=10.0.0.1)";
        let words: Vec<String> = features(line).collect();
        assert!(words.contains(&"not implemented".to_string()), "{words:?}");
        let noise = ["ray", "exceptions", "task", "runner", "run"];
        assert!(!words.iter().any(|w| w.split(' ').any(|w| noise.contains(&w))), "{words:?}");
        // A qualified name that is no call keeps its words.
        assert!(features("terminate called after throwing std::bad_alloc").any(|w| w == "bad alloc"));
    }
}
