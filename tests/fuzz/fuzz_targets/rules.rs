//! Any text as a user's rule file: loading reports errors or gives rules,
//! never panics, and the rules it gives can match real lines.

#![no_main]

use libfuzzer_sys::fuzz_target;
use logdiag::engine::{Engine, JudgeOptions};
use logdiag::diagnose::feed_source;
use logdiag::rules::load::load_texts;

const LOG: &str = "May 25 20:27:22 gpu01 python[71283]: [2026-05-25 20:27:22 TP2] Scheduler hit an exception: Traceback (most recent call last):
May 25 20:27:22 gpu01 python[71283]:   File \"/v/site-packages/flashinfer/jit/core.py\", line 96, in check_cuda_arch
May 25 20:27:22 gpu01 python[71283]:     raise RuntimeError(
May 25 20:27:22 gpu01 python[71283]: RuntimeError: FlashInfer requires GPUs with sm75 or higher
May 25 20:27:22 gpu01 python[71283]: [2026-05-25 20:27:22] Received sigquit from a child process. It usually means the child failed.
May 25 20:27:23 gpu01 systemd[1]: sglang.service: Main process exited, code=killed, status=9/KILL
";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match load_texts(&[("site/fuzzed.toml", text)]) {
        Ok(rules) => {
            let mut engine = Engine::new(&rules);
            let _ = feed_source(&mut engine, "input.log", LOG.as_bytes());
            let _ = engine.diagnose(&JudgeOptions::default());
        }
        Err(errors) => {
            for error in errors {
                let shown = error.to_string();
                assert!(shown.starts_with("site/fuzzed.toml"), "{shown}");
            }
        }
    }
});
