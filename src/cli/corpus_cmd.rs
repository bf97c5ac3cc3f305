//! `logdiag test DIR [--bless]`: run a corpus of golden cases.

use std::io::Write;
use std::path::Path;

use super::{load_rules, write_line, Failure, RuleArgs};
use crate::corpus::{check_case, find_cases, Status};

pub(super) fn run(dir: &Path, bless: bool, args: &RuleArgs, out: &mut dyn Write) -> Result<i32, Failure> {
    let rules = load_rules(args)?;
    let cases = find_cases(dir).map_err(|e| Failure::Message(format!("{}: {e}", dir.display())))?;
    if cases.is_empty() {
        return Err(Failure::Message(format!(
            "{}: no cases (folders with input.log and case.json)",
            dir.display()
        )));
    }
    let mut failed = 0;
    for case in &cases {
        let result = check_case(&rules, case, bless);
        if result.status != Status::Passed {
            failed += 1;
        }
        write_line(out, &format!("{:<40} {}", result.name, result.status))?;
    }
    let verb = if bless { "blessed" } else { "passed" };
    write_line(out, &format!("\n{} cases: {} {verb}, {failed} failed", cases.len(), cases.len() - failed))?;
    Ok(if failed == 0 { 0 } else { 1 })
}
