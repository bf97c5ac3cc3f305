//! Loading and matching rules; errors carry file:line:col.

use super::load::load_texts;
use super::prefilter::Known;
use super::refusal::verdict;
use super::*;
use crate::pipeline::events_of;

const ARCH: &str = r#"
role = "cause"
category = "flashinfer-unsupported-arch"
title = "FlashInfer requires {arch}"
hint = "upgrade FlashInfer"

[match]
message = 'FlashInfer requires (?P<arch>sm75\+|GPUs with sm75 or higher)'
exception = "RuntimeError"

[test]
samples = ["RuntimeError: FlashInfer requires sm75+"]
counter_samples = ['    raise RuntimeError("FlashInfer requires sm75+")']
"#;

#[test]
fn a_valid_rule_loads_with_an_id_from_its_path() {
    let set = load_texts(&[("flashinfer/arch-check.toml", ARCH)]).unwrap();
    let rule = set.rule(0);
    assert_eq!(rule.id, "flashinfer.arch-check");
    assert_eq!(rule.role, Role::Cause);
    let events = events_of("Traceback (most recent call last):\n  File \"/a.py\", line 1, in f\n    raise RuntimeError(\"FlashInfer requires sm75+\")\nRuntimeError: FlashInfer requires sm75+");
    let mut found = Vec::new();
    set.match_event(&events[0], &mut MatchScratch::default(), &mut found);
    assert_eq!(found.len(), 1, "only the exception line, not the source line");
    assert_eq!(found[0].line, 3);
    assert_eq!(rule.render_title(&found[0].captures), "FlashInfer requires sm75+");
}

#[test]
fn every_error_is_reported_with_its_position() {
    let broken = r#"
role = "cause"
category = "no-such-category"
title = "x {missing}"

[match]
message = 'unclosed ('
colour = "red"

[test]
samples = ["x"]
"#;
    let errors = load_texts(&[("a/b.toml", broken)]).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!((errors[0].line, errors[0].file.as_str()), (8, "a/b.toml"));
    assert!(errors[0].message.contains("unknown field"), "{}", errors[0].message);

    let broken = broken.replace("colour = \"red\"\n", "");
    let errors = load_texts(&[("a/b.toml", &broken)]).unwrap_err();
    let messages: Vec<String> =
        errors.iter().map(|e| format!("{}:{} {}", e.line, e.column, e.message)).collect();
    assert!(messages.iter().any(|m| m.starts_with("3:12 unknown category")), "{messages:?}");
    assert!(messages.iter().any(|m| m.starts_with("2:8 a cause rule needs `hint`")), "{messages:?}");
    assert!(messages.iter().any(|m| m.starts_with("7:11 invalid regex")), "{messages:?}");
}

#[test]
fn samples_are_checked() {
    let wrong = ARCH.replace(
        "samples = [\"RuntimeError: FlashInfer requires sm75+\"]",
        "samples = [\"RuntimeError: something else\"]",
    );
    let errors = load_texts(&[("flashinfer/arch-check.toml", &wrong)]).unwrap_err();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].message, "sample does not match this rule");
    assert_eq!(errors[0].line, 12);
}

#[test]
fn duplicate_ids_and_unknown_references() {
    let with_id = format!("id = \"x.y\"\n{ARCH}");
    let errors = load_texts(&[("a.toml", &with_id), ("b.toml", &with_id)]).unwrap_err();
    assert!(errors[0].message.starts_with("duplicate rule id 'x.y'"));
    // A rule of a loaded area that does not exist is a mistake; one of an
    // area not loaded at all is nothing to explain in this rule set.
    let explains = |id: &str| {
        ARCH.replace("hint = \"upgrade FlashInfer\"", &format!("hint = \"h\"\nexplains = [\"{id}\"]"))
    };
    let errors = load_texts(&[("flashinfer/arch-check.toml", &explains("flashinfer.no-such"))]).unwrap_err();
    assert!(errors[0].message.contains("unknown rule id 'flashinfer.no-such'"));
    assert!(load_texts(&[("flashinfer/arch-check.toml", &explains("torchrun.closing-workers"))]).is_ok());
}

