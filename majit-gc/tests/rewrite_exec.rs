//! The rewrite pass, executed: a trace and its rewritten form run on real
//! heaps under stress (a collection at every allocation) and must build
//! the same object graph.
//!
//! The original trace runs through the Rust API (`Gc::alloc`,
//! `Gc::write_ref` with its header/card test); the rewritten one the way
//! JIT code runs: `extern "C"` slow paths with a frame and gcmap, header
//! stores as plain stores, raw reference stores guarded only by the
//! `cond_call_gc_wb` the pass inserted (card test, then the barrier entry
//! point). A missing barrier, header store or root leaves a stale or
//! corrupt reference that the graph comparison catches.

use majit_gc::rewrite::RewriteConfig;
use majit_gc::testing::{rewrite_namespace, rewrite_test_trace, stress_config, test_heap};
use majit_gc::{Gc, GcHeap, GcRef, JitFrameRoots, JitGcInfo, TypeId};
use majit_ir::{parse_with, Descr, Kind, OpCode, OpRef, RefTarget, Trace};
use std::collections::HashMap;

/// A stress-mode heap whose type ids match the test namespace's.
fn heap() -> Gc {
    test_heap(stress_config())
}

/// Runs `trace` with the given inputs; returns the `finish` values.
/// `jit`: execute lowered ops through the JIT ABI (rewritten traces).
fn execute(gc: &mut Gc, trace: &Trace, inputs: &[u64], jit: bool) -> Vec<u64> {
    let info = gc.jit_info();
    let n = trace.inputs.len() + trace.ops.len();
    let mut slots = vec![0usize; n];
    let words = n.div_ceil(64);
    let mut gcmap = vec![0u64; 1 + words];
    gcmap[0] = words as u64;
    let slot_of = |r: OpRef| match r.target() {
        RefTarget::Input(i) => Some(i),
        RefTarget::Op(i) => Some(trace.inputs.len() + i),
        RefTarget::Const(_) => None,
    };
    for (i, &k) in trace.inputs.iter().enumerate() {
        slots[i] = inputs[i] as usize;
        if k == Kind::Ref {
            gcmap[1 + i / 64] |= 1 << (i % 64);
        }
    }
    for (i, op) in trace.ops.iter().enumerate() {
        if op.opcode.result().kind() == Some(Kind::Ref) {
            let s = trace.inputs.len() + i;
            gcmap[1 + s / 64] |= 1 << (s % 64);
        }
    }
    let mut frame = JitFrameRoots {
        base: slots.as_mut_ptr(),
        gcmap: gcmap.as_ptr(),
        prev: std::ptr::null_mut(),
    };
    let fp: *mut JitFrameRoots = &mut frame;
    // SAFETY: `frame` outlives every use below and is popped at the end.
    unsafe { gc.push_jit_frame(fp) };
    let mut out = Vec::new();
    for (i, op) in trace.ops.iter().enumerate() {
        let arg = |k: usize| -> u64 {
            let r = op.args[k];
            match slot_of(r) {
                // SAFETY: base points at `slots`, alive for the loop.
                Some(s) => unsafe { *frame.base.add(s) as u64 },
                None => trace.get_const(r).unwrap().value().to_bits(),
            }
        };
        let result = step(gc, &info, op, &arg, fp, jit);
        if op.opcode == OpCode::Finish {
            out = (0..op.args.len()).map(arg).collect();
            break;
        }
        if let Some(v) = result {
            // SAFETY: as above.
            unsafe { *frame.base.add(trace.inputs.len() + i) = v as usize };
        }
    }
    gc.pop_jit_frame();
    out
}

type Malloc = unsafe extern "C" fn(*mut GcHeap, usize, *mut JitFrameRoots) -> usize;
type MallocHl = unsafe extern "C" fn(*mut GcHeap, u32, *mut JitFrameRoots) -> usize;
type MallocVar = unsafe extern "C" fn(*mut GcHeap, u32, usize, *mut JitFrameRoots) -> usize;
type Barrier = unsafe extern "C" fn(*mut GcHeap, usize);

