//! `logdiag rules list | categories | check [DIR] | explain ID | draft FILE`.

use std::io::Write;
use std::path::Path;

use comfy_table::{presets, Table};

use super::{load_rules, write_line, RuleArgs, RulesAction};
use crate::error::Error;
use crate::exit::Exit;
use crate::rules::{load, Category, LoadOptions, Role};

pub(super) fn run(action: &RulesAction, args: &RuleArgs, out: &mut dyn Write) -> Result<Exit, Error> {
    match action {
        RulesAction::Categories => categories(out),
        RulesAction::List => list(args, out),
        RulesAction::Check { dir } => check(dir.as_deref(), args, out),
        RulesAction::Draft { file, run } => super::draft::run(file, *run, args, out),
        RulesAction::Explain { id } => explain(id, args, out),
        RulesAction::Literals => literals(args, out),
    }
}

/// `rules literals`: the literals the rules require, one per line (for
/// `rg -i -F -f`), and on stderr how many rules have none.
fn literals(args: &RuleArgs, out: &mut dyn Write) -> Result<Exit, Error> {
    let rules = load_rules(args)?;
    let (literals, without) = rules.required_literals();
    for literal in &literals {
        out.write_all(literal).and_then(|()| out.write_all(b"\n")).map_err(Error::Output)?;
    }
    eprintln!(
        "{} literals from {} rules; {without} rules require none (they are tried on every line)",
        literals.len(),
        rules.rules().len()
    );
    Ok(Exit::Healthy)
}

/// `rules categories`: the closed list of categories, with their meaning.
fn categories(out: &mut dyn Write) -> Result<Exit, Error> {
    let mut table = Table::new();
    table.load_preset(presets::NOTHING);
    table.set_header(["category", "kind", "meaning"]);
    for &category in Category::ALL {
        let kind = if category.is_crash() { "crash" } else { "not a crash" };
        table.add_row([category.name(), kind, category.meaning()]);
    }
    write_line(out, &table.to_string())?;
    Ok(Exit::Healthy)
}

/// `rules list`: every loaded rule's id, role and category.
fn list(args: &RuleArgs, out: &mut dyn Write) -> Result<Exit, Error> {
    let rules = load_rules(args)?;
    let mut table = Table::new();
    table.load_preset(presets::NOTHING);
    table.set_header(vec!["id", "role", "category"]);
    for rule in rules.rules() {
        let category = match (rule.role, rule.marker) {
            (Role::Marker, Some(kind)) => format!("({})", kind.name()),
            _ => rule.category.map_or_else(|| "-".to_string(), |c| c.to_string()),
        };
        table.add_row(vec![rule.id.clone(), rule.role.name().to_string(), category]);
    }
    write_line(out, &table.to_string())?;
    Ok(Exit::Healthy)
}

/// `rules check [DIR]`: loads the rules (of `dir` alone, if given) with
/// every sample checked, and says what is wrong or how much was checked.
fn check(dir: Option<&Path>, args: &RuleArgs, out: &mut dyn Write) -> Result<Exit, Error> {
    let options = match dir {
        Some(dir) => {
            LoadOptions { builtin: false, dirs: vec![dir.to_path_buf()], check_builtin_samples: true }
        }
        None => LoadOptions {
            builtin: !args.no_default_rules,
            dirs: args.rules.clone(),
            check_builtin_samples: true,
        },
    };
    match load::load(&options) {
        Ok(rules) => {
            let samples: usize =
                rules.rules().iter().map(|r| r.samples.len() + r.counter_samples.len()).sum();
            write_line(
                out,
                &format!(
                    "{} rules ok ({samples} samples and counter-samples checked; {} without a literal for the prefilter)",
                    rules.rules().len(),
                    rules.unfiltered_rules()
                ),
            )?;
            Ok(Exit::Healthy)
        }
        Err(errors) => {
            for e in &errors {
                write_line(out, &e.to_string())?;
            }
            write_line(out, &format!("{} problem(s) found", errors.len()))?;
            Ok(Exit::Error)
        }
    }
}

/// `rules explain ID`: one rule as written, its match conditions in words.
fn explain(id: &str, args: &RuleArgs, out: &mut dyn Write) -> Result<Exit, Error> {
    let rules = load_rules(args)?;
    let Some(index) = rules.find(id) else {
        return Err(Error::Usage(format!("no rule with id '{id}' (see `logdiag rules list`)")));
    };
    let rule = rules.rule(index);
    let m = &rule.matcher;
    let mut text = format!("{}  ({})\n", rule.id, rule.file);
    text += &format!("  role:      {}\n", rule.role.name());
    if let Some(category) = &rule.category {
        text += &format!("  category:  {category}\n");
    }
    if let Some(kind) = rule.marker {
        text += &format!("  marker:    {}\n", kind.name());
    }
    text += &format!("  title:     {}\n", rule.title);
    text += &format!("  matches:   message =~ /{}/\n", m.message.as_str());
    if let Some(not) = &m.not {
        text += &format!("             and not /{}/\n", not.as_str());
    }
    if let Some(e) = &m.exception {
        text += &format!("             in an exception of type {}\n", e.as_str());
    }
    if let Some(f) = &m.frame {
        text += &format!("             in a traceback with a frame =~ /{}/\n", f.as_str());
    }
    if let Some(i) = &m.identifier {
        text += &format!("             written by identifier {}\n", i.as_str());
    }
    if let Some(hint) = &rule.hint {
        text += &format!("  hint:      {hint}\n");
    }
    if let Some(why) = &rule.why {
        text += &format!("  why:       {why}\n");
    }
    for sample in &rule.samples {
        text += &format!("  sample:    {}\n", sample.trim_end().replace('\n', "\n             "));
    }
    for sample in &rule.counter_samples {
        text += &format!("  not:       {}\n", sample.trim_end().replace('\n', "\n             "));
    }
    write_line(out, text.trim_end())?;
    Ok(Exit::Healthy)
}
