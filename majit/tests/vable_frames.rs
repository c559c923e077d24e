//! Virtualizable frames at the jitcode level: a stack VM whose frame is a
//! GC struct (`pc`, `sp`, and `stack`, a GC array of ints) run plain and
//! with the JIT on RefExec and the native backend, with and without a
//! stress-mode heap (every allocation of the tracer and the blackhole
//! collects and moves the frame). The optimized loop touches the frame
//! through no load or store; a guard failing mid-iteration hands the
//! blackhole the frame the plain run has (the `OBSERVE` output, taken in
//! the blackhole, proves it); a "may force" residual call in the loop sees
//! and changes the current frame.

use majit::gc::testing::stress_config;
use majit::gc::{ArrayLayout, Gc, GcConfig, Layout, TypeId};
use majit::ir::{
    ArrayDescr, CallDescr, CallEffect, Descr, EffectInfo, FieldDescr, Kind, OpCode, ResultKind,
    Value,
};
use majit::metainterp::driver::{JitAction, JitDriver};
use majit::metainterp::jitcode::{Arg, FuncId, JitCodeBuilder, JitCodeSet};
use majit::metainterp::vable::VirtualizableInfo;
use majit::{GcBackend, HostBackend, JitParams, RefExec};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

const HALT: i64 = 0;
/// Push the argument.
const PUSH: i64 = 1;
/// Push `stack[arg]`.
const LOAD: i64 = 2;
/// Pop into `stack[arg]`.
const STORE: i64 = 3;
const ADD: i64 = 4;
const SUB: i64 = 5;
/// `top %= arg`.
const MODK: i64 = 6;
/// Pop; jump forward to the argument when not zero.
const JNZF: i64 = 7;
/// Pop; jump back to the argument when not zero (a back edge).
const JNZ: i64 = 8;
/// The residual call [`observe`] (may look at the frame).
const OBSERVE: i64 = 9;
/// `top += 1` through a fresh one-item array.
const TMP: i64 = 10;

/// Frame layout: header, `pc`, `sp`, `stack`.
const PC: usize = 8;
const SP: usize = 16;
const STACK: usize = 24;
const STACK_LEN: usize = 8;

fn field(name: &str, offset: usize, kind: Kind) -> Arc<FieldDescr> {
    Arc::new(FieldDescr {
        name: format!("Frame.{name}"),
        owner: "Frame".into(),
        offset: offset as u32,
        size: 8,
        signed: true,
        kind,
        immutable: false,
        quasi_immutable: false,
    })
}

/// A heap with the frame's and the stack's types registered.
struct Heap {
    gc: Rc<RefCell<Gc>>,
    frame_ty: u32,
    stack: Arc<ArrayDescr>,
}

impl Heap {
    fn new(stress: bool) -> Heap {
        let config = if stress {
            stress_config()
        } else {
            GcConfig::default()
        };
        let mut gc = Gc::new(config).unwrap();
        let frame_ty = gc
            .register_layout(Layout::headered("Frame", 32, &[STACK as u32]))
            .unwrap();
        let stack_ty = gc
            .register_array(ArrayLayout {
                name: "Stack".into(),
                item_size: 8,
                items_are_refs: false,
            })
            .unwrap();
        let stack = Arc::new(ArrayDescr {
            name: "Stack".into(),
            base_offset: 16,
            len_offset: 8,
            item_size: 8,
            signed: true,
            kind: Kind::Int,
            type_id: stack_ty.0,
        });
        Heap {
            gc: Rc::new(RefCell::new(gc)),
            frame_ty: frame_ty.0,
            stack,
        }
    }

    /// A fresh frame at pc 0 with an empty stack of `len` items.
    fn new_frame(&self, len: usize) -> usize {
        let mut gc = self.gc.borrow_mut();
        let stack = gc.alloc_array(TypeId(self.stack.type_id), len).unwrap();
        let frame = gc.alloc_uncollected(TypeId(self.frame_ty)).unwrap();
        gc.write_ref(frame, STACK as u32, stack);
        frame.addr()
    }

    fn info(&self) -> VirtualizableInfo {
        VirtualizableInfo::new(0)
            .with_fields(vec![field("pc", PC, Kind::Int), field("sp", SP, Kind::Int)])
            .with_array(field("stack", STACK, Kind::Ref), self.stack.clone())
    }
}

