//! Resume data: what each guard needs to rebuild the interpreter's state
//! (fail args, constants, virtuals, pending fields).
