//! Prometheus' text exposition format (version 0.0.4): families with
//! their `# HELP` and `# TYPE` lines, samples with escaped label values.

use std::fmt::Write;

/// What a metric family measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A value that goes up and down.
    Gauge,
    /// A count that only goes up while the process lives.
    Counter,
}

/// The text of one scrape, written a family at a time.
#[derive(Debug, Default)]
pub(crate) struct Exposition {
    text: String,
}

impl Exposition {
    /// Opens a family: its name, kind and one-line help.
    pub(crate) fn family(&mut self, name: &str, kind: Kind, help: &str) {
        let kind = match kind {
            Kind::Gauge => "gauge",
            Kind::Counter => "counter",
        };
        let _ = writeln!(self.text, "# HELP {name} {}", escape_help(help));
        let _ = writeln!(self.text, "# TYPE {name} {kind}");
    }

    /// A sample of the family opened last.
    pub(crate) fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: f64) {
        self.text.push_str(name);
        if !labels.is_empty() {
            self.text.push('{');
            for (i, (label, value)) in labels.iter().enumerate() {
                if i > 0 {
                    self.text.push(',');
                }
                let _ = write!(self.text, "{label}=\"{}\"", escape_label(value));
            }
            self.text.push('}');
        }
        let _ = writeln!(self.text, " {}", number(value));
    }

    /// The text, ready to serve or to write.
    pub(crate) fn into_text(self) -> String {
        self.text
    }
}

/// A label value with `\`, `"` and newlines escaped, as the format asks.
fn escape_label(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// Help text with `\` and newlines escaped.
fn escape_help(help: &str) -> String {
    help.replace('\\', "\\\\").replace('\n', "\\n")
}

/// A sample value: integers without a fraction, the format's names for
/// the special values.
fn number(value: f64) -> String {
    if value.is_nan() {
        "NaN".to_string()
    } else if value.is_infinite() {
        if value > 0.0 { "+Inf" } else { "-Inf" }.to_string()
    } else {
        format!("{value}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_and_samples_are_written_as_prometheus_reads_them() {
        let mut exposition = Exposition::default();
        exposition.family("logdiag_hung", Kind::Gauge, "Whether the current launch hung.");
        exposition.sample("logdiag_hung", &[("unit", "sglang.service")], 1.0);
        exposition.sample("logdiag_hung", &[("unit", "a \"quoted\\name\"\n")], 0.0);
        exposition.family("logdiag_seen", Kind::Counter, "A line\nand a \\.");
        exposition.sample("logdiag_seen", &[], 2.5);
        assert_eq!(
            exposition.into_text(),
            "# HELP logdiag_hung Whether the current launch hung.\n\
# TYPE logdiag_hung gauge\n\
logdiag_hung{unit=\"sglang.service\"} 1\n\
logdiag_hung{unit=\"a \\\"quoted\\\\name\\\"\\n\"} 0\n\
# HELP logdiag_seen A line\\nand a \\\\.\n\
# TYPE logdiag_seen counter\n\
logdiag_seen 2.5\n"
        );
    }
}