fn word(addr: usize) -> i64 {
    // SAFETY: callers pass a field or item address of a live frame or
    // stack (the interpreter's frame, read between collections).
    unsafe { *(addr as *const i64) }
}

fn set_word(addr: usize, v: i64) {
    // SAFETY: as in `word`; int stores need no write barrier.
    unsafe { *(addr as *mut i64) = v }
}

fn item_addr(frame: usize, i: i64) -> usize {
    let stack = word(frame + STACK) as usize;
    assert!((0..word(stack + 8)).contains(&i), "stack index {i}");
    stack + 16 + 8 * i as usize
}

thread_local! {
    static OUTPUT: RefCell<Vec<i64>> = const { RefCell::new(Vec::new()) };
}

/// The residual call that looks at the frame: records its pc, sp and
/// items, then adds 1 to the top item.
extern "C" fn observe(frame: usize) {
    let sp = word(frame + SP);
    let mut digest = word(frame + PC) * 1_000_003 + sp;
    for i in 0..sp {
        digest = digest
            .wrapping_mul(31)
            .wrapping_add(word(item_addr(frame, i)));
    }
    OUTPUT.with(|o| o.borrow_mut().push(digest));
    let top = item_addr(frame, sp - 1);
    set_word(top, word(top) + 1);
}

/// `acc = 0; n = N; loop { acc += n + 1 (through TMP); if n % 7 == 0 {
/// OBSERVE; acc += 1000 }; [OBSERVE in the loop]; n -= 1 } while n != 0;
/// return acc`, with `acc` and `n` in stack slots 0 and 1.
fn program(n: i64, observe_in_loop: bool) -> Vec<[i64; 2]> {
    let mut p = vec![
        [PUSH, 0],
        [PUSH, n],
        [LOAD, 0], // 2: loop head
        [LOAD, 1],
        [ADD, 0],
        [TMP, 0],
        [STORE, 0],
        [LOAD, 1],
        [MODK, 7],
        [JNZF, 15],
        [LOAD, 0], // 10: every 7th iteration
        [OBSERVE, 0],
        [PUSH, 1000],
        [ADD, 0],
        [STORE, 0],
        [LOAD, 1], // 15
        [PUSH, 1],
        [SUB, 0],
        [STORE, 1],
        [LOAD, 1],
        [JNZ, 2],
        [LOAD, 0],
        [HALT, 0],
    ];
    if observe_in_loop {
        // Before `n -= 1`: observe (and bump) a copy of `n`, then drop it.
        let at = 15;
        p.splice(at..at, [[LOAD, 1], [OBSERVE, 0], [STORE, 2]]);
        for ins in &mut p {
            if ins[0] == JNZF {
                ins[1] = at as i64;
            }
        }
    }
    p
}

/// Elidable: the opcode at `pc` of the program at `prog`.
extern "C" fn op_at(prog: i64, pc: i64) -> i64 {
    // SAFETY: `prog` is the address of a live program and `pc` is in range.
    unsafe { *(prog as *const i64).add(2 * pc as usize) }
}

/// Elidable: the argument at `pc` of the program at `prog`.
extern "C" fn arg_at(prog: i64, pc: i64) -> i64 {
    // SAFETY: as in `op_at`.
    unsafe { *(prog as *const i64).add(2 * pc as usize + 1) }
}

fn call_descr(name: &str, args: &[Kind], effect: EffectInfo, result: ResultKind) -> Descr {
    CallDescr {
        name: name.into(),
        args: args.to_vec(),
        result,
        effect,
    }
    .into()
}