/// One op. Returns its result.
fn step(
    gc: &mut Gc,
    info: &JitGcInfo,
    op: &majit_ir::Op,
    arg: &dyn Fn(usize) -> u64,
    frame: *mut JitFrameRoots,
    jit: bool,
) -> Option<u64> {
    let heap = info.heap as *mut GcHeap;
    let field = || op.descr.as_ref().and_then(Descr::as_field).unwrap().clone();
    let array = || op.descr.as_ref().and_then(Descr::as_array).unwrap().clone();
    let obj = |k: usize| GcRef(arg(k) as usize);
    // SAFETY (all `unsafe` below): entry points are the published ones of
    // the live heap; `frame` is valid; objects are live references.
    Some(match op.opcode {
        OpCode::New | OpCode::NewWithVtable => {
            let size = op.descr.as_ref().and_then(Descr::as_size).unwrap();
            gc.alloc(TypeId(size.type_id)).unwrap().addr() as u64
        }
        OpCode::NewArray | OpCode::NewArrayClear => gc
            .alloc_array(TypeId(array().type_id), arg(0) as usize)
            .unwrap()
            .addr() as u64,
        OpCode::CallMallocNursery => unsafe {
            let f: Malloc = std::mem::transmute(info.malloc_nursery_fn as *const ());
            f(heap, arg(0) as usize, frame) as u64
        },
        OpCode::CallMallocNurseryHeaderless => unsafe {
            let size = op.descr.as_ref().and_then(Descr::as_size).unwrap();
            let f: MallocHl = std::mem::transmute(info.malloc_nursery_headerless_fn as *const ());
            f(heap, size.type_id, frame) as u64
        },
        OpCode::CallMallocNurseryVarsize => unsafe {
            let f: MallocVar = std::mem::transmute(info.malloc_varsize_fn as *const ());
            f(heap, array().type_id, arg(0) as usize, frame) as u64
        },
        OpCode::NurseryPtrIncrement => arg(0) + arg(1),
        OpCode::CondCallGcWb | OpCode::CondCallGcWbArray => {
            let card = info
                .card_table_biased
                .wrapping_add(arg(0) as usize >> info.card_shift);
            unsafe {
                if *(card as *const u8) != 0 {
                    let f: Barrier = std::mem::transmute(info.write_barrier_fn as *const ());
                    f(heap, arg(0) as usize);
                }
            }
            return None;
        }
        OpCode::SetfieldGc => {
            let f = field();
            if f.kind == Kind::Ref && !jit {
                gc.write_ref(obj(0), f.offset, GcRef(arg(1) as usize));
            } else {
                gc.write_word(obj(0), f.offset, arg(1));
            }
            return None;
        }
        OpCode::GetfieldGcI | OpCode::GetfieldGcR => gc.read_word(obj(0), field().offset),
        OpCode::SetarrayitemGc => {
            let a = array();
            let off = a.base_offset + arg(1) as u32 * a.item_size as u32;
            if a.kind == Kind::Ref && !jit {
                gc.write_ref(obj(0), off, GcRef(arg(2) as usize));
            } else {
                gc.write_word(obj(0), off, arg(2));
            }
            return None;
        }
        OpCode::ArraylenGc => gc.array_len(obj(0)) as u64,
        OpCode::IntAdd => arg(0).wrapping_add(arg(1)),
        OpCode::IntLt => u64::from((arg(0) as i64) < (arg(1) as i64)),
        OpCode::GuardTrue => {
            assert_eq!(arg(0), 1, "test traces keep their guards true");
            return None;
        }
        OpCode::CallN => {
            // Any residual call may collect.
            let f: unsafe extern "C" fn(*mut GcHeap, *mut JitFrameRoots) -> usize =
                unsafe { std::mem::transmute(info.collect_fn as *const ()) };
            assert_eq!(unsafe { f(heap, std::ptr::null_mut()) }, 1);
            return None;
        }
        OpCode::Finish => return None,
        other => panic!("the test executor does not run `{other}`"),
    })
}

/// A canonical description of the graph reachable from `roots`: objects
/// numbered in DFS order, each with its type and its words (references
/// replaced by object numbers, header flags dropped).
fn graph(gc: &Gc, roots: &[u64], kinds: &[Kind]) -> Vec<String> {
    let mut ids: HashMap<usize, usize> = HashMap::new();
    let mut out = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    let name = |r: usize, ids: &mut HashMap<usize, usize>, stack: &mut Vec<usize>| {
        if r == 0 {
            return "null".to_string();
        }
        let n = ids.len();
        let id = *ids.entry(r).or_insert_with(|| {
            stack.push(r);
            n
        });
        format!("#{id}")
    };
    for (&v, &k) in roots.iter().zip(kinds) {
        let s = if k == Kind::Ref {
            name(v as usize, &mut ids, &mut stack)
        } else {
            v.to_string()
        };
        out.push(s);
    }
    while let Some(r) = stack.pop() {
        let obj = GcRef(r);
        let ty = gc.type_of(obj);
        let mut line = format!("#{} type {}:", ids[&r], ty.0);
        match gc.layout(ty) {
            Ok(layout) => {
                let first = if layout.headerless { 0 } else { 8 };
                for off in (first..layout.size).step_by(8) {
                    let w = gc.read_word(obj, off);
                    if layout.ref_offsets.contains(&off) {
                        line += &format!(" {}", name(w as usize, &mut ids, &mut stack));
                    } else {
                        line += &format!(" {w}");
                    }
                }
            }
            Err(_) => {
                let len = gc.array_len(obj);
                line += &format!(" len {len}");
                for i in 0..len as u32 {
                    let w = gc.read_word(obj, 16 + 8 * i);
                    if ty.0 == 5 {
                        line += &format!(" {}", name(w as usize, &mut ids, &mut stack));
                    } else {
                        line += &format!(" {w}");
                    }
                }
            }
        }
        out.push(line);
    }
    out
}

