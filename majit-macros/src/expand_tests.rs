//! Unit tests of the whole expansion of `#[jit_interp]` (run outside a
//! compiler: on `proc_macro2` tokens), for facts about the generated code
//! that running it cannot show, such as which items it contains.

use crate::{attr, expand};

/// The expansion of the first `#[jit_interp]` function of `file`.
fn expansion(file: &str) -> String {
    let file: syn::File = syn::parse_str(file).expect("the test source parses");
    let mut func = file
        .items
        .into_iter()
        .find_map(|i| match i {
            syn::Item::Fn(f) if f.attrs.iter().any(|a| a.path().is_ident("jit_interp")) => Some(f),
            _ => None,
        })
        .expect("the test source has a #[jit_interp] function");
    let at = func
        .attrs
        .iter()
        .position(|a| a.path().is_ident("jit_interp"))
        .unwrap();
    let a = func.attrs.remove(at);
    let parsed: attr::Attr = a.parse_args().expect("the attribute parses");
    expand(parsed, func, Vec::new())
        .expect("the interpreter expands")
        .to_string()
}

/// The float shims an expansion defines, by name.
fn float_shims(code: &str) -> Vec<&str> {
    let mut out: Vec<&str> = code
        .split("extern \"C\" fn ")
        .skip(1)
        .filter_map(|s| s.split_whitespace().next())
        .filter(|n| n.starts_with("__majit_f64") || n.starts_with("__majit_u64"))
        .collect();
    out.sort_unstable();
    out
}

#[test]
fn an_interpreter_without_floats_gets_no_float_shims() {
    let code = expansion(include_str!("../../examples/bf/src/lib.rs"));
    assert!(code.contains("extern \"C\" fn __majit_shim_put"));
    assert_eq!(float_shims(&code), Vec::<&str>::new());
}

#[test]
fn an_interpreter_gets_the_float_shims_its_jitcode_calls() {
    let code = expansion(
        r#"
        #[jit_interp(greens = [pc], reds = [x])]
        fn run(mut x: f64) -> f64 {
            let mut pc: usize = 0;
            loop {
                jit_merge_point!();
                if pc == 3 {
                    return x;
                }
                x = (x % 7.0).floor() + (pc as f64) + (x as i32) as f64;
                pc += 1;
            }
        }
        "#,
    );
    assert_eq!(
        float_shims(&code),
        [
            "__majit_f64_floor",
            "__majit_f64_rem",
            "__majit_f64_to_i32",
            "__majit_u64_to_f64"
        ]
    );
}

#[test]
fn inline_helpers_get_a_residual_form_calling_a_copy_of_their_definition() {
    let code = expansion(
        r#"
        #[jit_interp(greens = [pc], reds = [x], helpers = [inline fn twice(a: i64) -> i64])]
        fn run(mut x: i64) -> i64 {
            fn twice(a: i64) -> i64 {
                a + a
            }
            let mut pc: usize = 0;
            loop {
                jit_merge_point!();
                if pc == 3 {
                    return x;
                }
                x = twice(x);
                pc += 1;
            }
        }
        "#,
    );
    assert!(
        code.contains("extern \"C\" fn __majit_residual_twice"),
        "{code}"
    );
    assert!(
        code.contains("set . set_residual (__majit_f_twice"),
        "{code}"
    );
    // The plain function's and `run_jit`'s nested definitions, and the
    // copy the shim calls.
    assert_eq!(code.matches("fn twice (a : i64)").count(), 3, "{code}");
}