/// The plain interpreter; `back_edge` is called at every taken `JNZ`
/// with the frame (its pc already the target) and returns the frame to
/// go on with, or the program's result when it finished in the JIT.
fn interpret(
    prog: &[[i64; 2]],
    mut frame: usize,
    back_edge: &mut dyn FnMut(usize) -> Result<usize, i64>,
) -> i64 {
    let item = |frame: usize, i: i64| word(item_addr(frame, i));
    let set_item = |frame: usize, i: i64, v: i64| set_word(item_addr(frame, i), v);
    loop {
        let pc = word(frame + PC);
        let [op, arg] = prog[pc as usize];
        set_word(frame + PC, pc + 1);
        let sp = word(frame + SP);
        let sp = match op {
            HALT => return item(frame, sp - 1),
            PUSH => {
                set_item(frame, sp, arg);
                sp + 1
            }
            LOAD => {
                set_item(frame, sp, item(frame, arg));
                sp + 1
            }
            STORE => {
                set_item(frame, arg, item(frame, sp - 1));
                sp - 1
            }
            ADD | SUB => {
                let (a, b) = (item(frame, sp - 2), item(frame, sp - 1));
                let v = if op == ADD { a + b } else { a - b };
                set_item(frame, sp - 2, v);
                sp - 1
            }
            MODK => {
                set_item(frame, sp - 1, item(frame, sp - 1) % arg);
                sp
            }
            TMP => {
                set_item(frame, sp - 1, item(frame, sp - 1) + 1);
                sp
            }
            OBSERVE => {
                observe(frame);
                sp
            }
            JNZF | JNZ => {
                set_word(frame + SP, sp - 1);
                if item(frame, sp - 1) != 0 {
                    set_word(frame + PC, arg);
                    if op == JNZ {
                        match back_edge(frame) {
                            Ok(f) => frame = f,
                            Err(result) => return result,
                        }
                    }
                }
                continue;
            }
            _ => panic!("bad opcode {op}"),
        };
        set_word(frame + SP, sp);
    }
}

