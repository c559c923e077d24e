//! The jitcode means what the Rust means, for objects: every handler of a
//! test interpreter runs once natively (the plain function with one unit
//! of fuel) and once in the blackhole (from the merge point, over the
//! generated jitcode), from equal seeded random object graphs. Results and
//! the final graphs must agree. The handlers cover field syntax (reads,
//! writes, compound assignment, narrow and bool fields, fields of fields),
//! class tests and casts of `Obj`, allocation of headered structs, and GC
//! arrays (`len`, reads, writes, compound assignment, allocation, arrays of
//! `Obj`, null checks).

use majit::gc::thread_heap;
use majit::ir::Value;
use majit::metainterp::blackhole::{BhFrame, Blackhole, Outcome};
use majit::metainterp::jitcode::{FuncId, JitCodeSet};
use majit::metainterp::runtime::GcAllocator;
use majit::prelude::*;

const OPS: i64 = 12;

#[jit_interp(
    greens = [pc, code],
    reds = [a, b, fuel, o, arr, cell],
    structs = [
        #[headered] Circle { r: i64 },
        #[headered] Rect { w: i32, h: u8 },
        Cell { v: i64, flag: bool, shape: Obj, items: Array<i64>, next: Cell },
    ]
)]
#[allow(clippy::too_many_arguments)]
fn step(
    code: &[i64],
    start: usize,
    a0: i64,
    b0: i64,
    fuel0: i64,
    o0: Obj,
    arr0: Array<i64>,
    cell0: Cell,
) -> i64 {
    let mut pc: usize = start;
    let mut a: i64 = a0;
    let mut b: i64 = b0;
    let mut fuel: i64 = fuel0;
    let mut o: Obj = o0;
    let mut arr: Array<i64> = arr0;
    let mut cell: Cell = cell0;
    loop {
        jit_merge_point!();
        if fuel == 0 {
            cell.shape = o;
            cell.items = arr;
            return a.wrapping_add(b.wrapping_mul(31));
        }
        fuel -= 1;
        let op = code[pc];
        pc += 1;
        match op {
            0 => {
                a = cell.v;
                cell.v = b;
            }
            1 => {
                cell.v = cell.v.wrapping_add(a);
                cell.v ^= b;
                cell.flag = !cell.flag;
            }
            2 => {
                if o.is::<Circle>() {
                    a = o.cast::<Circle>().r;
                } else if o.is::<Rect>() {
                    let r = o.cast::<Rect>();
                    a = r.w as i64 * r.h as i64;
                } else {
                    a = -1;
                }
            }
            3 => {
                if o.is::<Rect>() {
                    let r = o.cast::<Rect>();
                    r.w = r.w.wrapping_add(b as i32);
                    r.h = (a as u8).wrapping_add(r.h);
                    r.h ^= 3;
                }
            }
            4 => {
                o = if a > b {
                    Obj::from(Circle::new(a))
                } else {
                    Obj::from(Rect::new(b as i32, a as u8))
                };
            }
            5 => {
                let i = (a & 7) as usize;
                if !arr.is_null() && i < arr.len() {
                    arr[i] = arr[i].wrapping_add(b);
                    arr[i] ^= 1;
                    a = arr[i];
                } else {
                    a = 0;
                }
            }
            6 => {
                arr = Array::<i64>::new((a & 3) as usize);
                if arr.len() > 1 {
                    arr[1] = b;
                }
            }
            7 => {
                cell.items = arr;
                cell.shape = o;
                if !cell.items.is_null() {
                    b = cell.items.len() as i64;
                    if b > 0 {
                        cell.items[0] ^= a;
                    }
                }
            }
            8 => {
                let c: Cell = cell.next;
                if !c.is_null() {
                    a = c.v;
                    c.v = a.wrapping_mul(b);
                    if !c.next.is_null() {
                        c.next.v = 5;
                    }
                }
            }
            9 => {
                a = (o == cell.shape) as i64
                    + (o.is_null() as i64) * 2
                    + (arr.is_null() as i64) * 4;
            }
            10 => {
                let mut t: Array<Obj> = Array::<Obj>::new(2);
                t[1] = o;
                o = t[0];
                if o.is_null() {
                    o = t[1];
                }
                a = t.len() as i64;
            }
            11 => return a,
            _ => return -1,
        }
    }
}