#[test]
fn start_markers_take_one_of_three_stages() {
    let marker = |stage: &str| {
        format!(
            "id = \"m.start\"\nrole = \"marker\"\nmarker = \"start\"\ncategory = \"unknown\"\ntitle = \"t\"\n{stage}\n\n[match]\nmessage = 'Starting server'\n\n[test]\nsamples = [\"Starting server\"]\n"
        )
    };
    let set = load_texts(&[("m.toml", &marker("stage = 1"))]).unwrap();
    assert_eq!(set.rules()[0].stage, super::Stage::UnitStarted);
    let set = load_texts(&[("m.toml", &marker(""))]).unwrap();
    assert_eq!(set.rules()[0].stage, super::Stage::Launch, "a program launch unless told");
    let errors = load_texts(&[("m.toml", &marker("stage = 3"))]).unwrap_err();
    assert_eq!((errors[0].line, errors[0].message.as_str()), (6, "unknown stage 3"));
}

#[test]
fn builtin_rules_load_and_pass_their_samples() {
    let options = LoadOptions { builtin: true, check_builtin_samples: true, ..LoadOptions::default() };
    if let Err(errors) = super::load::load(&options) {
        let all: Vec<String> = errors.iter().map(ToString::to_string).collect();
        panic!("built-in rules are broken:\n{}", all.join("\n"));
    }
}

#[test]
fn a_big_automaton_that_fits_gets_a_cache_that_holds_it() {
    use super::lazy::{LazyRegex, DFA_CACHE_LIMIT};
    // 2^15 states: allowed, but more than the default cache holds, so
    // lines of random `a`s and `b`s would make the cache thrash.
    let mut big = LazyRegex::compile_now("[ab]*a[ab]{14}X", false).unwrap();
    big.check_automaton().unwrap();
    assert!(big.cache_limit() > DFA_CACHE_LIMIT, "{}", big.cache_limit());
    assert!(big.is_match("aaaaaaaaaaaaaaaaX") && !big.is_match("bbbbbbbbbbbbbbbbbX"));
    // An ordinary pattern keeps the default.
    let mut small = LazyRegex::compile_now(r"CUDA error: out of memory", false).unwrap();
    small.check_automaton().unwrap();
    assert_eq!(small.cache_limit(), DFA_CACHE_LIMIT);
}

#[test]
fn every_builtin_rule_matches_at_automaton_speed() {
    let rules = RuleSet::builtin().expect("built-in rules");
    let mut slow = Vec::new();
    for rule in rules.rules() {
        let patterns = std::iter::once(&rule.matcher.message).chain(rule.matcher.not.as_ref());
        for pattern in patterns {
            if let Err(why) = pattern.clone().check_automaton() {
                slow.push(format!("{}: {why}", rule.id));
            }
        }
    }
    assert!(slow.is_empty(), "{slow:#?}");
}