/// The same interpreter as jitcode: greens `pc` and `prog`, red `frame`.
fn jitcode(heap: &Heap) -> (JitCodeSet, FuncId) {
    let mut b = JitCodeBuilder::new("stack_vm");
    let (pc, prog, frame) = (b.param(Kind::Int), b.param(Kind::Int), b.param(Kind::Ref));
    let [op, arg, sp, t, u] = [(); 5].map(|_| b.reg(Kind::Int));
    let (stk, tmp) = (b.reg(Kind::Ref), b.reg(Kind::Ref));
    let elidable = EffectInfo {
        effect: CallEffect::Elidable,
        ..EffectInfo::default()
    };
    let fetch = |name| {
        call_descr(
            name,
            &[Kind::Int, Kind::Int],
            elidable.clone(),
            ResultKind::Int,
        )
    };
    let forcing = EffectInfo {
        may_force: true,
        ..EffectInfo::default()
    };
    let observe_d = call_descr("observe", &[Kind::Ref], forcing, ResultKind::Void);
    let f_pc = Descr::Field(field("pc", PC, Kind::Int));
    let f_sp = Descr::Field(field("sp", SP, Kind::Int));
    let f_stack = Descr::Field(field("stack", STACK, Kind::Ref));
    let items = Descr::Array(heap.stack.clone());
    let labels: Vec<_> = (0..=TMP).map(|_| b.label()).collect();
    let (top, set_sp, halt) = (b.label(), b.label(), b.label());

    b.bind(top);
    b.jit_merge_point(&[pc, prog], &[frame]);
    b.call(
        fetch("op_at"),
        Arg::Int(op_at as *const () as usize as i64),
        &[prog.into(), pc.into()],
        Some(op),
    );
    b.call(
        fetch("arg_at"),
        Arg::Int(arg_at as *const () as usize as i64),
        &[prog.into(), pc.into()],
        Some(arg),
    );
    b.op(OpCode::IntAdd, &[pc.into(), Arg::Int(1)], pc);
    b.setfield(frame.into(), pc.into(), f_pc.clone());
    b.getfield(frame.into(), f_sp.clone(), sp);
    b.getfield(frame.into(), f_stack, stk);
    let cases: Vec<(i64, _)> = (0..=TMP).map(|k| (k, labels[k as usize])).collect();
    b.switch(op.into(), &cases);
    b.goto(halt);

    b.bind(labels[HALT as usize]);
    b.bind(halt);
    b.op(OpCode::IntSub, &[sp.into(), Arg::Int(1)], t);
    b.getarrayitem(stk.into(), t.into(), items.clone(), t);
    b.ret(Some(t.into()));

    b.bind(labels[PUSH as usize]);
    b.setarrayitem(stk.into(), sp.into(), arg.into(), items.clone());
    b.op(OpCode::IntAdd, &[sp.into(), Arg::Int(1)], sp);
    b.goto(set_sp);

    b.bind(labels[LOAD as usize]);
    b.getarrayitem(stk.into(), arg.into(), items.clone(), t);
    b.setarrayitem(stk.into(), sp.into(), t.into(), items.clone());
    b.op(OpCode::IntAdd, &[sp.into(), Arg::Int(1)], sp);
    b.goto(set_sp);

    b.bind(labels[STORE as usize]);
    b.op(OpCode::IntSub, &[sp.into(), Arg::Int(1)], sp);
    b.getarrayitem(stk.into(), sp.into(), items.clone(), t);
    b.setarrayitem(stk.into(), arg.into(), t.into(), items.clone());
    b.goto(set_sp);

    for (code, ir) in [(ADD, OpCode::IntAdd), (SUB, OpCode::IntSub)] {
        b.bind(labels[code as usize]);
        b.op(OpCode::IntSub, &[sp.into(), Arg::Int(1)], sp);
        b.getarrayitem(stk.into(), sp.into(), items.clone(), u);
        b.op(OpCode::IntSub, &[sp.into(), Arg::Int(1)], arg);
        b.getarrayitem(stk.into(), arg.into(), items.clone(), t);
        b.op(ir, &[t.into(), u.into()], t);
        b.setarrayitem(stk.into(), arg.into(), t.into(), items.clone());
        b.goto(set_sp);
    }

    b.bind(labels[MODK as usize]);
    b.op(OpCode::IntSub, &[sp.into(), Arg::Int(1)], u);
    b.getarrayitem(stk.into(), u.into(), items.clone(), t);
    b.op(OpCode::IntMod, &[t.into(), arg.into()], t);
    b.setarrayitem(stk.into(), u.into(), t.into(), items.clone());
    b.goto(top);

    b.bind(labels[TMP as usize]);
    b.op(OpCode::IntSub, &[sp.into(), Arg::Int(1)], u);
    b.getarrayitem(stk.into(), u.into(), items.clone(), t);
    b.new_array(Arg::Int(1), items.clone(), tmp);
    b.setarrayitem(tmp.into(), Arg::Int(0), t.into(), items.clone());
    b.getarrayitem(tmp.into(), Arg::Int(0), items.clone(), t);
    b.op(OpCode::IntAdd, &[t.into(), Arg::Int(1)], t);
    b.setarrayitem(stk.into(), u.into(), t.into(), items.clone());
    b.goto(top);

    b.bind(labels[OBSERVE as usize]);
    b.call(
        observe_d,
        Arg::Int(observe as *const () as usize as i64),
        &[frame.into()],
        None,
    );
    b.goto(top);

    for code in [JNZF, JNZ] {
        b.bind(labels[code as usize]);
        b.op(OpCode::IntSub, &[sp.into(), Arg::Int(1)], sp);
        b.setfield(frame.into(), sp.into(), f_sp.clone());
        b.getarrayitem(stk.into(), sp.into(), items.clone(), t);
        b.goto_if_not(t.into(), top);
        b.copy(arg.into(), pc);
        b.setfield(frame.into(), pc.into(), f_pc.clone());
        if code == JNZ {
            b.can_enter_jit(&[pc, prog], &[frame]);
        }
        b.goto(top);
    }

    b.bind(set_sp);
    b.setfield(frame.into(), sp.into(), f_sp);
    b.goto(top);

    let mut set = JitCodeSet::new();
    let id = set.add(b.finish().unwrap());
    (set, id)
}

/// What one run produced: the result and the `OBSERVE` digests.
type Outcome = (i64, Vec<i64>);

fn plain(prog: &[[i64; 2]]) -> Outcome {
    let heap = Heap::new(false);
    OUTPUT.with(|o| o.borrow_mut().clear());
    let result = interpret(prog, heap.new_frame(STACK_LEN), &mut |f| Ok(f));
    (
        result,
        OUTPUT.with(|o| std::mem::take(&mut *o.borrow_mut())),
    )
}

