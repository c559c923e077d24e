//! [`Array`]: a handle of a variable-length GC array of the thread heap
//! (header, length word, then the items: [`crate::ArrayLayout`]), with
//! bounds-checked indexing. The element types are rows of one table
//! ([`Elem`] implementations below; `#[jit_interp]` adds one per declared
//! struct), so another element type is one more row.

use crate::obj::Obj;
use crate::thread_heap::{self, ArrayType};
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// An element type of [`Array`].
///
/// # Safety
/// A value of `Self` must be stored as exactly its `size_of::<Self>()`
/// bytes (1, 2, 4 or 8), every bit pattern the JIT or a zeroed array can
/// store must be a valid `Self`, and `array_type()` must describe items of
/// that size, as references exactly when `Self` is a GC handle.
pub unsafe trait Elem: Copy {
    /// The items are GC references (stores run the write barrier).
    const IS_REF: bool;
    /// The thread heap's type of `Array<Self>`.
    fn array_type() -> &'static ArrayType;
}

/// Implements [`Elem`] for `$t`, the array type named `$name` (a name
/// traces can print: `Array_T`). `#[jit_interp]` writes the same impl for
/// each declared struct.
macro_rules! elem {
    ($t:ty, $name:literal, $refs:literal) => {
        // SAFETY: `$t` is an integer, `f64` (every bit pattern is one),
        // `bool` (0 or 1 in a zeroed or JIT-stored item) or `Obj` (a `#[repr(transparent)]` GC handle
        // whose zero value is null); the item size is its size.
        unsafe impl Elem for $t {
            const IS_REF: bool = $refs;
            fn array_type() -> &'static ArrayType {
                static TYPE: ArrayType = ArrayType::new($name, size_of::<$t>() as u32, $refs);
                &TYPE
            }
        }
    };
}

elem!(i8, "Array_i8", false);
elem!(i16, "Array_i16", false);
elem!(i32, "Array_i32", false);
elem!(i64, "Array_i64", false);
elem!(isize, "Array_isize", false);
elem!(u8, "Array_u8", false);
elem!(u16, "Array_u16", false);
elem!(u32, "Array_u32", false);
elem!(u64, "Array_u64", false);
elem!(usize, "Array_usize", false);
elem!(f64, "Array_f64", false);
elem!(bool, "Array_bool", false);
elem!(Obj, "Array_Obj", true);

/// A handle of a GC array of `T`s in the thread heap, or null. Copying
/// the handle does not copy the array.
#[repr(transparent)]
pub struct Array<T: Elem>(usize, PhantomData<T>);

impl<T: Elem> Clone for Array<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Elem> Copy for Array<T> {}
impl<T: Elem> PartialEq for Array<T> {
    fn eq(&self, o: &Self) -> bool {
        self.0 == o.0
    }
}
impl<T: Elem> Eq for Array<T> {}
impl<T: Elem> std::fmt::Debug for Array<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Array({:#x})", self.0)
    }
}