/// Runs `text` before and after the rewrite; inputs `p*` get a fresh old
/// `Stack` each, `i*` get `ints` in order.
fn check_same_graph(text: &str, ints: &[u64]) {
    let ns = rewrite_namespace();
    let trace = parse_with(text, &ns).unwrap();
    let lowered = rewrite_test_trace(&trace, &RewriteConfig::default()).unwrap();
    let mut results = Vec::new();
    for (t, jit) in [(&trace, false), (&lowered, true)] {
        let mut gc = heap();
        let mut ints = ints.iter();
        let mut inputs = Vec::new();
        for &k in &t.inputs {
            inputs.push(match k {
                Kind::Ref => {
                    // Rooted for the whole run; old, so it never moves.
                    let s = gc.alloc(TypeId(3)).unwrap();
                    let root = gc.push_root(s);
                    gc.collect_minor().unwrap();
                    let s = gc.root(root);
                    assert!(!gc.is_young(s));
                    s.addr() as u64
                }
                _ => *ints.next().unwrap(),
            });
        }
        let finish = execute(&mut gc, t, &inputs, jit);
        let finish_op = t.ops.last().unwrap();
        let kinds: Vec<Kind> = finish_op
            .args
            .iter()
            .map(|&a| t.kind_of(a).unwrap())
            .collect();
        // Keep the results alive across a last full collection.
        let scope = gc.enter_scope();
        for (&v, &k) in finish.iter().zip(&kinds) {
            gc.push_root(if k == Kind::Ref {
                GcRef(v as usize)
            } else {
                GcRef::NULL
            });
        }
        gc.collect_major().unwrap();
        let finish: Vec<u64> = (0..finish.len())
            .map(|k| match kinds[k] {
                Kind::Ref => gc.root(scope.index(k)).addr() as u64,
                _ => finish[k],
            })
            .collect();
        gc.leave_scope(scope);
        results.push(graph(&gc, &finish, &kinds));
    }
    assert_eq!(
        results[0],
        results[1],
        "\n{}",
        majit_ir::print_with(&lowered, &ns)
    );
}

#[test]
fn stack_push_loop_body_builds_the_same_graph() {
    // Four pushes of headerless nodes onto an old Stack, then boxes and a
    // stack that batch, stores into maybe-old objects after allocations.
    let mut text = String::from("[p0, i0]\n");
    for k in 0..4 {
        text += &format!(
            "p{a} = new(descr=Node)
             setfield_gc(p{a}, i0, descr=Node.value)
             p{b} = getfield_gc_r(p0, descr=Stack.head)
             setfield_gc(p{a}, p{b}, descr=Node.next)
             setfield_gc(p0, p{a}, descr=Stack.head)
             i{c} = int_add(i0, {k})
             setfield_gc(p0, i{c}, descr=Stack.len)\n",
            a = 10 + 2 * k,
            b = 11 + 2 * k,
            c = 10 + k,
        );
    }
    text += "
        p30 = new(descr=Box)
        p31 = new_with_vtable(descr=Stack)
        setfield_gc(p31, p0, descr=Stack.head)
        p32 = new(descr=Box)
        setfield_gc(p32, i0, descr=Box.value)
        p33 = new(descr=Node)
        setfield_gc(p33, p31, descr=Node.next)
        setfield_gc(p0, p33, descr=Stack.head)
        finish(p0, p30, p31, p32, i0)";
    check_same_graph(&text, &[7]);
}

#[test]
fn arrays_and_collecting_calls_build_the_same_graph() {
    check_same_graph(
        "
        [p0, p1, i0]
        p2 = new_array(i0, descr=RefArray)
        p3 = new(descr=Node)
        setfield_gc(p3, i0, descr=Node.value)
        setarrayitem_gc(p2, 1, p3, descr=RefArray)
        p4 = new_array(3, descr=RefArray)
        setarrayitem_gc(p4, 0, p2, descr=RefArray)
        setarrayitem_gc(p2, 0, p4, descr=RefArray)
        setfield_gc(p1, p4, descr=Stack.head)
        call_n(1048592, i0, descr=Call.i_v)
        p5 = new(descr=Node)
        setfield_gc(p0, p5, descr=Stack.head)
        p6 = new(descr=Node)
        setfield_gc(p5, p6, descr=Node.next)
        i7 = arraylen_gc(p2, descr=RefArray)
        setfield_gc(p6, i7, descr=Node.value)
        finish(p0, p1, p2)",
        &[5],
    );
}
