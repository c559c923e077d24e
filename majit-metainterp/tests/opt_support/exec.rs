//! The execution oracle: an unoptimized and an optimized trace must give
//! the same results and the same memory effects on the reference executor.
//!
//! Each trace runs in its own executor on its own copy of the same input
//! heap (built deterministically from a seed; the layout of each ref input
//! is inferred from how the trace uses it). After both runs:
//! - both exit through the same guard (by original `FailDescr` id) or the
//!   same `finish`;
//! - at a guard, the optimized dead frame plus the guard's resume data are
//!   rebuilt ([`rebuild`]) into the original fail-arg values;
//! - those values and every object reachable from them and from the inputs
//!   are compared structurally, with a bijection between the two heaps (so
//!   identity and sharing must match too).

use super::ns;
use majit_ir::fuzzing::SplitMix64;
use majit_ir::{ArrayDescr, Descr, Kind, OpCode, OpRef, RefTarget, SizeDescr, Trace, Value};
use majit_metainterp::opt::Optimized;
use majit_metainterp::refexec::RefExec;
use majit_metainterp::resume::rebuild;
use majit_metainterp::runtime::{Allocated, MallocAllocator};
use majit_metainterp::{Backend, DeadFrame, ExecError};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::Arc;

/// The layout of an object the oracle knows how to walk.
#[derive(Clone, Debug)]
pub enum Shape {
    Struct(Arc<SizeDescr>),
    Array(Arc<ArrayDescr>),
}

/// What a ref field points to in the test namespace.
fn field_target(field: &str) -> Option<Shape> {
    let owner = match field {
        "Node.next" | "Stack.head" => "Node",
        "Triple.c" => "Triple",
        _ => return None,
    };
    size(owner).map(Shape::Struct)
}

fn size(name: &str) -> Option<Arc<SizeDescr>> {
    ns().descr(name).and_then(|d| d.as_size().cloned())
}

/// The shape of what an item of a ref array points to.
fn item_target(array: &ArrayDescr) -> Option<Shape> {
    (array.name == "RefArray").then(|| size("Node").map(Shape::Struct))?
}

/// The shape of value `r` of `t`, from how it was made.
pub fn shape_of(t: &Trace, r: OpRef, inputs: &[Option<Shape>]) -> Option<Shape> {
    match r.target() {
        RefTarget::Input(i) => inputs.get(i).cloned().flatten(),
        RefTarget::Const(_) => None,
        RefTarget::Op(i) => {
            let op = &t.ops[i];
            match (&op.opcode, &op.descr) {
                (OpCode::New | OpCode::NewWithVtable, Some(Descr::Size(s))) => {
                    Some(Shape::Struct(s.clone()))
                }
                (OpCode::NewArray | OpCode::NewArrayClear, Some(Descr::Array(a))) => {
                    Some(Shape::Array(a.clone()))
                }
                (OpCode::GetfieldGcR, Some(Descr::Field(f))) => field_target(&f.name),
                (OpCode::GetarrayitemGcR, Some(Descr::Array(a))) => item_target(a),
                (OpCode::SameAsR, _) => shape_of(t, op.arg(0), inputs),
                _ => None,
            }
        }
    }
}

/// The shape of each ref input, from the first op that addresses it.
pub fn input_shapes(t: &Trace) -> Vec<Option<Shape>> {
    let mut shapes: Vec<Option<Shape>> = vec![None; t.inputs.len()];
    for op in &t.ops {
        let Some(&first) = op.args.first() else {
            continue;
        };
        let RefTarget::Input(i) = first.target() else {
            continue;
        };
        if shapes[i].is_some() || t.inputs[i] != Kind::Ref {
            continue;
        }
        shapes[i] = match (&op.opcode, &op.descr) {
            (OpCode::GuardClass | OpCode::GuardNonnullClass, _) => size("Stack").map(Shape::Struct),
            (_, Some(Descr::Field(f))) if op.opcode != OpCode::SetfieldRaw => {
                size(&f.owner).map(Shape::Struct)
            }
            (_, Some(Descr::Array(a))) if a.base_offset > 0 => Some(Shape::Array(a.clone())),
            _ => None,
        };
    }
    shapes
}