impl<T: Elem> Array<T> {
    /// An array of `len` zeroed items (0, `false`, null). Never collects;
    /// if the heap is exhausted, prints why and exits with status 70.
    pub fn new(len: usize) -> Array<T> {
        Array(
            thread_heap::alloc_array_or_exit(T::array_type(), len),
            PhantomData,
        )
    }
    /// The shared array of no items of this type: an empty array has no
    /// item to write, so all of them can be one object, which the heap
    /// allocates old at the first call and keeps alive (a table with an
    /// empty part costs no allocation). Never collects; exits as
    /// [`Array::new`] does if the heap is exhausted.
    ///
    /// ```
    /// use majit_gc::Array;
    /// let (a, b) = (Array::<i64>::empty(), Array::<i64>::empty());
    /// assert_eq!((a.len(), a.to_raw()), (0, b.to_raw()));
    /// ```
    pub fn empty() -> Array<T> {
        let obj = thread_heap::empty_array(T::array_type()).unwrap_or_else(|e| {
            thread_heap::exit_with(format!(
                "cannot allocate the empty `{}`: {e}",
                T::array_type().name
            ))
        });
        Array(obj, PhantomData)
    }
    /// [`Array::new`] bumped inline through `heap` (what `#[jit_interp]`
    /// makes of `Array::new` in an interpreter's body).
    #[doc(hidden)]
    #[inline(always)]
    pub fn __majit_new_in(heap: &thread_heap::RunHeap, len: usize) -> Array<T> {
        match heap.alloc_array(T::array_type(), len) {
            Some(p) => Array(p, PhantomData),
            None => Self::new_slow(len),
        }
    }
    #[cold]
    #[inline(never)]
    fn new_slow(len: usize) -> Array<T> {
        Self::new(len)
    }
    /// The null handle.
    pub fn null() -> Array<T> {
        Array(0, PhantomData)
    }
    /// Whether this is the null handle.
    pub fn is_null(self) -> bool {
        self.0 == 0
    }
    /// The number of items.
    pub fn len(self) -> usize {
        assert!(self.0 != 0, "null {} dereferenced", T::array_type().name);
        // SAFETY: a non-null handle points to a live array (handles held
        // across a collection are reds, which the safepoint updates),
        // whose length word is at ARRAY_LENGTH_OFFSET.
        unsafe {
            *(self.0 as *const u8)
                .add(crate::layout::ARRAY_LENGTH_OFFSET as usize)
                .cast::<usize>()
        }
    }
    /// Whether the array has no items.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
    /// The address (as the JIT sees it).
    pub fn to_raw(self) -> usize {
        self.0
    }
    /// A handle from an address the JIT produced (an array of `T`s or 0).
    pub fn from_raw(p: usize) -> Array<T> {
        Array(p, PhantomData)
    }
    /// The items as a slice, borrowed from the handle like an item
    /// (`Index`): nothing collects while the borrow lives.
    ///
    /// ```
    /// use majit_gc::Array;
    /// let a = Array::<u8>::from_slice(b"abc");
    /// assert_eq!(a.as_slice(), b"abc");
    /// ```
    pub fn as_slice(&self) -> &[T] {
        let len = self.len();
        // SAFETY: a live array of `len` `T`s (the `Elem` contract) starts
        // at the items offset; the borrow cannot span a collection (see
        // `Index`).
        unsafe {
            std::slice::from_raw_parts(
                (self.0 + crate::layout::ARRAY_ITEMS_OFFSET as usize) as *const T,
                len,
            )
        }
    }
    /// A new array holding a copy of `items` (exits as [`Array::new`]).
    pub fn from_slice(items: &[T]) -> Array<T> {
        Self::from_slices(&[items])
    }
    /// A new array holding the items of `parts`, one after another
    /// (exits as [`Array::new`]).
    ///
    /// ```
    /// use majit_gc::Array;
    /// let a = Array::<u8>::from_slices(&[b"ab", b"", b"c"]);
    /// assert_eq!(a.as_slice(), b"abc");
    /// ```
    pub fn from_slices(parts: &[&[T]]) -> Array<T> {
        let a = Self::new(parts.iter().map(|p| p.len()).sum());
        let mut at = (a.0 + crate::layout::ARRAY_ITEMS_OFFSET as usize) as *mut T;
        for p in parts {
            // SAFETY: `a` is a fresh array of the parts' total length,
            // distinct from each of them; `at` advances within it.
            unsafe {
                std::ptr::copy_nonoverlapping(p.as_ptr(), at, p.len());
                at = at.add(p.len());
            }
        }
        if T::IS_REF {
            // A large array is allocated old: record it, as a store would.
            thread_heap::write_barrier_headered(a.0);
        }
        a
    }
    /// Moves the items `src` to start at index `dest`, as
    /// `slice::copy_within` (one write barrier for a reference array, as
    /// a store would take). Panics as an index does when either range
    /// passes the end.
    ///
    /// ```
    /// use majit_gc::Array;
    /// let a = Array::<i64>::from_slice(&[1, 2, 3, 4]);
    /// a.copy_within(0..3, 1);
    /// assert_eq!(a.as_slice(), &[1, 1, 2, 3]);
    /// ```
    pub fn copy_within(self, src: std::ops::Range<usize>, dest: usize) {
        let len = self.len();
        let count = src.end.saturating_sub(src.start);
        if src.end > len || src.start > src.end {
            out_of_bounds(src.end, len);
        }
        if dest.saturating_add(count) > len {
            out_of_bounds(dest.saturating_add(count), len);
        }
        if T::IS_REF {
            thread_heap::write_barrier_headered(self.0);
        }
        let items = (self.0 + crate::layout::ARRAY_ITEMS_OFFSET as usize) as *mut T;
        // SAFETY: both ranges are in bounds of the live array (checked
        // above); `ptr::copy` allows them to overlap; nothing collects.
        unsafe { std::ptr::copy(items.add(src.start), items.add(dest), count) }
    }
    /// Item `i`'s address, after the bounds check.
    #[inline]
    fn item(&self, i: usize) -> *mut T {
        let len = self.len();
        if i >= len {
            out_of_bounds(i, len);
        }
        // SAFETY: in bounds of the live array (checked above).
        unsafe {
            (self.0 as *mut u8)
                .add(crate::layout::ARRAY_ITEMS_OFFSET as usize)
                .cast::<T>()
                .add(i)
        }
    }
}

