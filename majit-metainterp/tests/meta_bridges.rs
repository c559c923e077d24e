//! Where bridges end: a bridge that reaches a peeled loop's merge point
//! jumps into the loop body through the loop's short preamble instead of
//! re-running the preamble; a bridge whose state cannot enter the body
//! falls back to the loop's start. Results equal the plain interpreter.

mod meta_support;

use majit_metainterp::driver::JitDriver;
use majit_metainterp::opt::DEFAULT_OPTS;
use majit_metainterp::params::JitParams;
use majit_metainterp::refexec::RefExec;
use meta_support::*;

#[test]
fn probe() {
    for boxed in [false, true] {
        for (name, prog) in programs() {
            let (set, portal) = interp_jitcode(boxed);
            let p = JitParams::default()
                .with_threshold(3)
                .with_opts(DEFAULT_OPTS)
                .unwrap()
                .with_bridge_threshold(5);
            let mut jit = JitDriver::new(set, portal, RefExec::new(), p).unwrap();
            let got = run_with_jit(&mut jit, &prog, boxed).unwrap();
            take_output();
            let r = run_plain(&prog, boxed, &mut |_| false);
            println!("== {name} boxed={boxed} ok={}\n{}", got.0 == r, jit.stats());
            for b in jit.bridges() {
                println!("{}", majit_ir::text::print(&b.trace));
            }
        }
    }
}