/// Runs `prog` with the JIT called at every back edge; returns the outcome
/// and the driver (for its stats and traces).
fn jit<B: GcBackend>(
    prog: &[[i64; 2]],
    stress: bool,
    params: JitParams,
) -> (Outcome, JitDriver<B>) {
    let heap = Heap::new(stress);
    let mut driver = vm_driver(&heap, params);
    let got = jit_run(&mut driver, prog, heap.new_frame(STACK_LEN));
    (got, driver)
}

/// A driver for the VM on `heap` with its frame virtualizable.
fn vm_driver<B: GcBackend>(heap: &Heap, params: JitParams) -> JitDriver<B> {
    let (set, id) = jitcode(heap);
    JitDriver::<B>::new_gc(set, id, heap.gc.clone(), params)
        .unwrap()
        .with_virtualizable(heap.info())
        .unwrap()
}

/// Runs `prog` on `frame` with `driver` called at every back edge.
fn jit_run<B: GcBackend>(driver: &mut JitDriver<B>, prog: &[[i64; 2]], frame: usize) -> Outcome {
    OUTPUT.with(|o| o.borrow_mut().clear());
    let addr = prog.as_ptr() as i64;
    let result = interpret(prog, frame, &mut |frame| {
        let mut roots = [frame];
        driver.safepoint(&mut roots).unwrap();
        let pc = word(roots[0] + PC);
        let (mut g, mut r) = ([Value::Int(pc), Value::Int(addr)], [Value::Ref(roots[0])]);
        match driver.can_enter_jit(&mut g, &mut r).unwrap() {
            JitAction::Interpret => Ok(roots[0]),
            JitAction::Continue => {
                let frame = r[0].as_ref().unwrap();
                assert_eq!(
                    word(frame + PC),
                    g[0].as_int().unwrap(),
                    "frame.pc written back"
                );
                Ok(frame)
            }
            JitAction::Raised(e) => panic!("raised {e:?}"),
            JitAction::Finished(v) => Err(v.unwrap().as_int().unwrap()),
        }
    });
    let out = OUTPUT.with(|o| std::mem::take(&mut *o.borrow_mut()));
    (result, out)
}

fn params(bridges: bool) -> JitParams {
    let p = JitParams::default().with_threshold(3);
    if bridges {
        p
    } else {
        p.with_bridge_threshold(u32::MAX)
    }
}

/// The JIT agrees with the plain run on `B`, stressed or not, with
/// bridges or with every guard failure in the blackhole; returns the
/// driver of the unstressed run without bridges.
fn agrees<B: GcBackend>(prog: &[[i64; 2]]) -> JitDriver<B> {
    let want = plain(prog);
    let mut first = None;
    for stress in [false, true] {
        for bridges in [false, true] {
            let (got, driver) = jit::<B>(prog, stress, params(bridges));
            assert_eq!(got, want, "stress={stress} bridges={bridges}");
            let s = driver.stats();
            assert!(
                s.loops_compiled >= 1 && s.loop_entries >= 1,
                "the JIT ran: {s:?}"
            );
            assert!(s.guard_failures > 0, "the rare path left compiled code");
            if !bridges {
                assert!(s.blackhole_runs > 0, "the blackhole ran");
            }
            first.get_or_insert(driver);
        }
    }
    first.unwrap()
}

/// Unoptimized traces (their loads and stores of the temporary array run,
/// and allocate in compiled code under stress) agree with the plain run
/// too.
fn agrees_unoptimized<B: GcBackend>() {
    for stress in [false, true] {
        for observe_in_loop in [false, true] {
            let prog = program(300, observe_in_loop);
            let p = params(true).with_opts("").unwrap();
            let (got, driver) = jit::<B>(&prog, stress, p);
            assert_eq!(got, plain(&prog), "unoptimized stress={stress}");
            assert!(driver.stats().loop_entries >= 1, "{:?}", driver.stats());
        }
    }
}

/// Differential mode (the budget exit writes the frame back) agrees with
/// the plain run. It runs without `OBSERVE` in compiled code: it does not
/// replay what a residual helper writes to memory (docs/metainterp.md).
fn agrees_in_diff_mode<B: GcBackend>() {
    for stress in [false, true] {
        // Longer than the budget of a checked entry (`ENTRY_BUDGET`).
        let prog = program(3000, false);
        let (got, driver) = jit::<B>(&prog, stress, params(false).with_diff(1000));
        assert_eq!(got, plain(&prog), "diff mode stress={stress}");
        assert!(driver.stats().loop_entries >= 1, "{:?}", driver.stats());
    }
}

