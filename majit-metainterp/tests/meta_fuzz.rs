//! Random register-machine programs (seeded): the JIT must match the plain
//! interpreter at low thresholds, with and without the optimizer, with
//! bridges early or never, and with tiny trace limits. `MAJIT_FUZZ_SEED`
//! replays one seed.

mod meta_support;

use majit_ir::Value;
use majit_metainterp::driver::{JitAction, JitDriver, JitState};
use majit_metainterp::params::JitParams;
use majit_metainterp::refexec::RefExec;
use majit_metainterp::testing::fuzz_seeds;
use meta_support::*;

/// xorshift64*: a tiny seeded generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> i64 {
        (self.next() % n) as i64
    }
}

/// One to three counted loops with random bodies; bodies never touch the
/// counter except the final `DECC`, so every program terminates.
fn random_program(rng: &mut Rng) -> Vec<(i64, i64)> {
    let mut code = vec![(LOADA, rng.below(100) - 50)];
    for _ in 0..1 + rng.below(3) {
        code.push((LOADC, 1 + rng.below(80)));
        let start = code.len() as i64;
        for _ in 0..1 + rng.below(6) {
            let op = match rng.below(8) {
                0 => (LOADA, rng.below(1000) - 500),
                1 => (ADDA, rng.below(20) - 10),
                2 => (ADDC, 0),
                3 => (MULA, rng.below(7) - 3),
                4 => (ODD, rng.below(9)),
                5 => (MIX, 0),
                6 => (PROMOTE, 0),
                _ => (PRINT, 0),
            };
            code.push(op);
        }
        code.push((DECC, 0));
        code.push((JNZ, start));
        code.push((PRINT, 0));
    }
    code.push((HALT, 0));
    code
}

/// The register machine's state as a [`JitState`].
struct Machine<'a> {
    st: &'a mut State,
    prog: i64,
}

impl JitState for Machine<'_> {
    fn greens(&self) -> Vec<Value> {
        vec![Value::Int(self.st.pc), Value::Int(self.prog)]
    }
    fn reds(&self) -> Vec<Value> {
        vec![self.st.acc, Value::Int(self.st.cnt)]
    }
    fn restore(&mut self, greens: &[Value], reds: &[Value]) {
        self.st.pc = greens[0].as_int().unwrap();
        self.st.acc = reds[0];
        self.st.cnt = reds[1].as_int().unwrap();
    }
}

fn run(prog: &Program, boxed: bool, params: JitParams) -> (i64, Vec<i64>) {
    let (set, portal) = interp_jitcode(boxed);
    let jit = JitDriver::new(set, portal, RefExec::new(), params).unwrap();
    take_output();
    let r = run_plain(prog, boxed, &mut |st| {
        let mut m = Machine {
            st,
            prog: prog.addr(),
        };
        match jit.back_edge(&mut m).unwrap() {
            JitAction::Raised(e) => panic!("raised {e:?}"),
            JitAction::Finished(v) => {
                m.st.acc = v.unwrap();
                true
            }
            _ => false,
        }
    });
    (r, take_output())
}

#[test]
fn random_programs_match_the_plain_interpreter() {
    for seed in fuzz_seeds(1..41) {
        let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        let code = random_program(&mut rng);
        let prog = Program::new(&code);
        for boxed in [false, true] {
            take_output();
            let expected = (run_plain(&prog, boxed, &mut |_| false), take_output());
            for opts in ["", majit_metainterp::opt::DEFAULT_OPTS] {
                for (threshold, bridge, limit) in
                    [(1, 0, 6000), (2, 3, 6000), (1, 1000, 6000), (1, 0, 9)]
                {
                    let p = JitParams::default()
                        .with_threshold(threshold)
                        .with_bridge_threshold(bridge)
                        .with_trace_limit(limit)
                        .with_opts(opts)
                        .unwrap();
                    let got = run(&prog, boxed, p);
                    assert_eq!(
                        got, expected,
                        "seed {seed} boxed={boxed} opts={opts:?} threshold={threshold} \
                         bridge={bridge} limit={limit}\nprogram {code:?}"
                    );
                }
            }
        }
    }
}
