//! How a server was launched: the arguments it prints at start, so that
//! when a launch is slower than the one before, the report can say what
//! changed between them.
//!
//! sglang prints `server_args=ServerArgs(key=value, …)`, vLLM `non-default
//! args: {'key': value, …}` (older releases `args: Namespace(key=value,
//! …)`) and `vLLM API server version 0.10.1`. Values are Python reprs:
//! strings with quotes, lists, dicts, nested calls; they are read as
//! balanced text, never split inside brackets or quotes.

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while1};
use nom::character::complete::char;
use nom::combinator::opt;
use nom::sequence::{delimited, preceded, terminated};
use nom::{IResult, Parser};
use serde::Serialize;

/// Most arguments kept per launch.
const MAX_ARGS: usize = 512;
/// Most bytes of a value kept.
const MAX_VALUE_BYTES: usize = 200;
/// Arguments that differ between launches without anyone changing them
/// (sglang draws a random seed at each launch unless one is given).
const DRAWN_PER_LAUNCH: &[&str] = &["random_seed"];
/// Arguments that name a host or its place in a group of hosts: hosts of
/// one fleet that differ only in these run the same configuration.
const PER_HOST: &[&str] = &[
    "host",
    "port",
    "nccl_port",
    "dist_init_addr",
    "node_rank",
    "data_parallel_rank",
    "data_parallel_start_rank",
    "data_parallel_address",
    "data_parallel_rpc_port",
];
/// The arguments that name the model served (sglang, vLLM, vLLM's
/// positional `serve MODEL`).
const MODEL: &[&str] = &["model_path", "model", "model_tag"];

/// The arguments of one launch, in the order printed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchArgs {
    /// `(name, value)`, values as printed.
    pub entries: Vec<(String, String)>,
    /// Only non-default arguments were printed (vLLM): an argument missing
    /// from one launch had its default there.
    pub only_non_default: bool,
}

/// An argument that differs between two launches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangedArg {
    /// Its name (`enable_flashinfer_allreduce_fusion`, `version`).
    pub name: String,
    /// Its value in the earlier launch (null: not printed there).
    pub before: Option<String>,
    /// Its value in this launch (null: not printed here).
    pub after: Option<String>,
}

/// Whether `message` may print launch arguments (cheap; `read` parses).
pub fn is_args_line(message: &str) -> bool {
    message.starts_with("server_args=")
        || message.starts_with("non-default args: ")
        || message.starts_with("args: Namespace(")
        || message.starts_with(VLLM_VERSION)
}

const VLLM_VERSION: &str = "vLLM API server version ";

impl LaunchArgs {
    /// Adds what `message` says about the launch; returns whether it said
    /// anything.
    pub fn read(&mut self, message: &str) -> bool {
        let message = message.trim_end();
        if let Some(version) = message.strip_prefix(VLLM_VERSION) {
            self.set("version", version.trim());
            return true;
        }
        let keyword = preceded(
            alt((tag("server_args=ServerArgs("), tag("args: Namespace("))),
            terminated(entries(keyword_entry), opt(char(')'))),
        );
        let dict = preceded(tag("non-default args: {"), terminated(entries(dict_entry), opt(char('}'))));
        let mut only_non_default = false;
        let parsed: IResult<&str, Vec<(&str, &str)>> = alt((
            keyword,
            dict.map(|list| {
                only_non_default = true;
                list
            }),
        ))
        .parse(message);
        let Ok((_, list)) = parsed else { return false };
        self.only_non_default |= only_non_default;
        for (name, value) in list {
            self.set(name, value);
        }
        true
    }

