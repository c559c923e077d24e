//! Guards and dead frames, loops through `label`/`jump`, bridges, jumps
//! between traces, the step limit, input checks, freeing, compile errors.

use crate::{compile, float, int, reference, run, trace, try_run};
use majit_metainterp::refexec::RefExec;
use majit_metainterp::{Backend, CodeId, CompileError, ExecError, ExitId};

#[test]
fn failing_guard_reports_its_exit_descr_and_fail_args() {
    let text = "[i0, p1, f2]
        i3 = int_gt(i0, 10)
        guard_true(i3, descr=g1) [f2, i0, p1]
        finish(i0, descr=done)";
    let frame = run(text, &[int(3), reference(0x7770), float(-2.5)]);
    assert_eq!(
        frame.exit,
        ExitId {
            code: CodeId(0),
            op_index: 1
        }
    );
    let descr = frame.descr.clone().unwrap();
    assert_eq!(descr.as_fail().map(|f| f.id), Some(1));
    assert_eq!(
        (frame.float(0), frame.int(1), frame.reference(2)),
        (-2.5, 3, 0x7770)
    );
    let passed = run(text, &[int(11), reference(0), float(0.0)]);
    assert_eq!(passed.exit.op_index, 2);
    assert_eq!(passed.values.len(), 1);
    assert_eq!(passed.int(0), 11);
}

#[test]
fn simple_guards_pass_and_fail() {
    // (guard line on input x, inputs that pass, inputs that fail)
    let ints = [
        ("guard_true(i0, descr=g0) []", 1, 0),
        ("guard_true(i0, descr=g0) []", -1, 0),
        ("guard_false(i0, descr=g0) []", 0, 7),
        ("guard_value(i0, 42, descr=g0) []", 42, 41),
    ];
    for (guard, pass, fail) in ints {
        let text = format!("[i0]\n{guard}\nfinish(descr=done)");
        assert_eq!(
            run(&text, &[int(pass)]).descr.as_ref().unwrap().name(),
            "done",
            "{guard} on {pass}"
        );
        assert_eq!(
            run(&text, &[int(fail)]).descr.as_ref().unwrap().name(),
            "g0",
            "{guard} on {fail}"
        );
    }
    let refs = [
        ("guard_nonnull(p0, descr=g0) []", 8, 0),
        ("guard_isnull(p0, descr=g0) []", 0, 8),
    ];
    for (guard, pass, fail) in refs {
        let text = format!("[p0]\n{guard}\nfinish(descr=done)");
        assert_eq!(
            run(&text, &[reference(pass)])
                .descr
                .as_ref()
                .unwrap()
                .name(),
            "done"
        );
        assert_eq!(
            run(&text, &[reference(fail)])
                .descr
                .as_ref()
                .unwrap()
                .name(),
            "g0"
        );
    }
}

#[test]
fn guard_value_on_floats_compares_bits() {
    let text = "[f0]\nguard_value(f0, 0.0, descr=g0) []\nfinish(descr=done)";
    assert_eq!(
        run(text, &[float(0.0)]).descr.as_ref().unwrap().name(),
        "done"
    );
    assert_eq!(
        run(text, &[float(-0.0)]).descr.as_ref().unwrap().name(),
        "g0"
    );
    let nan = "[f0]\nguard_value(f0, nan, descr=g0) []\nfinish(descr=done)";
    assert_eq!(
        run(nan, &[float(f64::NAN)]).descr.as_ref().unwrap().name(),
        "done"
    );
}

#[test]
fn guard_class_reads_the_type_id_or_its_vtable() {
    let mut stack: [u64; 3] = [3 | (1 << 32), 0, 0]; // type id 3 plus a GC flag bit
    let mut boxed: [u64; 2] = [9, 0];
    let text = "[p0, i1]
        guard_nonnull_class(p0, i1, descr=g0) []
        finish(descr=done)";
    let mut exec = RefExec::new();
    let code = compile(&mut exec, text);
    let check = |exec: &mut RefExec, p: usize, cls: i64| {
        let frame = exec.execute(code, &[reference(p), int(cls)]).unwrap();
        frame.descr.as_ref().unwrap().name().to_string()
    };
    let (s, b) = (&mut stack as *mut _ as usize, &mut boxed as *mut _ as usize);
    assert_eq!(
        check(&mut exec, b, 9),
        "done",
        "no vtable: the type id is the class"
    );
    assert_eq!(check(&mut exec, b, 3), "g0");
    assert_eq!(
        check(&mut exec, 0, 9),
        "g0",
        "null fails guard_nonnull_class"
    );
    assert_eq!(
        check(&mut exec, s, 3),
        "done",
        "Stack's vtable is not known yet"
    );
    // A trace that allocates Stack teaches the executor its vtable.
    compile(
        &mut exec,
        "[]\np0 = new_with_vtable(descr=Stack)\nfinish(p0)",
    );
    assert_eq!(check(&mut exec, s, 0x5700), "done");
    assert_eq!(check(&mut exec, s, 3), "g0");
}