/// What `#[jit_interp]` makes of the virtualizable frame's `Array` field
/// in the plain interpreter: the handle and its length kept in locals,
/// so that an item access is a bounds check against a register and a
/// load (through the frame it is a null check of the frame, a field load,
/// a null check of the array and a length load besides).
///
/// A cached view is stale once the array may have been replaced or
/// moved: after a safepoint or a recursive call of the interpreter (a
/// collection), an assignment of the frame, or a call that may force the
/// frame (a residual helper given a GC handle, a traced function that
/// does one of these). The macro takes a new view before the first
/// access after any of them; the view itself roots nothing.
///
/// ```
/// use majit_gc::{Array, CachedArray};
/// let a = Array::<i64>::from_slice(&[1, 2, 3]);
/// let v = CachedArray::of(a);
/// v.set(1, 20);
/// assert_eq!((v.get(1), v.len(), a[1]), (20, 3, 20));
/// ```
#[derive(Clone, Copy)]
pub struct CachedArray<T: Elem> {
    array: Array<T>,
    len: usize,
}

impl<T: Elem> CachedArray<T> {
    /// A view of `array` (the null handle: a view whose every access
    /// fails as the handle's would).
    #[inline(always)]
    pub fn of(array: Array<T>) -> CachedArray<T> {
        let len = if array.is_null() { 0 } else { array.len() };
        CachedArray { array, len }
    }
    /// Item `i` (`array[i]`).
    #[inline(always)]
    pub fn get(self, i: usize) -> T {
        // SAFETY: `item` checked the bounds of the array, live while the
        // view is fresh (the macro's invariant above); the items are `T`s.
        unsafe { *self.item(i) }
    }
    /// Stores `v` as item `i` (`array[i] = v`, with its write barrier).
    #[inline(always)]
    pub fn set(self, i: usize, v: T) {
        let p = self.item(i);
        if T::IS_REF {
            thread_heap::write_barrier_headered(self.array.0);
        }
        // SAFETY: as in `get`; nothing collects between the barrier and
        // the store.
        unsafe { *p = v }
    }
    /// The number of items (`array.len()`).
    #[inline(always)]
    pub fn len(self) -> usize {
        if self.array.is_null() {
            self.array.len(); // panics as the handle's would
        }
        self.len
    }
    /// Whether the array has no items.
    #[inline(always)]
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
    #[inline(always)]
    fn item(self, i: usize) -> *mut T {
        if i >= self.len {
            self.fail(i);
        }
        // SAFETY: `i` is in bounds of the live array of `len` items.
        unsafe {
            (self.array.0 as *mut u8)
                .add(crate::layout::ARRAY_ITEMS_OFFSET as usize)
                .cast::<T>()
                .add(i)
        }
    }
    /// Item `i` is out of bounds, or the array is null: the handle's own
    /// panic.
    #[cold]
    #[inline(never)]
    fn fail(self, i: usize) -> ! {
        self.array.len(); // the null handle's panic
        out_of_bounds(i, self.len)
    }
}

/// The bounds check's panic, out of line: were it inline, the optimizer
/// would merge the panics of an interpreter's many item accesses into one
/// block, and every access would spill its index and length for it.
#[cold]
#[inline(never)]
fn out_of_bounds(i: usize, len: usize) -> ! {
    panic!("index out of bounds: the len is {len} but the index is {i}")
}

impl<T: Elem> Index<usize> for Array<T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, i: usize) -> &T {
        // SAFETY: `item` checked the bounds of a live array whose items
        // are `T`s (the `Elem` contract); nothing collects while the
        // reference lives (collections happen only at safepoints, which
        // reassign the handle, so a borrow cannot span one).
        unsafe { &*self.item(i) }
    }
}

impl<T: Elem> IndexMut<usize> for Array<T> {
    #[inline(always)]
    fn index_mut(&mut self, i: usize) -> &mut T {
        let p = self.item(i);
        if T::IS_REF {
            // Before the store, which nothing can separate from it (no
            // collection before the next safepoint): the array is recorded
            // if it is old.
            thread_heap::write_barrier_headered(self.0);
        }
        // SAFETY: as in `index`.
        unsafe { &mut *p }
    }
}
