//! Application headers: the first thing a program's logger prints.
//!
//! - sglang (its `configure_logger`): `[2025-12-11 03:56:16[.123] DP2 TP2 EP2] `,
//!   `[20:27:22 TP0] `, `[12-16 14:27:08] `, old `[gpu_id=0] `; rank tags
//!   in any order, or none;
//! - vLLM: `ERROR 05-25 20:27:22 [core.py:1161] ` and the older
//!   `ERROR 11-15 01:06:40 worker_base.py:464] `;
//! - torch c10: `[E210 02:06:33.321131395 ProcessGroupNCCL.cpp:616] `,
//!   `[E ProcessGroupNCCL.cpp:458] `;
//! - glog and Kubernetes' klog (Triton, TensorFlow, XLA, Go components):
//!   `E1103 02:59:01.152656 81041 backend_model.cc:553] `, the thread id
//!   padded with spaces;
//! - Ray core (`logging.cc`): `[2024-02-27 16:09:19,106 E 19394 19394] `;
//! - Rust `tracing` (TGI): ` INFO text_generation_launcher: `;
//! - llama.cpp's logger with time stamps, `0.00.025.467 I `, and
//!   llama-box's `[2025-05-29 12:00:35.235796] E `;
//! - uvicorn's level prefix `INFO:     `, alone or after an sglang header;
//! - Python logging's default format (`basicConfig()`):
//!   `WARNING:xformers:`, `INFO:root:`;
//! - loguru's default format (Open WebUI, many Python servers):
//!   `2025-06-02 19:01:50.302 | ERROR    | module:function:870 - `.
//! - Python logging's cookbook format, `%(asctime)s - %(name)s -
//!   %(levelname)s - %(message)s` (with or without the name):
//!   `2025-08-12 19:40:24,526 - app - ERROR - `;
//! - InvokeAI's Python logging format, `[%(asctime)s]::[%(name)s]::%(levelname)s
//!   --> %(message)s`: `[2025-06-16 11:36:11,273]::[InvokeAI]::ERROR --> `;
//! - DeepSpeed's logger: `[2023-04-07 13:09:33,220] [ERROR]
//!   [launch.py:324:sigkill_handler] ` (time, level, file, line and
//!   function, each in brackets);
//! - gunicorn's: `[2025-12-06 10:47:28 +0000] [9] [ERROR] ` (time with
//!   its zone, pid, level);
//! - rich's console handler (`RichHandler`, immich and other Python
//!   servers): `[12/06/25 10:47:23] ERROR    ` (the locale's date and
//!   time, the level padded to eight);
//! - TensorRT-LLM: its Python logger's `[06/21/2025-01:30:42] [TRT-LLM]
//!   [RANK 0] [E] ` and its C++ logger's `[TensorRT-LLM][ERROR] `;
//! - Go loggers' logfmt and logrus formats ([`super::go_log`]).
//!
//! [`HEADERS`] lists them, each with its parser (in [`servers`],
//! [`native`], [`python`] and [`super::go_log`]); [`levels`] reads the
//! level prefixes that may follow one, and a level where none was found.

mod levels;
mod native;
mod python;
mod servers;

use super::{Format, FormatSet, Record};

/// Reads one header format at a position of a line: where its message
/// starts, having set the record's fields the header holds.
type Parser = for<'a> fn(&'a str, usize, &mut Record<'a>) -> Option<usize>;

/// An application header format: whose it is, what its parser records,
/// and a line that opens with it. (The tests read the fields that parsing
/// does not.)
#[cfg_attr(not(test), allow(dead_code))]
struct Header {
    /// Whose logger prints it (unique in [`HEADERS`]).
    name: &'static str,
    /// The formats its parser records (llama.cpp's logger has none of its
    /// own).
    formats: FormatSet,
    /// Its parser.
    parse: Parser,
    /// Whether it starts a record in the middle of a line, after a
    /// progress bar or a carriage return ([`starts_record`]).
    starts_mid_line: bool,
    /// A line that opens with it, as a log shows it.
    example: &'static str,
}