const SUM_LOOP: &str = "[i0, i1]
    label(i0, i1, descr=Loop)
    i2 = int_le(i0, 100)
    guard_true(i2, descr=g0) [i1, i0]
    i3 = int_add(i1, i0)
    i4 = int_add(i0, 1)
    jump(i4, i3, descr=Loop)";

#[test]
fn a_loop_sums_one_to_a_hundred() {
    let frame = run(SUM_LOOP, &[int(1), int(0)]);
    assert_eq!(frame.exit.op_index, 2);
    assert_eq!((frame.int(0), frame.int(1)), (5050, 101));
}

#[test]
fn a_bridge_runs_when_its_guard_fails_and_jumps_back_to_the_loop() {
    // Counts i0 up to 100; the bridge at i0 % 10 == 0 adds 1000 to the sum.
    let loop_text = "[i0, i1]
        label(i0, i1, descr=Loop)
        i2 = int_lt(i0, 100)
        guard_true(i2, descr=g0) [i1]
        i3 = int_add(i0, 1)
        i4 = int_mod(i3, 10)
        guard_true(i4, descr=g1) [i3, i1]
        i5 = int_add(i1, 1)
        jump(i3, i5, descr=Loop)";
    let mut exec = RefExec::new();
    let code = compile(&mut exec, loop_text);
    let before = exec.execute(code, &[int(0), int(0)]).unwrap();
    assert_eq!(
        before.exit.op_index, 5,
        "without a bridge the guard exits at i3 == 10"
    );
    assert_eq!((before.int(0), before.int(1)), (10, 9));
    let bridge = trace("[i0, i1]\ni2 = int_add(i1, 1000)\njump(i0, i2, descr=Loop)");
    exec.compile_bridge(ExitId { code, op_index: 5 }, &bridge)
        .unwrap();
    let after = exec.execute(code, &[int(0), int(0)]).unwrap();
    assert_eq!(after.exit, ExitId { code, op_index: 2 });
    assert_eq!(after.int(0), 90 + 10 * 1000);
}

#[test]
fn a_bridge_exit_reports_the_bridges_code() {
    let mut exec = RefExec::new();
    let code = compile(
        &mut exec,
        "[i0]\nguard_true(i0, descr=g0) [i0]\nfinish(i0, descr=done)",
    );
    let bridge = exec
        .compile_bridge(
            ExitId { code, op_index: 0 },
            &trace("[i0]\ni1 = int_sub(i0, 1)\nfinish(i1, descr=g2)"),
        )
        .unwrap();
    let frame = exec.execute(code, &[int(0)]).unwrap();
    assert_eq!(
        frame.exit,
        ExitId {
            code: bridge,
            op_index: 1
        }
    );
    assert_eq!(frame.int(0), -1);
}

#[test]
fn a_jump_continues_at_another_traces_label() {
    let mut exec = RefExec::new();
    let body = compile(&mut exec, SUM_LOOP);
    let entry = compile(
        &mut exec,
        "[i0]\ni1 = int_mul(i0, 2)\njump(i1, 0, descr=Loop)",
    );
    let frame = exec.execute(entry, &[int(25)]).unwrap();
    assert_eq!(frame.exit.code, body);
    assert_eq!(frame.int(0), (50..=100).sum::<i64>());
}

#[test]
fn an_endless_loop_hits_the_step_limit() {
    let mut exec = RefExec::new();
    exec.set_step_limit(10_000);
    let code = compile(
        &mut exec,
        "[i0]\nlabel(i0, descr=Loop)\ni1 = int_add(i0, 1)\njump(i1, descr=Loop)",
    );
    assert_eq!(exec.execute(code, &[int(0)]), Err(ExecError::StepLimit));
}

#[test]
fn inputs_must_match_the_input_kinds() {
    let text = "[i0, f1]\nfinish(i0, f1)";
    let few = try_run(text, &[int(1)]);
    assert!(
        matches!(few, Err(ExecError::BadInputs(ref m)) if m.contains("2 inputs")),
        "{few:?}"
    );
    let kinds = try_run(text, &[int(1), int(2)]);
    assert!(
        matches!(kinds, Err(ExecError::BadInputs(ref m)) if m.contains("input 1")),
        "{kinds:?}"
    );
}

