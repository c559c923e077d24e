//! A generator of traces the optimizer has work on: nodes allocated,
//! linked, stored into a stack, read back, passed to calls, compared, kept
//! across guards (virtuals in resume data, pending fields) and across the
//! loop's back edge (virtual state). Every generated trace, optimized with
//! several pass sets, must behave like the original on the reference
//! executor, including at failing guards. `MAJIT_FUZZ_SEED=n` replays one.

mod opt_support;

use majit_ir::fuzzing::SplitMix64;
use majit_metainterp::opt::OptError;
use majit_metainterp::testing::{fuzz_seeds, replaying};
use opt_support::exec::{check_equivalent, exit_index};
use opt_support::{parse, try_optimize_checked};

/// Builds the text of one trace: inputs `p0` (a Stack), `p1` (a Node),
/// `i2`, `i3` (a countdown that ends the loop).
struct Gen {
    rng: SplitMix64,
    lines: Vec<String>,
    ints: Vec<String>,
    nodes: Vec<String>,
    next: usize,
    guards: u32,
}

impl Gen {
    fn name(&mut self, prefix: char) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next + 3)
    }

    fn pick(&mut self, pool: &[String]) -> String {
        pool[self.rng.below(pool.len())].clone()
    }

    fn int(&mut self) -> String {
        if self.rng.chance(25) {
            (self.rng.below(9) as i64 - 2).to_string()
        } else {
            let ints = self.ints.clone();
            self.pick(&ints)
        }
    }

    fn node(&mut self) -> String {
        let nodes = self.nodes.clone();
        self.pick(&nodes)
    }

    fn guard(&mut self) {
        let (a, b) = (self.int(), self.int());
        let c = self.name('i');
        let cmp = *[("int_lt"), ("int_le"), ("int_eq"), ("int_ne")]
            .get(self.rng.below(4))
            .expect("in range");
        self.lines.push(format!("{c} = {cmp}({a}, {b})"));
        let kind = if self.rng.chance(50) {
            "guard_true"
        } else {
            "guard_false"
        };
        let mut live = vec!["p0".to_string()];
        for _ in 0..3 {
            live.push(if self.rng.chance(50) {
                self.node()
            } else {
                self.int()
            });
        }
        live.retain(|v| !v.starts_with(|c: char| c == '-' || c.is_ascii_digit()));
        self.guards += 1;
        self.lines.push(format!(
            "{kind}({c}, descr=g{}) [{}]",
            self.guards,
            live.join(", ")
        ));
    }

    fn step(&mut self) {
        match self.rng.below(11) {
            0 | 1 => {
                let p = self.name('p');
                let (v, n) = (self.int(), self.node());
                self.lines.push(format!("{p} = new(descr=Node)"));
                self.lines
                    .push(format!("setfield_gc({p}, {v}, descr=Node.value)"));
                self.lines
                    .push(format!("setfield_gc({p}, {n}, descr=Node.next)"));
                self.nodes.push(p);
            }
            2 => {
                let (n, v) = (self.node(), self.int());
                self.lines
                    .push(format!("setfield_gc({n}, {v}, descr=Node.value)"));
            }
            3 => {
                let (n, m) = (self.node(), self.node());
                self.lines
                    .push(format!("setfield_gc({n}, {m}, descr=Node.next)"));
            }
            4 => {
                let (n, i) = (self.node(), self.name('i'));
                self.lines
                    .push(format!("{i} = getfield_gc_i({n}, descr=Node.value)"));
                self.ints.push(i);
            }
            5 => {
                let n = self.node();
                self.lines
                    .push(format!("setfield_gc(p0, {n}, descr=Stack.head)"));
            }
            6 => {
                let p = self.name('p');
                self.lines
                    .push(format!("{p} = getfield_gc_r(p0, descr=Stack.head)"));
                self.nodes.push(p);
            }
            7 => {
                let (a, b, i) = (self.int(), self.int(), self.name('i'));
                let op = ["int_add", "int_sub", "int_mul"][self.rng.below(3)];
                self.lines.push(format!("{i} = {op}({a}, {b})"));
                self.ints.push(i);
            }
            8 if self.rng.chance(40) => {
                let (n, p) = (self.node(), self.name('p'));
                self.lines
                    .push(format!("{p} = call_r(@id_ref, {n}, descr=Call.r_r)"));
                self.nodes.push(p);
            }
            9 => {
                let (a, b, i) = (self.node(), self.node(), self.name('i'));
                self.lines.push(format!("{i} = ptr_eq({a}, {b})"));
                self.ints.push(i);
            }
            _ => self.guard(),
        }
    }
}