/// splitmix64.
#[derive(Clone)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn value(&mut self) -> i64 {
        const EDGES: [i64; 8] = [0, 1, -1, 2, 7, 255, i64::MAX, i64::MIN];
        match self.next() % 3 {
            0 => EDGES[(self.next() % 8) as usize],
            1 => (self.next() % 64) as i64 - 32,
            _ => self.next() as i64,
        }
    }
    fn shape(&mut self) -> Obj {
        match self.next() % 3 {
            0 => Obj::null(),
            1 => Obj::from(Circle::new(self.value())),
            _ => Obj::from(Rect::new(self.value() as i32, self.value() as u8)),
        }
    }
    fn array(&mut self) -> Array<i64> {
        if self.next().is_multiple_of(4) {
            return Array::null();
        }
        let mut a = Array::new((self.next() % 6) as usize);
        for i in 0..a.len() {
            a[i] = self.value();
        }
        a
    }
    fn cell(&mut self, depth: u32) -> Cell {
        let next = if depth > 0 && !self.next().is_multiple_of(3) {
            self.cell(depth - 1)
        } else {
            Cell::null()
        };
        Cell::new(
            self.value(),
            self.next().is_multiple_of(2),
            self.shape(),
            self.array(),
            next,
        )
    }
}

/// Everything reachable from the state, as numbers.
fn digest(o: Obj, arr: Array<i64>, mut cell: Cell) -> Vec<i64> {
    fn shape(o: Obj, out: &mut Vec<i64>) {
        if o.is::<Circle>() {
            out.extend([1, o.cast::<Circle>().r()]);
        } else if o.is::<Rect>() {
            let r = o.cast::<Rect>();
            out.extend([2, r.w() as i64, r.h() as i64]);
        } else {
            out.push(0);
        }
    }
    fn array(a: Array<i64>, out: &mut Vec<i64>) {
        if a.is_null() {
            return out.push(-1);
        }
        out.push(a.len() as i64);
        out.extend((0..a.len()).map(|i| a[i]));
    }
    let mut out = Vec::new();
    shape(o, &mut out);
    array(arr, &mut out);
    while !cell.is_null() {
        out.extend([cell.v(), cell.flag() as i64]);
        shape(cell.shape(), &mut out);
        array(cell.items(), &mut out);
        cell = cell.next();
    }
    out
}

/// One handler in the blackhole from the merge point; the result the
/// plain function computes at the next merge point.
fn blackhole_step(
    (codes, portal): &(JitCodeSet, FuncId),
    code: &[i64],
    (a, b, o, arr, cell): (i64, i64, Obj, Array<i64>, Cell),
) -> i64 {
    let jc = codes.get(*portal).unwrap().clone();
    let mp = jc.merge_point_pc().unwrap();
    let insn = jc.decode(mp);
    let mut frame = BhFrame::new(jc.clone(), insn.next);
    let greens = [
        Value::Int(0),
        Value::Ref(code.as_ptr() as usize),
        Value::Int(code.len() as i64),
    ];
    let reds = [
        Value::Int(a),
        Value::Int(b),
        Value::Int(1),
        Value::Ref(o.to_raw()),
        Value::Ref(arr.to_raw()),
        Value::Ref(cell.to_raw()),
    ];
    for (r, v) in insn.list(0).iter().zip(greens) {
        frame.set(*r, v);
    }
    for (r, v) in insn.list(1).iter().zip(reds) {
        frame.set(*r, v);
    }
    let mut alloc = GcAllocator::new(thread_heap::shared().unwrap());
    match Blackhole::new(codes, &mut alloc, vec![frame])
        .run()
        .unwrap()
    {
        Outcome::Returned(v) => v.unwrap().as_int().unwrap(),
        Outcome::Raised(e) => panic!("raised {e:?}"),
        Outcome::MergePoint { reds, .. } => {
            // What the plain function does with no fuel left.
            let r = |i: usize| reds[i].as_ref().unwrap();
            cell.set_shape(Obj::from_raw(r(3)));
            cell.set_items(Array::from_raw(r(4)));
            let (a, b) = (reds[0].as_int().unwrap(), reds[1].as_int().unwrap());
            a.wrapping_add(b.wrapping_mul(31))
        }
    }
}

#[test]
fn every_object_handler_matches_rust_from_random_states() {
    let mut rng = Rng(0x0b1ec7);
    let jitcode = step_jitcode().unwrap();
    for round in 0..3000 {
        let op = round as i64 % OPS;
        let code = [op, 0];
        let (a, b) = (rng.value(), rng.value());
        let seed = rng.clone();
        let graph = |rng: &mut Rng| (rng.shape(), rng.array(), rng.cell(2));
        let (o1, arr1, cell1) = graph(&mut seed.clone());
        let (o2, arr2, cell2) = graph(&mut seed.clone());
        graph(&mut rng);
        let before = digest(o1, arr1, cell1);
        assert_eq!(before, digest(o2, arr2, cell2));
        let what = format!("op {op} a {a} b {b} graph {before:?}");

        let native = step(&code, 0, a, b, 1, o1, arr1, cell1);
        let bh = blackhole_step(&jitcode, &code, (a, b, o2, arr2, cell2));
        assert_eq!(bh, native, "{what}");
        assert_eq!(digest(o2, arr2, cell2), digest(o1, arr1, cell1), "{what}");
    }
}