/// The objects a world's executor allocated, so the heap comparison only
/// follows refs that name real objects (raw stores in random traces can
/// leave any bits in a ref field).
type Objects = Allocated;

/// One executor with its input heap.
struct World {
    exec: RefExec,
    rng: SplitMix64,
    objects: Objects,
}

const ARRAY_LEN: usize = 6;
const MAX_DEPTH: usize = 4;

impl World {
    fn new(seed: u64) -> World {
        let objects = Objects::default();
        let alloc = MallocAllocator::recording(Rc::clone(&objects));
        let mut exec = RefExec::with_allocator(Box::new(alloc));
        exec.set_step_limit(200_000);
        if let Some(stack) = size("Stack") {
            exec.register_layout(&stack);
        }
        World {
            exec,
            rng: SplitMix64::new(seed),
            objects,
        }
    }

    fn small_int(&mut self) -> i64 {
        self.rng.below(14) as i64 - 3
    }

    fn build(&mut self, shape: &Shape, depth: usize) -> usize {
        match shape {
            Shape::Struct(s) => {
                let obj = self
                    .exec
                    .allocator()
                    .new_object(s, &mut [])
                    .expect("memory");
                for name in &s.fields {
                    let f = ns()
                        .descr(name)
                        .and_then(|d| d.as_field().cloned())
                        .expect("field");
                    let v = self.value(f.kind, field_target(&f.name), depth);
                    // SAFETY: `obj` is a fresh object of layout `s`, which has `f`.
                    unsafe { write(obj + f.offset as usize, f.size, v) };
                }
                obj
            }
            Shape::Array(a) => {
                let obj = self
                    .exec
                    .allocator()
                    .new_array(a, ARRAY_LEN, &mut [])
                    .expect("memory");
                for i in 0..ARRAY_LEN {
                    let v = self.value(a.kind, item_target(a), depth);
                    let at = obj + a.base_offset as usize + i * a.item_size as usize;
                    // SAFETY: item `i` lies inside the fresh array.
                    unsafe { write(at, a.item_size, v) };
                }
                obj
            }
        }
    }

    fn value(&mut self, kind: Kind, target: Option<Shape>, depth: usize) -> Value {
        match kind {
            Kind::Int => Value::Int(self.small_int()),
            Kind::Float => Value::Float(self.small_int() as f64 * 0.5),
            Kind::Ref => match target {
                Some(s) if depth < MAX_DEPTH => Value::Ref(self.build(&s, depth + 1)),
                _ => Value::Ref(0),
            },
        }
    }

    fn inputs(&mut self, t: &Trace, shapes: &[Option<Shape>]) -> Vec<Value> {
        let node = size("Node").map(Shape::Struct);
        (0..t.inputs.len())
            .map(|i| match t.inputs[i] {
                Kind::Ref => {
                    let s = shapes[i].clone().or_else(|| node.clone());
                    Value::Ref(self.build(&s.expect("Node"), 0))
                }
                k => self.value(k, None, 0),
            })
            .collect()
    }

    fn run(&mut self, t: &Trace, inputs: &[Value]) -> Result<DeadFrame, ExecError> {
        let code = self
            .exec
            .compile_loop(t)
            .unwrap_or_else(|e| panic!("compile: {e}"));
        self.exec.execute(code, inputs)
    }
}

/// # Safety
/// `at .. at + width` is writable memory of a live object.
unsafe fn write(at: usize, width: u8, v: Value) {
    let bits = v.to_bits();
    // SAFETY: guaranteed by the caller.
    unsafe {
        match width {
            1 => (at as *mut u8).write_unaligned(bits as u8),
            2 => (at as *mut u16).write_unaligned(bits as u16),
            4 => (at as *mut u32).write_unaligned(bits as u32),
            _ => (at as *mut u64).write_unaligned(bits),
        }
    }
}

/// # Safety
/// `at .. at + 8` is readable memory of a live object.
unsafe fn read(at: usize) -> u64 {
    // SAFETY: guaranteed by the caller.
    unsafe { (at as *const u64).read_unaligned() }
}