/// The text of trace `seed`: a loop (`label` ... `jump`) or straight code
/// ending in `finish`.
fn generate(seed: u64) -> String {
    let mut g = Gen {
        rng: SplitMix64::new(seed),
        lines: Vec::new(),
        ints: vec!["i2".into(), "i3".into()],
        nodes: vec!["p1".into()],
        next: 0,
        guards: 0,
    };
    let looped = g.rng.chance(60);
    let mut text = String::from("[p0, p1, i2, i3]\n");
    if looped {
        text += "label(p0, p1, i2, i3, descr=Loop)\n";
    }
    g.lines
        .push("i4 = getfield_gc_i(p0, descr=Stack.len)".into());
    g.next = 1;
    for _ in 0..g.rng.below(14) + 4 {
        g.step();
    }
    if looped {
        let c = g.name('i');
        let t = g.name('i');
        g.lines.push(format!("{c} = int_sub(i3, 1)"));
        g.lines.push(format!("{t} = int_gt({c}, -3)"));
        g.guards += 1;
        let (n, v) = (g.node(), g.int());
        g.lines.push(format!(
            "guard_true({t}, descr=g{}) [p0, {n}, {v}]",
            g.guards
        ));
        g.lines.push(format!("jump(p0, {n}, {v}, {c}, descr=Loop)"));
    } else {
        let (n, v) = (g.node(), g.int());
        g.lines.push(format!("finish({n}, {v})"));
    }
    text + &g.lines.join("\n")
}

#[test]
fn optimizable_random_traces_behave_like_the_original() {
    let (mut exits, mut pending, mut virtuals) = (0, 0, 0);
    for seed in fuzz_seeds(0..120) {
        let text = generate(seed);
        let t = parse(&text);
        for opts in [
            "virtualize",
            "virtualize:heap",
            "intbounds:rewrite:virtualize:heap:pure",
            majit_metainterp::opt::DEFAULT_OPTS,
        ] {
            let run = std::panic::catch_unwind(|| match try_optimize_checked(opts, &t) {
                Ok(out) => {
                    let rds = out.resume.values();
                    let p: usize = rds.clone().map(|rd| rd.pending.len()).sum();
                    let v: usize = rds.map(|rd| rd.virtuals.len()).sum();
                    (check_equivalent(&t, &out, 4), p, v)
                }
                Err(OptError::Invalid { op_index, .. }) => {
                    for run in 0..4 {
                        if let Some(exit) = exit_index(&t, run) {
                            assert!(exit <= op_index, "exit at {exit}, invalid at {op_index}");
                        }
                    }
                    (0, 0, 0)
                }
                Err(e) => panic!("{e}"),
            });
            match run {
                Ok((e, p, v)) => {
                    exits += e;
                    pending += p;
                    virtuals += v;
                }
                Err(e) => {
                    eprintln!("seed {seed} ({opts}) failed on:\n{text}");
                    std::panic::resume_unwind(e);
                }
            }
        }
    }
    eprintln!("{exits} guard exits, {pending} pending fields, {virtuals} virtuals in resume data");
    if replaying() {
        return;
    }
    assert!(exits > 100, "only {exits} guard exits exercised");
    assert!(
        pending > 20 && virtuals > 100,
        "{pending} pending, {virtuals} virtuals"
    );
}
