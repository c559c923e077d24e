//! [`Obj`]: a handle of any headered GC struct of the thread heap (the
//! structs `#[jit_interp]` declares `#[headered]`), whose class can be
//! tested ([`Obj::is`]) and which can be cast back to the struct's handle
//! ([`Obj::cast`]). A headered object's header holds its type id in the
//! thread heap ([`crate::thread_heap::class_id`]), so a class test is a
//! load and a compare.

use crate::thread_heap::{self, StructType};

/// The handle type of a headered GC struct (implemented by the handles
/// `#[jit_interp]` generates for `#[headered]` structs).
pub trait Headered: Copy {
    /// The struct's type in the thread heap.
    fn struct_type() -> &'static StructType;
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
    /// Whether the object is a `T` (false for null).
    #[inline]
    pub fn is<T: Headered>(self) -> bool {
        if self.0 == 0 {
            return false;
        }
        // SAFETY: a non-null `Obj` is made only from a headered handle
        // (`From`) or by the JIT from one, so it points to a live headered
        // object (handles held across a collection are reds, which the
        // safepoint updates).
        let class = unsafe { thread_heap::class_id(self.0) };
        // A type that cannot be registered has no objects.
        thread_heap::type_id(T::struct_type()).is_ok_and(|t| t.0 == class)
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
    /// A handle from an address the JIT produced (a headered object or 0).
    pub fn from_raw(p: usize) -> Obj {
        Obj(p)
    }
}

impl<T: Headered> From<T> for Obj {
    fn from(x: T) -> Obj {
        Obj(x.to_raw())
    }
}