#[test]
fn freed_code_and_its_bridges_are_gone() {
    let mut exec = RefExec::new();
    let code = compile(&mut exec, SUM_LOOP);
    let bridge = exec
        .compile_bridge(
            ExitId { code, op_index: 2 },
            &trace("[i0, i1]\nfinish(i0, descr=g2)"),
        )
        .unwrap();
    let entry = compile(&mut exec, "[i0]\njump(i0, 0, descr=Loop)");
    exec.free(code);
    assert_eq!(
        exec.execute(code, &[int(1), int(0)]),
        Err(ExecError::UnknownCode(code))
    );
    assert_eq!(
        exec.execute(bridge, &[int(1), int(0)]),
        Err(ExecError::UnknownCode(bridge))
    );
    assert_eq!(
        exec.execute(entry, &[int(1)]),
        Err(ExecError::UnknownCode(code)),
        "its label is gone"
    );
    // The label name is free again; jumps bind to the code at compile time.
    let again = compile(&mut exec, SUM_LOOP);
    assert_eq!(
        exec.execute(entry, &[int(1)]),
        Err(ExecError::UnknownCode(code))
    );
    let new_entry = compile(&mut exec, "[i0]\njump(i0, 0, descr=Loop)");
    assert_eq!(exec.execute(new_entry, &[int(1)]).unwrap().exit.code, again);
}

#[test]
fn freeing_a_bridge_detaches_it_from_its_guard() {
    let mut exec = RefExec::new();
    let code = compile(
        &mut exec,
        "[i0]\nguard_true(i0, descr=g0) [i0]\nfinish(i0, descr=done)",
    );
    let guard = ExitId { code, op_index: 0 };
    let bridge = exec
        .compile_bridge(guard, &trace("[i0]\nfinish(i0, descr=g2)"))
        .unwrap();
    assert_eq!(exec.execute(code, &[int(0)]).unwrap().exit.code, bridge);
    exec.free(bridge);
    assert_eq!(exec.execute(code, &[int(0)]).unwrap().exit, guard);
}

#[test]
fn guard_not_invalidated_fails_once_its_word_is_set() {
    let word = std::cell::Cell::new(0u64);
    let mut exec = RefExec::new();
    let text = format!(
        "[i0]\nquasiimmut_field(ptr({:#x}), descr=Node.value)\nguard_not_invalidated(ptr({0:#x}), descr=g0) [i0]\nfinish(descr=done)",
        word.as_ptr() as usize
    );
    let code = compile(&mut exec, &text);
    let exit = |exec: &mut RefExec| {
        let d = exec.execute(code, &[int(1)]).unwrap();
        d.descr.as_ref().unwrap().name().to_string()
    };
    assert_eq!(exit(&mut exec), "done");
    word.set(1);
    assert_eq!(exit(&mut exec), "g0");
    let null = compile(
        &mut exec,
        "[i0]\nguard_not_invalidated(null, descr=g1) [i0]\nfinish(descr=done)",
    );
    let e = exec.execute(null, &[int(1)]).unwrap_err();
    assert_eq!(e, ExecError::NullPointer { op_index: 0 });
}

#[test]
fn debug_merge_point_and_labels_fall_through() {
    let text =
        "[i0]\ndebug_merge_point(i0, 7)\nlabel(i0, descr=Loop)\ni1 = int_add(i0, 1)\nfinish(i1)";
    assert_eq!(run(text, &[int(1)]).int(0), 2);
}

fn compile_error(text: &str) -> CompileError {
    RefExec::new().compile_loop(&trace(text)).unwrap_err()
}

#[test]
fn compile_errors_name_the_problem() {
    let unknown = compile_error("[i0]\njump(i0, descr=Loop2)");
    assert!(
        matches!(unknown, CompileError::UnknownTarget(ref m) if m.contains("Loop2")),
        "{unknown:?}"
    );
    let rule = compile_error(
        "[i0, i1]\nlabel(i0, descr=Loop)\ni2 = int_add(i0, i1)\njump(i2, descr=Loop)",
    );
    assert!(
        matches!(rule, CompileError::Invalid(ref m) if m.contains("op 1")),
        "{rule:?}"
    );
    let kinds = compile_error("[i0, f1]\nlabel(i0, descr=Loop)\njump(f1, descr=Loop)");
    assert!(matches!(kinds, CompileError::Invalid(_)), "{kinds:?}");
    let arg_kind = compile_error("[f0]\ni1 = int_add(f0, 1)\nfinish(i1)");
    assert!(
        matches!(arg_kind, CompileError::Invalid(ref m) if m.contains("float")),
        "{arg_kind:?}"
    );
    let open_end = compile_error("[i0]\ni1 = int_add(i0, 1)");
    assert!(matches!(open_end, CompileError::Invalid(_)), "{open_end:?}");
    let use_before_def =
        compile_error("[i0]\ni1 = int_add(i2, 1)\ni2 = int_add(i0, 1)\nfinish(i1)");
    assert!(
        matches!(use_before_def, CompileError::Invalid(_)),
        "{use_before_def:?}"
    );
    let width = compile_error("descr W = field(owner=W, offset=0, size=4, kind=float)\n[i0]\nf1 = getfield_raw_f(i0, descr=W)\nfinish(f1)");
    assert!(matches!(width, CompileError::ImplLimit(_)), "{width:?}");
    let mut exec = RefExec::new();
    compile(&mut exec, SUM_LOOP);
    let twice = exec.compile_loop(&trace(SUM_LOOP)).unwrap_err();
    assert!(
        matches!(twice, CompileError::Invalid(ref m) if m.contains("already defined")),
        "{twice:?}"
    );
}

