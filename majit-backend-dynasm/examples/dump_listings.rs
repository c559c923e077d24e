//! Compiles every trace of the backend's test suite on the host
//! architecture and prints each listing with its addresses masked (as
//! `MAJIT_LOG` prints them), for comparing the generated code of two
//! versions of the backend:
//!
//! ```text
//! cargo run -p majit-backend-dynasm --example dump_listings > before.txt
//! ```
//!
//! The traces: the suite files (`tests/suite/*.trace`), the bridge
//! scenario's loop and bridges, and the deterministic-bytes tests' random
//! traces without and with a GC (seeds `0..SEEDS`).

#[path = "../tests/support/mod.rs"]
mod support;

use majit_backend_dynasm::HostBackend;
use majit_ir::fuzzing::{random_trace, Knobs};
use majit_ir::{parse_with, Trace};
use majit_metainterp::log::AddressNames;
use majit_metainterp::testing::{bind_calls, RefArgs};
use majit_metainterp::{Backend, CodeId, ExitId};
use std::fmt::Write;
use support::{gc_rewrite, namespace, stress_heap, Buffer};

/// Random traces per configuration.
const SEEDS: u64 = 300;

/// The listing of `code` with `trace`'s addresses, `@buf` (and places in
/// it) and the
/// backend's own addresses named.
fn listing(b: &HostBackend, code: CodeId, trace: &Trace, buf: &Buffer) -> String {
    let mut names = AddressNames::new();
    names.learn_trace(trace);
    let buf_addr = buf.addr() as u64;
    let name = |v: u64| {
        match v.checked_sub(buf_addr) {
            Some(0) => return Some("buf".to_string()),
            Some(off) if off < 512 => return Some(format!("buf+{off:#x}")),
            _ => {}
        }
        names.name(v)
    };
    let Some(mc) = b.machine_code(code, &name) else {
        return "no machine code\n".into();
    };
    let mut out = format!("{} bytes, {} pool words\n", mc.code.len(), mc.pool.len());
    for i in &mc.listing {
        let _ = writeln!(out, "  {:#06x}  {}  {}", i.offset, i.hex, i.text);
    }
    for (k, p) in mc.pool.iter().enumerate() {
        let _ = writeln!(out, "  pool[{k}] {}", p.meaning);
    }
    out
}

/// `title` and the listing of `trace` compiled as a loop on `b`.
fn dump_loop(b: &mut HostBackend, title: &str, trace: &Trace, buf: &Buffer) -> Option<CodeId> {
    println!("=== {title}");
    match b.compile_loop(trace) {
        Ok(code) => {
            print!("{}", listing(b, code, trace, buf));
            Some(code)
        }
        Err(e) => {
            println!("error: {e}");
            None
        }
    }
}

fn suite_files(buf: &Buffer) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/suite");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("suite directory")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "trace"))
        .collect();
    files.sort();
    let ns = namespace(buf);
    for path in files {
        let text = std::fs::read_to_string(&path).expect("read suite file");
        let body: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim_start().starts_with(';'))
            .collect();
        let trace = parse_with(&body.join("\n"), &ns).expect("suite trace parses");
        let mut b = HostBackend::new().expect("backend");
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        dump_loop(&mut b, &name, &trace, buf);
    }
}

fn bridges(buf: &Buffer) {
    let mut b = HostBackend::new().expect("backend");
    let lp = support::parse_text(support::BRIDGE_LOOP, buf);
    let code = dump_loop(&mut b, "BRIDGE_LOOP", &lp, buf).expect("loop compiles");
    for (title, text) in [
        ("BRIDGE_BACK", support::BRIDGE_BACK),
        ("HEAVY_BRIDGE", support::HEAVY_BRIDGE),
    ] {
        let bridge = support::parse_text(text, buf);
        println!("=== {title}");
        let guard = ExitId { code, op_index: 3 };
        match b.compile_bridge(guard, &bridge) {
            Ok(c) => print!("{}", listing(&b, c, &bridge, buf)),
            Err(e) => println!("error: {e}"),
        }
    }
}

fn random(buf: &Buffer, gc: bool) {
    for seed in 0..SEEDS {
        let knobs = Knobs {
            memory: gc,
            lowered: false,
            loops: seed % 2 == 0,
            ..Knobs::default()
        };
        let mut trace = random_trace(seed, &knobs);
        bind_calls(&mut trace, RefArgs::Addresses);
        let title = format!("random seed {seed}{}", if gc { " gc" } else { "" });
        if gc {
            let heap = stress_heap();
            let info = heap.borrow().jit_info();
            let lowered = gc_rewrite(&trace, &info);
            let mut b = HostBackend::with_gc(info).expect("backend");
            dump_loop(&mut b, &title, &lowered, buf);
        } else {
            let mut b = HostBackend::new().expect("backend");
            dump_loop(&mut b, &title, &trace, buf);
        }
    }
}

fn main() {
    let buf = Buffer::new();
    suite_files(&buf);
    bridges(&buf);
    random(&buf, false);
    random(&buf, true);
}
