//! A failure no rule names takes the category its words point to, learned
//! from the catalogue (rules' samples, fixtures' evidence): at low
//! confidence, exit 3, with the words that decided; harmless wording and a
//! run without the built-in catalogue get none.

use crate::util::*;

/// An uncaught exception whose line is `exception`.
fn uncaught(exception: &str) -> String {
    format!(
        "Traceback (most recent call last):\n  File \"/app/train.py\", line 88, in <module>\n    state = train_step(state, batch)\n{exception}\n"
    )
}

// XLA's out-of-memory words (jax-ml/jax), which no rule's sample holds.
const XLA_OOM: &str = "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 1073741824 bytes.";

#[test]
fn an_unknown_failure_takes_the_category_its_words_point_to_and_says_why() {
    let log = uncaught(XLA_OOM);
    let out = run_stdin(&["--format", "json", "-"], log.as_bytes());
    // A rule match stays the only way to a named cause (exit 1).
    assert_eq!(out.status.code(), Some(3), "{}", stdout(&out));
    let cause = &json(&out)["root_cause"];
    assert_eq!(cause["category"], "cuda-oom");
    assert_eq!(cause["confidence"], "low");
    assert!(cause["rule"].is_null());
    let words: Vec<&str> =
        cause["inferred"]["words"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
    assert!(words.iter().any(|w| w.contains("memory") || w.contains("allocate")), "{words:?}");
    let score = cause["inferred"]["score"].as_f64().unwrap();
    assert!((0.8..=1.0).contains(&score), "{score}");
    let text = stdout(&run_stdin(&["-"], log.as_bytes()));
    assert!(text.contains("category inferred from its wording ("), "{text}");
}

#[test]
fn harmless_or_unfamiliar_words_leave_it_unknown() {
    for exception in [
        "ZeroDivisionError: division by zero",
        "ValueError: invalid literal for int() with base 10: 'abc'",
        "AttributeError: 'NoneType' object has no attribute 'shape'",
    ] {
        let report = json(&run_stdin(&["--format", "json", "-"], uncaught(exception).as_bytes()));
        assert_eq!(report["root_cause"]["category"], "unknown", "{exception}");
        assert!(report["root_cause"].get("inferred").is_none(), "{exception}");
    }
}

#[test]
fn without_the_built_in_catalogue_nothing_is_learned() {
    let fate = root().join("rules/fate");
    let args = ["--format", "json", "--no-default-rules", "--rules", fate.to_str().unwrap(), "-"];
    let report = json(&run_stdin(&args, uncaught(XLA_OOM).as_bytes()));
    assert_eq!(report["root_cause"]["category"], "unknown");
}

#[test]
fn a_rule_that_knows_its_line_keeps_its_own_category() {
    // vllm-project/vllm (fork) #841: vLLM's dead-engine line is named by a
    // rule that leaves the category unknown on purpose; its words are not
    // read again.
    let log = std::fs::read_to_string(fixture("vllm-fork-841")).unwrap();
    let report = json(&run_stdin(&["--format", "json", "-"], log.as_bytes()));
    assert_eq!(report["root_cause"]["category"], "unknown");
    assert!(report["root_cause"].get("inferred").is_none());
}