#[test]
fn a_match_holds_for_messages_of_its_shape_with_the_same_bytes_there() {
    // Regexes that tell digits apart, with anchors and word boundaries;
    // messages of one shape whose digits change. The verdicts learnt from
    // the first message must agree with matching each message afresh.
    let patterns =
        [r"^[12]\.", r"\b2\d\d\b", r#"HTTP/1\.\d" [23]\d\d"#, r"[05]$", r"(?m)^7", r"x9+y", r":6\d*"];
    let template = "1.0.0.1:00000 - \"POST /a HTTP/1.0\" 000 OK x00y 0\n000 0";
    let mut seed = 7u64;
    let mut messages = Vec::new();
    for _ in 0..2000 {
        let message: String = template
            .chars()
            .map(|c| {
                if !c.is_ascii_digit() {
                    return c;
                }
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                // Few digits, so that matches and misses both come often.
                char::from(b"0125679"[(seed >> 33) as usize % 7])
            })
            .collect();
        messages.push(message);
    }
    for pattern in patterns {
        let regex = regex::Regex::new(pattern).unwrap();
        let mut reference = Vec::new();
        let mut known = Known::Nothing;
        let (mut matched, mut missed) = (0, 0);
        for message in &messages {
            let expected = regex.is_match(message);
            assert_eq!(
                verdict(&mut known, false, &regex, message, &mut reference),
                expected,
                "{pattern} on {message:?}"
            );
            if expected {
                matched += 1;
            } else {
                missed += 1;
            }
        }
        assert!(matched > 0 && missed > 0, "{pattern}: {matched} matched, {missed} missed");
    }
    // The bytes of an HTTP status found once decide later access lines
    // without a search; another status is searched again.
    let regex = regex::Regex::new(r#""POST \S+ HTTP/[0-9.]+" 2\d\d"#).unwrap();
    let line = |port: u32, status: u32| format!(r#"127.0.0.1:{port} - "POST /v1 HTTP/1.1" {status} OK"#);
    let (mut known, mut reference) = (Known::Nothing, Vec::new());
    assert!(!verdict(&mut known, false, &regex, &line(5001, 404), &mut reference));
    assert_eq!((known, reference.len()), (Known::Nothing, 0), "a miss keeps nothing");
    assert!(verdict(&mut known, false, &regex, &line(5001, 200), &mut reference));
    assert_eq!((known, reference.as_slice()), (Known::MatchedAt(17, 40), line(5001, 200).as_bytes()));
    assert!(verdict(&mut known, false, &regex, &line(6302, 200), &mut reference));
    assert!(!verdict(&mut known, false, &regex, &line(6302, 500), &mut reference));
}

#[test]
fn the_built_in_regexes_facts_are_stored_as_parsing_finds_them() {
    // Loading the built-in rules looks up the facts the build script
    // stored; each must be what parsing the pattern now gives, and every
    // built-in pattern must be stored (else start-up parses it again).
    let rules = RuleSet::builtin().unwrap();
    let stored = super::load::BUILTIN_REGEX_FACTS;
    assert!(stored.windows(2).all(|pair| pair[0].0 < pair[1].0), "sorted by pattern, for the lookup");
    for (pattern, _) in stored {
        assert_eq!(RegexFacts::of(pattern, stored), RegexFacts::parse(pattern), "{pattern}");
    }
    let patterns =
        rules.rules().iter().flat_map(|r| std::iter::once(&r.matcher.message).chain(&r.matcher.not));
    let mut count = 0;
    for pattern in patterns {
        assert!(
            stored.binary_search_by(|(key, _)| (*key).cmp(pattern.as_str())).is_ok(),
            "{}",
            pattern.as_str()
        );
        count += 1;
    }
    assert!(count > 300, "only {count} built-in patterns");
}

#[test]
fn placeholders_are_names_in_single_braces_only() {
    let hint =
        "run `coredumpctl info {pid}`; `docker inspect -f '{{.State.OOMKilled}}'`; ${HOME}; {0}; {a_1}";
    let names: Vec<&str> = super::placeholders(hint).map(|(name, _)| name).collect();
    assert_eq!(names, ["pid", "a_1"]);
}

#[test]
fn every_sample_of_a_builtin_rule_holds_a_literal_the_rules_require() {
    let set = RuleSet::builtin().unwrap();
    let (literals, without) = set.required_literals();
    let lower: Vec<Vec<u8>> = literals.iter().map(|l| l.to_ascii_lowercase()).collect();
    let holds = |text: &str| {
        let text = text.to_ascii_lowercase();
        lower.iter().any(|l| text.as_bytes().windows(l.len()).any(|w| w == l.as_slice()))
    };
    assert_eq!(without, 0, "a built-in rule without a literal is tried on every line");
    for rule in set.rules() {
        for sample in &rule.samples {
            assert!(holds(sample), "{}: no literal in {sample:?}", rule.id);
        }
    }
    // Each literal once, whatever its case.
    let mut unique = lower.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), lower.len());
}