/// Structural comparison of two heaps with a bijection between them.
struct Compare {
    there: HashMap<usize, usize>,
    back: HashMap<usize, usize>,
    /// The objects of each heap; other bits in a ref slot are compared as
    /// plain bits.
    objects: (BTreeMap<usize, usize>, BTreeMap<usize, usize>),
}

impl Compare {
    fn values(
        &mut self,
        a: Value,
        b: Value,
        shape: Option<&Shape>,
        what: &str,
    ) -> Result<(), String> {
        match (a, b) {
            (Value::Ref(x), Value::Ref(y)) => self.refs(x, y, shape, what),
            _ if a == b => Ok(()),
            // An address kept as an int or float (`cast_ptr_to_int`, raw
            // stores): the two heaps differ in addresses, not in objects.
            _ if a.kind() == b.kind() && self.same_object(a.to_bits(), b.to_bits()) => Ok(()),
            _ => Err(format!("{what}: {a:?} vs {b:?}")),
        }
    }

    /// Whether two words are the addresses of corresponding objects.
    fn same_object(&mut self, a: u64, b: u64) -> bool {
        let (a, b) = (a as usize, b as usize);
        if !self.objects.0.contains_key(&a) || !self.objects.1.contains_key(&b) {
            return false;
        }
        match (self.there.get(&a), self.back.get(&b)) {
            (Some(&y), _) => y == b,
            (None, None) => {
                self.there.insert(a, b);
                self.back.insert(b, a);
                true
            }
            (None, Some(_)) => false,
        }
    }

    fn refs(
        &mut self,
        a: usize,
        b: usize,
        shape: Option<&Shape>,
        what: &str,
    ) -> Result<(), String> {
        if a == 0 || b == 0 {
            return if a == b {
                Ok(())
            } else {
                Err(format!("{what}: null vs non-null ({a:#x}, {b:#x})"))
            };
        }
        match (
            self.objects.0.contains_key(&a),
            self.objects.1.contains_key(&b),
        ) {
            (true, true) => {}
            (false, false) if a == b => return Ok(()),
            _ => return Err(format!("{what}: object vs non-object ({a:#x}, {b:#x})")),
        }
        match (self.there.get(&a), self.back.get(&b)) {
            (Some(&y), _) if y == b => return Ok(()),
            (None, None) => {
                self.there.insert(a, b);
                self.back.insert(b, a);
            }
            _ => return Err(format!("{what}: identity differs ({a:#x} vs {b:#x})")),
        }
        match shape {
            Some(Shape::Struct(s)) => self.structs(a, b, s, what),
            Some(Shape::Array(arr)) => self.arrays(a, b, arr, what),
            None => Ok(()),
        }
    }

    fn structs(&mut self, a: usize, b: usize, s: &SizeDescr, what: &str) -> Result<(), String> {
        if !s.headerless {
            // SAFETY: headered objects start with an 8-byte header word.
            let (ha, hb) = unsafe { (read(a), read(b)) };
            if ha != hb {
                return Err(format!("{what}: header {ha:#x} vs {hb:#x}"));
            }
        }
        for name in &s.fields {
            let f = ns()
                .descr(name)
                .and_then(|d| d.as_field().cloned())
                .expect("field");
            // SAFETY: both objects have layout `s`, which has `f` (8 bytes).
            let (x, y) = unsafe { (read(a + f.offset as usize), read(b + f.offset as usize)) };
            let (x, y) = (Value::from_bits(f.kind, x), Value::from_bits(f.kind, y));
            self.values(
                x,
                y,
                field_target(&f.name).as_ref(),
                &format!("{what}.{}", f.name),
            )?;
        }
        Ok(())
    }

    fn arrays(&mut self, a: usize, b: usize, arr: &ArrayDescr, what: &str) -> Result<(), String> {
        // SAFETY: GC arrays keep an 8-byte length word at `len_offset`.
        let (la, lb) = unsafe {
            (
                read(a + arr.len_offset as usize),
                read(b + arr.len_offset as usize),
            )
        };
        if la != lb {
            return Err(format!("{what}: length {la} vs {lb}"));
        }
        for i in 0..la as usize {
            let at = arr.base_offset as usize + i * arr.item_size as usize;
            // SAFETY: item `i` is inside both arrays (same length), 8 bytes wide.
            let (x, y) = unsafe { (read(a + at), read(b + at)) };
            let (x, y) = (Value::from_bits(arr.kind, x), Value::from_bits(arr.kind, y));
            self.values(x, y, item_target(arr).as_ref(), &format!("{what}[{i}]"))?;
        }
        Ok(())
    }
}