#[test]
fn bridges_are_checked_against_their_guard() {
    let mut exec = RefExec::new();
    let code = compile(
        &mut exec,
        "[i0]\nguard_true(i0, descr=g0) [i0]\nfinish(i0, descr=done)",
    );
    let bridge = trace("[i0]\nfinish(i0)");
    let not_a_guard = exec
        .compile_bridge(ExitId { code, op_index: 1 }, &bridge)
        .unwrap_err();
    assert!(
        matches!(not_a_guard, CompileError::UnknownTarget(_)),
        "{not_a_guard:?}"
    );
    let no_code = exec
        .compile_bridge(
            ExitId {
                code: CodeId(7),
                op_index: 0,
            },
            &bridge,
        )
        .unwrap_err();
    assert!(
        matches!(no_code, CompileError::UnknownTarget(_)),
        "{no_code:?}"
    );
    let wrong = exec
        .compile_bridge(ExitId { code, op_index: 0 }, &trace("[f0]\nfinish(f0)"))
        .unwrap_err();
    assert!(matches!(wrong, CompileError::Invalid(_)), "{wrong:?}");
    exec.compile_bridge(ExitId { code, op_index: 0 }, &bridge)
        .unwrap();
    let again = exec
        .compile_bridge(ExitId { code, op_index: 0 }, &bridge)
        .unwrap_err();
    assert!(matches!(again, CompileError::Invalid(_)), "{again:?}");
}

#[test]
fn a_trace_with_two_labels_loops_at_the_second() {
    // Loop: preamble entry; Loop2: the body counting i2 down to 0.
    let text = "[i0, i1]
        label(i0, i1, descr=Loop)
        i2 = int_add(i0, i1)
        label(i2, i1, descr=Loop2)
        i3 = int_sub(i2, 1)
        i4 = int_gt(i3, 0)
        guard_true(i4, descr=g0) [i3, i1]
        jump(i3, i1, descr=Loop2)";
    let mut exec = RefExec::new();
    compile(&mut exec, text);
    let entry = compile(&mut exec, "[i0]\njump(i0, 7, descr=Loop)");
    let frame = exec.execute(entry, &[int(3)]).unwrap();
    assert_eq!((frame.exit.code, frame.exit.op_index), (CodeId(0), 5));
    assert_eq!((frame.int(0), frame.int(1)), (0, 7));
}

#[test]
fn bridges_chain_and_are_freed_with_their_loop() {
    let mut exec = RefExec::new();
    let code = compile(
        &mut exec,
        "[i0]\ni1 = int_gt(i0, 10)\nguard_true(i1, descr=g0) [i0]\nfinish(i0, descr=done)",
    );
    let first =
        trace("[i0]\ni1 = int_gt(i0, 5)\nguard_true(i1, descr=g1) [i0]\nfinish(i0, descr=g1)");
    let b1 = exec
        .compile_bridge(ExitId { code, op_index: 1 }, &first)
        .unwrap();
    let second = trace("[i0]\ni1 = int_neg(i0)\nfinish(i1, descr=g2)");
    let b2 = exec
        .compile_bridge(
            ExitId {
                code: b1,
                op_index: 1,
            },
            &second,
        )
        .unwrap();
    let names = |exec: &mut RefExec, x: i64| {
        let f = exec.execute(code, &[int(x)]).unwrap();
        (
            f.exit.code,
            f.descr.as_ref().unwrap().name().to_string(),
            f.int(0),
        )
    };
    assert_eq!(names(&mut exec, 11), (code, "done".into(), 11));
    assert_eq!(names(&mut exec, 7), (b1, "g1".into(), 7));
    assert_eq!(names(&mut exec, 2), (b2, "g2".into(), -2));
    exec.free(code);
    assert_eq!(exec.execute(b2, &[int(1)]), Err(ExecError::UnknownCode(b2)));
}

#[test]
fn jumps_into_other_traces_are_checked_against_the_label() {
    let mut exec = RefExec::new();
    compile(&mut exec, SUM_LOOP);
    let err = exec
        .compile_loop(&trace("[f0]\njump(f0, f0, descr=Loop)"))
        .unwrap_err();
    assert!(
        matches!(err, CompileError::Invalid(ref m) if m.contains("Loop")),
        "{err:?}"
    );
}