/// The application headers, tried in this order at the position where the
/// outer layers (transport, wrappers, process tags) end. Every entry keeps
/// these invariants:
///
/// - **Order is precedence.** The first entry whose parser reads a header
///   wins; the entries after it are not tried. A new entry goes after
///   those whose lines it could also read, unless it reads them better,
///   and its example must still be read by it first.
/// - **A parser that reads no header leaves the record as it was**: it
///   writes to the record only once it has read the whole header. The
///   next entry, and [`starts_record`]'s scratch record, rely on it.
/// - **A parser that reads a header** returns where the message starts
///   (past the space that ends the header), records the one of its
///   `formats` it read (llama.cpp's records none), and sets the fields
///   the header holds: its level, origin and ranks, and its time only if
///   no outer layer set one (`get_or_insert`: a journal's or container's
///   stamp stays the record's time). A parser reads the record only for
///   what the outer layers found (`rust_tracing` wants a container's
///   stamp before it).
/// - **`starts_mid_line`** is kept for headers that ordinary text does not
///   hold (a stamp in brackets, a level and a date, a source place), as a
///   line is split where one is found.
/// - **`example`** is a line that opens with the header, with whatever
///   outer layers it needs; the tests frame it, and the entry must be the
///   first to read it and record one of its `formats`.
const HEADERS: &[Header] = &[
    Header {
        name: "sglang",
        formats: FormatSet::of_all(&[Format::Sglang]),
        parse: servers::sglang,
        starts_mid_line: true,
        example: "[2026-05-25 08:00:00 DP0 TP3] Load weight begin.",
    },
    Header {
        name: "vllm",
        formats: FormatSet::of_all(&[Format::Vllm]),
        parse: servers::vllm,
        starts_mid_line: true,
        example: "ERROR 05-25 20:27:22 [core.py:1161] EngineCore failed to start.",
    },
    Header {
        name: "torch c10",
        formats: FormatSet::of_all(&[Format::TorchC10]),
        parse: native::c10,
        starts_mid_line: true,
        example: "[E210 02:06:33.321131395 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout",
    },
    Header {
        name: "glog",
        formats: FormatSet::of_all(&[Format::Glog]),
        parse: native::glog,
        starts_mid_line: true,
        example: "E1103 02:59:01.152656 81041 backend_model.cc:553] failed to load model",
    },
    Header {
        name: "ray core",
        formats: FormatSet::of_all(&[Format::RayCore]),
        parse: native::ray_core,
        starts_mid_line: false,
        example: "[2024-02-27 16:09:19,106 E 19394 19394] core_worker.cc:4423: Unhandled exception",
    },
    Header {
        name: "rust tracing",
        formats: FormatSet::of_all(&[Format::RustTracing]),
        parse: native::rust_tracing,
        starts_mid_line: false,
        example: "2024-05-02T10:00:00.123456Z  ERROR text_generation_launcher: Shard 0 failed to start",
    },
    Header {
        name: "llama.cpp",
        formats: FormatSet::of_all(&[]),
        parse: native::llama_cpp,
        starts_mid_line: false,
        example: "0.00.025.467 E llama_model_load: error loading model",
    },
    Header {
        name: "loguru",
        formats: FormatSet::of_all(&[Format::Loguru, Format::PythonLogging]),
        parse: python::loguru,
        starts_mid_line: false,
        example: "2025-06-02 19:01:50.302 | ERROR    | open_webui.main:lifespan:870 - startup failed",
    },
    Header {
        name: "tensorrt-llm",
        formats: FormatSet::of_all(&[Format::TensorrtLlm]),
        parse: servers::tensorrt_llm,
        starts_mid_line: false,
        example: "[06/21/2025-01:30:42] [TRT-LLM] [RANK 0] [E] Executor failed",
    },
    Header {
        name: "python dashed",
        formats: FormatSet::of_all(&[Format::PythonLogging]),
        parse: python::python_dashed,
        starts_mid_line: false,
        example: "2025-08-12 19:40:24,526 - app - ERROR - request failed",
    },
    Header {
        name: "python bracketed",
        formats: FormatSet::of_all(&[Format::PythonLogging]),
        parse: python::python_bracketed,
        starts_mid_line: false,
        example: "[2025-06-16 11:36:11,273]::[InvokeAI]::ERROR --> model failed",
    },
    Header {
        name: "deepspeed",
        formats: FormatSet::of_all(&[Format::Deepspeed]),
        parse: python::deepspeed,
        starts_mid_line: false,
        example: "[2023-04-07 13:09:33,220] [ERROR] [launch.py:324:sigkill_handler] killed",
    },
    Header {
        name: "gunicorn",
        formats: FormatSet::of_all(&[Format::PythonLogging]),
        parse: python::gunicorn,
        starts_mid_line: false,
        example: "[2025-12-06 10:47:28 +0000] [9] [ERROR] Worker (pid:12) was sent SIGKILL!",
    },
    Header {
        name: "rich console",
        formats: FormatSet::of_all(&[Format::PythonLogging]),
        parse: python::rich_console,
        starts_mid_line: false,
        example: "[12/06/25 10:47:23] ERROR    Failed to load model",
    },
    Header {
        name: "logfmt",
        formats: FormatSet::of_all(&[Format::Logfmt]),
        parse: super::go_log::logfmt,
        starts_mid_line: false,
        example: r#"time="2023-01-05T16:23:09Z" level=fatal msg="Failed to watch metrics""#,
    },
    Header {
        name: "logrus terminal",
        formats: FormatSet::of_all(&[Format::Logrus]),
        parse: super::go_log::logrus_terminal,
        starts_mid_line: false,
        example: "ERRO[0000] failed to start the server",
    },
];