/// The exit a dead frame names: `Some(fail id)` or `None` for `finish`
/// without a descr.
fn exit_id(f: &DeadFrame) -> Option<u32> {
    f.descr.as_ref().and_then(|d| d.as_fail()).map(|d| d.id)
}

/// Runs `original` and `opt.trace` on `runs` input heaps (seeds 0..runs)
/// and panics on the first difference. Returns how many runs exited
/// through a guard (so tests can insist that failure paths were covered).
pub fn check_equivalent(original: &Trace, opt: &Optimized, runs: u64) -> usize {
    let shapes = input_shapes(original);
    let mut guard_exits = 0;
    for seed in 0..runs {
        let (mut wa, mut wb) = (World::new(seed), World::new(seed));
        let (ia, ib) = (wa.inputs(original, &shapes), wb.inputs(&opt.trace, &shapes));
        let ra = wa.run(original, &ia);
        let rb = wb.run(&opt.trace, &ib);
        let context = || format!("seed {seed}\n{}", majit_ir::print(&opt.trace));
        let (fa, fb) = match (ra, rb) {
            (Err(ExecError::NullPointer { .. } | ExecError::StepLimit), _) => continue,
            (Err(ea), Err(eb)) if ea == eb => continue,
            (Ok(fa), Ok(fb)) => (fa, fb),
            (ra, rb) => panic!("runs differ: {ra:?} vs {rb:?}\n{}", context()),
        };
        let opt_exit = exit_id(&fb);
        let original_exit = opt_exit
            .and_then(|id| opt.resume.get(&id))
            .map(|rd| rd.original);
        let values_b = match opt_exit.and_then(|id| opt.resume.get(&id)) {
            Some(rd) => {
                guard_exits += 1;
                // SAFETY: `rd` describes the guard that produced `fb`.
                unsafe { rebuild(&fb.values, rd, &mut *wb.exec.allocator()) }
                    .unwrap_or_else(|e| panic!("rebuild: {e}\n{}", context()))
            }
            None => fb.values.clone(),
        };
        let same_exit = match original_exit {
            Some(o) => exit_id(&fa) == Some(o),
            None => exit_id(&fa) == opt_exit && fa.descr == fb.descr,
        };
        assert!(
            same_exit,
            "exits differ: {:?} vs {:?}\n{}",
            fa.descr,
            fb.descr,
            context()
        );
        let mut cmp = Compare {
            there: HashMap::new(),
            back: HashMap::new(),
            objects: (wa.objects.borrow().clone(), wb.objects.borrow().clone()),
        };
        let exit_op = &original.ops[fa.exit.op_index as usize];
        let exit_args = exit_op
            .fail_args
            .clone()
            .unwrap_or_else(|| exit_op.args.to_vec());
        assert_eq!(fa.values.len(), values_b.len(), "{}", context());
        for (i, (&a, &b)) in fa.values.iter().zip(&values_b).enumerate() {
            let shape = exit_args
                .get(i)
                .and_then(|&r| shape_of(original, r, &shapes));
            if let Err(e) = cmp.values(a, b, shape.as_ref(), &format!("exit value {i}")) {
                panic!("{e}\n{}", context());
            }
        }
        for (i, (&a, &b)) in ia.iter().zip(&ib).enumerate() {
            if let Err(e) = cmp.values(a, b, shapes[i].as_ref(), &format!("input {i}")) {
                panic!("{e}\n{}", context());
            }
        }
    }
    guard_exits
}

/// The op index through which `t` exits for the inputs of `seed`, or
/// `None` when it errs or hits the step limit.
pub fn exit_index(t: &Trace, seed: u64) -> Option<usize> {
    let shapes = input_shapes(t);
    let mut w = World::new(seed);
    let inputs = w.inputs(t, &shapes);
    w.run(t, &inputs).ok().map(|f| f.exit.op_index as usize)
}