    fn set(&mut self, name: &str, value: &str) {
        let value = cut(value);
        if let Some((_, kept)) = self.entries.iter_mut().find(|(n, _)| n == name) {
            *kept = value.to_string();
        } else if self.entries.len() < MAX_ARGS {
            self.entries.push((name.to_string(), value.to_string()));
        }
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.entries.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The model served, as its path or name was given.
    pub fn model(&self) -> Option<&str> {
        MODEL.iter().find_map(|name| self.get(name)).map(|v| v.trim_matches(|c| c == '\'' || c == '"'))
    }

    /// The configuration these arguments launch, whatever host runs it:
    /// without the arguments that name the host or are drawn at each
    /// launch, in name order.
    pub fn configuration(&self) -> LaunchArgs {
        let mut entries: Vec<(String, String)> = self
            .entries
            .iter()
            .filter(|(name, _)| {
                !PER_HOST.contains(&name.as_str()) && !DRAWN_PER_LAUNCH.contains(&name.as_str())
            })
            .cloned()
            .collect();
        entries.sort();
        LaunchArgs { entries, only_non_default: self.only_non_default }
    }

    /// What differs from `earlier`: in this launch's order, then what only
    /// the earlier one printed.
    pub fn changes_since(&self, earlier: &LaunchArgs) -> Vec<ChangedArg> {
        let mut changed = Vec::new();
        let names = self
            .entries
            .iter()
            .map(|(n, _)| n)
            .chain(earlier.entries.iter().map(|(n, _)| n).filter(|n| self.get(n).is_none()));
        for name in names {
            if DRAWN_PER_LAUNCH.contains(&name.as_str()) {
                continue;
            }
            let (before, after) = (earlier.get(name), self.get(name));
            if before != after {
                changed.push(ChangedArg {
                    name: name.clone(),
                    before: before.map(str::to_string),
                    after: after.map(str::to_string),
                });
            }
        }
        changed
    }
}

fn cut(value: &str) -> &str {
    let mut end = value.len().min(MAX_VALUE_BYTES);
    while !value.is_char_boundary(end) {
        end -= 1;
    }
    &value[..end]
}

/// Entries separated by `, `.
fn entries<'a>(
    entry: fn(&'a str) -> IResult<&'a str, (&'a str, &'a str)>,
) -> impl Parser<&'a str, Output = Vec<(&'a str, &'a str)>, Error = nom::error::Error<&'a str>> {
    nom::multi::separated_list0(tag(", "), entry)
}

/// `name=value`.
fn keyword_entry(input: &str) -> IResult<&str, (&str, &str)> {
    (terminated(identifier, char('=')), balanced).parse(input)
}

/// `'name': value`.
fn dict_entry(input: &str) -> IResult<&str, (&str, &str)> {
    let quoted =
        alt((delimited(char('\''), identifier, char('\'')), delimited(char('"'), identifier, char('"'))));
    (terminated(quoted, tag(": ")), balanced).parse(input)
}

fn identifier(input: &str) -> IResult<&str, &str> {
    take_while1(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-')(input)
}

/// A value up to the `, ` or closing bracket that ends it: brackets nest,
/// quoted strings are skipped whole.
fn balanced(input: &str) -> IResult<&str, &str> {
    let bytes = input.as_bytes();
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(_) if b == b'\\' => i += 1,
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None => match b {
                b'\'' | b'"' => quote = Some(b),
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' if depth == 0 => break,
                b')' | b']' | b'}' => depth -= 1,
                b',' if depth == 0 && bytes.get(i + 1) == Some(&b' ') => break,
                _ => {}
            },
        }
        i += 1;
    }
    let i = i.min(bytes.len());
    if i == 0 {
        return Err(nom::Err::Error(nom::error::Error::new(input, nom::error::ErrorKind::TakeWhile1)));
    }
    Ok((&input[i..], &input[..i]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(message: &str) -> LaunchArgs {
        let mut args = LaunchArgs::default();
        assert!(args.read(message), "not read: {message}");
        args
    }

    #[test]
    fn hosts_that_differ_only_in_their_place_run_one_configuration() {
        let first = read("server_args=ServerArgs(model_path='/models/GLM-5', tp_size=16, host='10.0.0.1', port=30000, dist_init_addr='10.0.0.1:5000', nnodes=2, node_rank=0, random_seed=7)");
        let second = read("server_args=ServerArgs(model_path='/models/GLM-5', tp_size=16, host='10.0.0.2', port=30001, dist_init_addr='10.0.0.1:5000', nnodes=2, node_rank=1, random_seed=9)");
        let other = read("server_args=ServerArgs(model_path='/models/GLM-5', tp_size=8, host='10.0.0.3', port=30000, nnodes=1, node_rank=0)");
        assert_eq!(first.configuration(), second.configuration());
        assert_ne!(first.configuration(), other.configuration());
        assert_eq!(first.model(), Some("/models/GLM-5"));
        let vllm = read("non-default args: {'model': 'Qwen/Qwen3-8B', 'host': '0.0.0.0'}");
        assert_eq!(vllm.model(), Some("Qwen/Qwen3-8B"));
        assert_eq!(vllm.configuration().entries, vec![("model".to_string(), "'Qwen/Qwen3-8B'".to_string())]);
    }

    #[test]
    fn sglang_server_args_with_nested_values() {
        let args = read("server_args=ServerArgs(model_path='/models/GLM-5', tp_size=8, cuda_graph_bs=[1, 2, 4], json_model_override_args='{\"a\": 1}', lora_paths=None, chat_template='it\\'s, odd', enable_flashinfer_allreduce_fusion=False)");
        let names: Vec<&str> = args.entries.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "model_path",
                "tp_size",
                "cuda_graph_bs",
                "json_model_override_args",
                "lora_paths",
                "chat_template",
                "enable_flashinfer_allreduce_fusion"
            ]
        );
        assert_eq!(args.get("cuda_graph_bs"), Some("[1, 2, 4]"));
        assert_eq!(args.get("chat_template"), Some("'it\\'s, odd'"));
        assert!(!args.only_non_default);
    }

    #[test]
    fn vllm_non_default_args_and_version() {
        let mut args = read("non-default args: {'model': '/m/Qwen3', 'tensor_parallel_size': 4, 'compilation_config': {'level': 3, 'cudagraph_capture_sizes': [1, 2]}}");
        assert!(args.read("vLLM API server version 0.10.1.1"));
        assert!(args.only_non_default);
        assert_eq!(args.get("compilation_config"), Some("{'level': 3, 'cudagraph_capture_sizes': [1, 2]}"));
        assert_eq!(args.get("version"), Some("0.10.1.1"));
        let old = read("args: Namespace(host=None, port=8000, model='/m/Qwen3', tensor_parallel_size=2)");
        assert_eq!(old.get("tensor_parallel_size"), Some("2"));
    }

    #[test]
    fn changes_name_what_differs_and_skip_the_drawn_seed() {
        let before = read("server_args=ServerArgs(tp_size=8, random_seed=123, enable_flashinfer_allreduce_fusion=False, gone=1)");
        let after = read("server_args=ServerArgs(tp_size=8, random_seed=456, enable_flashinfer_allreduce_fusion=True, new=2)");
        let changes = after.changes_since(&before);
        let shown: Vec<(String, Option<String>, Option<String>)> =
            changes.into_iter().map(|c| (c.name, c.before, c.after)).collect();
        assert_eq!(
            shown,
            [
                ("enable_flashinfer_allreduce_fusion".into(), Some("False".into()), Some("True".into())),
                ("new".into(), None, Some("2".into())),
                ("gone".into(), Some("1".into()), None),
            ]
        );
    }

    #[test]
    fn other_lines_say_nothing() {
        let mut args = LaunchArgs::default();
        assert!(!args.read("server_args is missing"));
        assert!(args.entries.is_empty());
        assert!(!is_args_line("Decode batch. #running-req: 1"));
    }
}
