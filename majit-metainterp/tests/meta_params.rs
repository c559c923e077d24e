//! `JitParams` from the environment: defaults, overrides, clear errors.

use majit_metainterp::params::JitParams;

fn lookup<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |k| vars.iter().find(|v| v.0 == k).map(|v| v.1.to_string())
}

#[test]
fn defaults_hold_without_variables() {
    let p = JitParams::from_lookup(lookup(&[])).unwrap();
    assert_eq!(p, JitParams::default());
    assert_eq!(p.enable_opts, majit_metainterp::opt::DEFAULT_OPTS);
}

#[test]
fn variables_override_defaults() {
    let vars = [
        ("MAJIT_THRESHOLD", "3"),
        ("MAJIT_TRACE_LIMIT", " 500 "),
        ("MAJIT_BRIDGE_THRESHOLD", "0"),
        ("MAJIT_RETRACE_LIMIT", "0"),
        ("MAJIT_ENABLE_OPTS", "rewrite:virtualize"),
        ("MAJIT_DECAY", "100"),
    ];
    let p = JitParams::from_lookup(lookup(&vars)).unwrap();
    assert_eq!(p.threshold, 3);
    assert_eq!(p.trace_limit, 500);
    assert_eq!(p.bridge_threshold, 0);
    assert_eq!(p.retrace_limit, 0);
    assert_eq!(p.enable_opts, "rewrite:virtualize");
    assert_eq!(p.decay, 100);
    let none = JitParams::from_lookup(lookup(&[("MAJIT_ENABLE_OPTS", "")])).unwrap();
    assert_eq!(none.enable_opts, "");
}

#[test]
fn bad_values_name_the_variable_and_the_expectation() {
    for (var, value, expect) in [
        ("MAJIT_THRESHOLD", "0", "from 1"),
        ("MAJIT_THRESHOLD", "many", "an integer"),
        ("MAJIT_TRACE_LIMIT", "-5", "an integer"),
        ("MAJIT_BRIDGE_THRESHOLD", "1e3", "an integer"),
        ("MAJIT_DECAY", "101", "to 100"),
        ("MAJIT_RETRACE_LIMIT", "-1", "an integer"),
        ("MAJIT_ENABLE_OPTS", "rewrite:inline", "inline"),
    ] {
        let e = JitParams::from_lookup(lookup(&[(var, value)])).unwrap_err();
        assert_eq!(e.var, var);
        let msg = e.to_string();
        assert!(msg.contains(var) && msg.contains(expect), "{msg}");
    }
}

#[test]
fn builder_setters_validate_passes() {
    let p = JitParams::default().with_threshold(0);
    assert_eq!(p.threshold, 1, "a threshold of 0 means 1");
    assert!(JitParams::default().with_opts("heap:nope").is_err());
    assert_eq!(
        JitParams::default().with_opts("heap").unwrap().enable_opts,
        "heap"
    );
}