/// Parses an application header at `pos`; returns the message position.
pub(super) fn parse<'a>(line: &'a str, pos: usize, record: &mut Record<'a>) -> usize {
    let header_end = HEADERS.iter().find_map(|header| (header.parse)(line, pos, record));
    let pos = match header_end {
        Some(end) => {
            record.app_header = true;
            levels::padded_name_level(line, end, record).unwrap_or(end)
        }
        None => pos,
    };
    if let Some(end) =
        levels::uvicorn_level(line, pos, record).or_else(|| levels::python_logging(line, pos, record))
    {
        return end;
    }
    if record.level.is_none() {
        record.level = levels::leading_level_word(&line[pos..]).or_else(|| levels::json_level(&line[pos..]));
    }
    pos
}

/// True if an application header that starts a new record begins at `pos`
/// (used to split a line after a progress bar).
pub(super) fn starts_record(line: &str, pos: usize) -> bool {
    let mut scratch = Record::default();
    HEADERS
        .iter()
        .filter(|header| header.starts_mid_line)
        .any(|header| (header.parse)(line, pos, &mut scratch).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::{frame_line, transport, wrapper};

    /// The record of `line`'s outer layers, and where they end.
    fn outer_layers(line: &str) -> (usize, Record<'_>) {
        let mut record = Record::default();
        let pos = transport::parse(line, 0, &mut record);
        let pos = wrapper::parse_wrappers(line, pos, &mut record);
        let pos = wrapper::parse_process_tags(line, pos, &mut record);
        (pos, record)
    }

    #[test]
    fn every_header_reads_its_example_first_and_names_its_format() {
        for header in HEADERS {
            let line = header.example;
            let (pos, outer) = outer_layers(line);
            let first = HEADERS.iter().position(|h| (h.parse)(line, pos, &mut outer.clone()).is_some());
            assert_eq!(first.map(|i| HEADERS[i].name), Some(header.name), "{line}");
            let mut record = outer.clone();
            let end = (header.parse)(line, pos, &mut record).expect("read");
            assert!(end > pos && end <= line.len(), "{line}");
            let added: Vec<Format> = record.formats.iter().filter(|f| !outer.formats.contains(*f)).collect();
            assert!(added.iter().all(|f| header.formats.contains(*f)), "{}: records {added:?}", header.name);
            assert_eq!(added.is_empty(), header.formats.is_empty(), "{}: records no format", header.name);
            assert!(frame_line(line).first.app_header, "{line}");
            if header.starts_mid_line {
                assert!(starts_record(line, 0), "{line}");
            }
        }
    }

    #[test]
    fn header_names_are_unique() {
        for (index, header) in HEADERS.iter().enumerate() {
            assert!(HEADERS[..index].iter().all(|h| h.name != header.name), "{}", header.name);
        }
    }
}