#[test]
fn unoptimized_refexec() {
    agrees_unoptimized::<RefExec>();
}

#[test]
fn unoptimized_native() {
    agrees_unoptimized::<HostBackend>();
}

#[test]
fn diff_mode_refexec() {
    agrees_in_diff_mode::<RefExec>();
}

#[test]
fn diff_mode_native() {
    agrees_in_diff_mode::<HostBackend>();
}

/// The optimized loop's text.
fn loop_text<B: GcBackend>(driver: &JitDriver<B>) -> String {
    majit::ir::text::print(&driver.loops()[0].trace)
}

fn no_frame_access<B: GcBackend>() {
    let prog = program(300, false);
    let driver = agrees::<B>(&prog);
    let text = loop_text(&driver);
    for op in [
        "getfield_gc",
        "setfield_gc",
        "getarrayitem_gc",
        "setarrayitem_gc",
        "arraylen_gc",
    ] {
        assert!(!text.contains(op), "{op} in the optimized loop:\n{text}");
    }
    // One guard on the stack depth (promoted at the first stack access)
    // in the preamble; the peeled loop keeps the program's two branches.
    let count = |t: &str, what: &str| t.lines().filter(|l| l.contains(what)).count();
    assert_eq!(count(&text, "guard_value"), 1, "{text}");
    let peeled = text
        .split("descr=Loop0.peeled)\n")
        .nth(1)
        .expect("unrolled");
    assert_eq!(count(peeled, "guard_"), 2, "{text}");
    assert_eq!(count(peeled, "guard_true"), 2, "{text}");
}

fn may_force_call<B: GcBackend>() {
    let prog = program(300, true);
    let want = plain(&prog);
    assert_eq!(want.1.len(), 300 + 300 / 7, "observed every iteration");
    let driver = agrees::<B>(&prog);
    let text = loop_text(&driver);
    assert!(text.contains("call_n"), "the call is in the loop:\n{text}");
}

#[test]
fn stack_vm_frame_lives_in_registers_refexec() {
    no_frame_access::<RefExec>();
}

#[test]
fn stack_vm_frame_lives_in_registers_native() {
    no_frame_access::<HostBackend>();
}

#[test]
fn may_force_call_sees_the_frame_refexec() {
    may_force_call::<RefExec>();
}

#[test]
fn may_force_call_sees_the_frame_native() {
    may_force_call::<HostBackend>();
}

/// A frame whose stack has another length than the compiled loop's is not
/// entered (the loop's inputs would not fit): it runs in the interpreter.
#[test]
fn frame_with_another_stack_length_is_interpreted() {
    let prog = program(100, false);
    let want = plain(&prog);
    let heap = Heap::new(false);
    let mut driver = vm_driver::<RefExec>(&heap, params(true));
    assert_eq!(jit_run(&mut driver, &prog, heap.new_frame(STACK_LEN)), want);
    assert_eq!(driver.stats().loops_compiled, 1, "{:?}", driver.stats());
    assert_eq!(
        jit_run(&mut driver, &prog, heap.new_frame(STACK_LEN + 4)),
        want
    );
    assert_eq!(driver.stats().loops_compiled, 1, "{:?}", driver.stats());
    let entries = driver.stats().loop_entries;
    assert_eq!(jit_run(&mut driver, &prog, heap.new_frame(STACK_LEN)), want);
    assert!(driver.stats().loop_entries > entries, "the loop runs again");
}

/// A description that does not fit the reds is a clear error.
#[test]
fn a_frame_that_is_not_a_ref_red_is_rejected() {
    let heap = Heap::new(false);
    let (set, id) = jitcode(&heap);
    let driver = JitDriver::<RefExec>::new_gc(set, id, heap.gc.clone(), params(true)).unwrap();
    let err = driver
        .with_virtualizable(VirtualizableInfo::new(3))
        .err()
        .expect("red 3 does not exist");
    assert!(err.to_string().contains("red 3"), "{err}");
}
