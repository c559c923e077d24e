//! [`Obj`]: a handle of any headered GC struct of the thread heap (the
//! structs `#[jit_interp]` declares `#[headered]`), whose class can be
//! tested ([`Obj::is`]) and which can be cast back to the struct's handle
//! ([`Obj::cast`]). A headered object's header holds its type id in the
//! thread heap ([`crate::thread_heap::class_id`]), so a class test is a
//! load and a compare.
//!
//! An `Obj` can also be a **small integer** ([`Obj::small_int`]): a
//! 63-bit integer `v` kept in the handle itself as `2v + 1`. Objects are
//! 8-byte aligned, so the low bit tells the two apart; the collector
//! skips a reference slot whose low bit is set, and a small integer is
//! of no class (`is::<T>()` is false). A VM keeps its common integers
//! this way instead of allocating a box per result.
//!
//! Or a **small float** ([`Obj::small_float`]): a double with a middle
//! exponent (magnitudes in `[2^-255, 2^257)`; zeros are boxed) kept in the
//! handle, its bits rotated so that the low two bits are `10`
//! ([`majit_ir::flonum`] has the encoding). So the low two bits tell the
//! three apart: `x1` a small integer, `10` a small float, `00` an object
//! or null; the collector skips any reference slot whose low two bits are
//! not `00`. `-0.0`, NaNs (payload and sign intact), infinities and
//! extreme magnitudes do not fit: a VM boxes those.
//!
//! ```
//! use majit_gc::Obj;
//! let n = Obj::small_int(-21);
//! assert!(n.is_small_int() && !n.is_null());
//! assert_eq!(n.to_small_int() * 2, -42);
//! assert!(!Obj::fits_small_int(i64::MAX));
//! let x = Obj::small_float(-0.75);
//! assert!(x.is_small_float() && !x.is_small_int());
//! assert_eq!(x.to_small_float() * 2.0, -1.5);
//! assert!(!Obj::fits_small_float(-0.0) && !Obj::fits_small_float(f64::NAN));
//! ```

use crate::thread_heap::{self, StructType};
use majit_ir::flonum;
use std::cell::Cell;
use std::thread::LocalKey;

/// The handle type of a headered GC struct (implemented by the handles
/// `#[jit_interp]` generates for `#[headered]` structs).
pub trait Headered: Copy {
    /// The struct's type in the thread heap.
    fn struct_type() -> &'static StructType;
    /// This thread's cache of the struct's type id in its heap
    /// ([`thread_heap::is_class`]): a thread-local of the type's own,
    /// `const`-initialized to 0, so that a class test is a load and a
    /// compare and reads no atomic.
    fn class_cache() -> &'static LocalKey<Cell<u32>>;
    /// The handle of the object at `p` (an object of this type, or 0).
    fn from_raw(p: usize) -> Self;
    /// The object's address.
    fn to_raw(self) -> usize;
}

/// A handle of an object of any headered struct type, or null.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct Obj(usize);

impl Obj {
    /// The null handle.
    pub fn null() -> Obj {
        Obj(0)
    }
    /// Whether this is the null handle.
    pub fn is_null(self) -> bool {
        self.0 == 0
    }
    /// The smallest integer a handle holds ([`Obj::small_int`]): -2^62.
    pub const SMALL_INT_MIN: i64 = -(1 << 62);
    /// The largest integer a handle holds: 2^62 - 1.
    pub const SMALL_INT_MAX: i64 = (1 << 62) - 1;

    /// Whether `v` fits in a handle ([`Obj::small_int`]).
    #[inline]
    pub fn fits_small_int(v: i64) -> bool {
        (v << 1) >> 1 == v
    }
    /// The handle holding `v`.
    ///
    /// # Panics
    /// If `v` does not fit ([`Obj::fits_small_int`]), as the JIT's code does.
    #[inline]
    pub fn small_int(v: i64) -> Obj {
        assert!(
            Obj::fits_small_int(v),
            "Obj::small_int: {v} does not fit in 63 bits"
        );
        Obj(((v << 1) | 1) as usize)
    }
    /// Whether this handle holds an integer rather than an object.
    #[inline]
    pub fn is_small_int(self) -> bool {
        self.0 & 1 != 0
    }
    /// The integer this handle holds.
    ///
    /// # Panics
    /// If it holds none ([`Obj::is_small_int`]), as the JIT's code does.
    #[inline]
    pub fn to_small_int(self) -> i64 {
        assert!(
            self.is_small_int(),
            "Obj::to_small_int: the handle holds an object, not an integer"
        );
        self.0 as i64 >> 1
    }
    /// Whether `f` fits in a handle ([`Obj::small_float`]): magnitudes in
    /// `[2^-255, 2^257)`; never a zero, a NaN or an infinity.
    #[inline]
    pub fn fits_small_float(f: f64) -> bool {
        flonum::fits(f)
    }
    /// The handle holding `f`.
    ///
    /// # Panics
    /// If `f` does not fit ([`Obj::fits_small_float`]), as the JIT's code does.
    #[inline]
    pub fn small_float(f: f64) -> Obj {
        assert!(
            Obj::fits_small_float(f),
            "Obj::small_float: {f:?} does not fit in a handle"
        );
        Obj(flonum::encode(f) as usize)
    }
    /// Whether this handle holds a float rather than an object.
    #[inline]
    pub fn is_small_float(self) -> bool {
        flonum::is_tagged(self.0 as u64)
    }
    /// The float this handle holds.
    ///
    /// # Panics
    /// If it holds none ([`Obj::is_small_float`]), as the JIT's code does.
    #[inline]
    pub fn to_small_float(self) -> f64 {
        assert!(
            self.is_small_float(),
            "Obj::to_small_float: the handle holds no float"
        );
        flonum::decode(self.0 as u64)
    }
    /// Whether the object is a `T` (false for null, small integers and
    /// small floats).
    #[inline]
    pub fn is<T: Headered>(self) -> bool {
        // Objects are 8-byte aligned: any low bit set is a tagged value.
        if self.0 == 0 || self.0 & 3 != 0 {
            return false;
        }
        // SAFETY: a non-null untagged `Obj` is made only from a headered
        // handle (`From`) or by the JIT from one, so it points to a live headered
        // object (handles held across a collection are reds, which the
        // safepoint updates).
        let class = unsafe { thread_heap::class_id(self.0) };
        thread_heap::is_class(T::struct_type(), T::class_cache(), class)
    }
    /// The object as a `T`.
    ///
    /// # Panics
    /// If it is not a `T` (or null), as the JIT's code does.
    #[inline]
    pub fn cast<T: Headered>(self) -> T {
        assert!(
            self.is::<T>(),
            "Obj::cast: the object is not a `{}`",
            T::struct_type().name
        );
        T::from_raw(self.0)
    }
    /// The address (as the JIT sees it).
    pub fn to_raw(self) -> usize {
        self.0
    }
    /// A handle from a word the JIT produced (a headered object, a small
    /// integer, a small float or 0).
    pub fn from_raw(p: usize) -> Obj {
        Obj(p)
    }
}

impl<T: Headered> From<T> for Obj {
    fn from(x: T) -> Obj {
        Obj(x.to_raw())
    }
}
